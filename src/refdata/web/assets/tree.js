// A class tree's levels, fetched as they are opened. Without this script each
// level's <details> holds a link to the class's page, which lists the level.
document.addEventListener(
  'toggle',
  (event) => {
    const details = event.target;
    if (!(details instanceof HTMLDetailsElement) || !details.open) return;
    const address = details.dataset.subtree;
    if (!address || details.dataset.state) return;
    details.dataset.state = 'loading';
    details.setAttribute('aria-busy', 'true');
    fetch(address, { headers: { accept: 'text/html' }, credentials: 'same-origin' })
      .then((response) => (response.ok ? response.text() : Promise.reject(response.status)))
      .then((text) => {
        const template = document.createElement('template');
        template.innerHTML = text;
        const level = template.content.querySelector('ul.tree');
        const fallback = details.querySelector('.subtree-link');
        if (!level || !fallback) throw new Error('not a level of the tree');
        fallback.replaceWith(level);
        details.dataset.state = 'loaded';
      })
      .catch(() => {
        // The link to the class's page stays: it lists the level.
        delete details.dataset.state;
      })
      .finally(() => details.removeAttribute('aria-busy'));
  },
  true,
);
