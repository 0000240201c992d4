(() => {
  // YASQE (loaded before this module) sets globalThis.Yasqe; without it the plain box stays.
  var Yasqe = /** @type {any} */ (globalThis).Yasqe;
  var form = /** @type {HTMLFormElement | null} */ (document.getElementById('query-form'));
  var box = /** @type {HTMLTextAreaElement | null} */ (document.getElementById('query-text'));
  if (!Yasqe || !form || !box) return;
  var style = document.createElement('link');
  style.rel = 'stylesheet';
  style.href = form.getAttribute('data-style') || '';
  document.head.append(style);
  var holder = document.createElement('div');
  holder.className = 'query-editor';
  box.after(holder);
  var editor = new Yasqe(holder, {
    value: box.value,
    // The page says what the query is: no stored query, no share links, no calls elsewhere.
    persistenceId: null,
    consumeShareLink: null,
    createShareableLink: null,
    showQueryButton: false,
    // Completion of the query's own variables only: the others ask other sites.
    autocompleters: ['variables'],
    // As tall as the query and wrapped at the page's width: no region to scroll within.
    resizeable: false,
    editorHeight: 'auto',
    lineWrapping: true,
    // Tab moves on to the next control, as everywhere else on the page.
    extraKeys: { Tab: false, 'Shift-Tab': false, 'Ctrl-Enter': () => form.requestSubmit() },
  });
  box.hidden = true;
  var input = editor.getInputField();
  input.id = 'query-editor-input';
  input.setAttribute('aria-label', 'Query');
  var label = form.querySelector('label[for="query-text"]');
  if (label) label.setAttribute('for', input.id);
  form.addEventListener('submit', () => {
    box.value = editor.getValue();
  });
})();
