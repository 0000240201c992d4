import type { HttpApp } from '../http/server.js';
import { html, type Markup } from './html.js';

/**
 * The pages work without script; this only adds what a browser alone cannot:
 * a Copy button beside each value marked `data-copy-text`, which says "Copied"
 * (to screen readers too) when the value is on the clipboard.
 */
const SCRIPT = `'use strict';
document.querySelectorAll('[data-copy-text]').forEach(function (element) {
  var button = document.createElement('button');
  button.type = 'button';
  button.className = 'copy';
  var label = element.getAttribute('data-copy-label') || 'Copy';
  button.textContent = label;
  var said = document.createElement('span');
  said.setAttribute('role', 'status');
  said.className = 'copied';
  button.addEventListener('click', function () {
    navigator.clipboard.writeText(element.getAttribute('data-copy-text')).then(function () {
      said.textContent = ' Copied';
    }, function () {
      said.textContent = ' Copying failed: select the text and copy it by hand';
    });
  });
  element.after(button, said);
});
`;

/**
 * A value people copy (an application ID, a secret, a new token, a key): shown
 * as code, and given a Copy button when script runs. `shown` is the text on the
 * page when it differs from what is copied (a key in groups of four); `hidden`
 * shows only the button.
 */
export function copyable(
  id: string,
  value: string,
  options: { shown?: string; hidden?: boolean; label?: string; className?: string } = {},
): Markup {
  const label = options.label ?? 'Copy';
  if (options.hidden) {
    return html`<span id="${id}" data-copy-text="${value}" data-copy-label="${label}"></span>`;
  }
  return html`<code id="${id}" class="${options.className ?? 'secret'}" data-copy-text="${value}" data-copy-label="${label}">${options.shown ?? value}</code>`;
}

/** Serves the pages' script at `path` (each service names its own). */
export function registerPageScript(app: HttpApp, path: string): void {
  app.get(path, { schema: { hide: true } }, async (_request, reply) =>
    reply.type('text/javascript').header('cache-control', 'public, max-age=3600').send(SCRIPT),
  );
}
