document.querySelectorAll('[data-copy-text]').forEach((element) => {
  var button = document.createElement('button');
  button.type = 'button';
  button.className = 'copy';
  var label = element.getAttribute('data-copy-label') || 'Copy';
  button.textContent = label;
  var said = document.createElement('span');
  said.setAttribute('role', 'status');
  said.className = 'copied';
  button.addEventListener('click', () => {
    navigator.clipboard.writeText(element.getAttribute('data-copy-text')).then(
      () => {
        said.textContent = ' Copied';
      },
      () => {
        said.textContent = ' Copying failed: select the text and copy it by hand';
      },
    );
  });
  element.after(button, said);
});
