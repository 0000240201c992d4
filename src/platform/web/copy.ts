import type { HttpApp } from '../http/server.js';
import { readAsset } from './assets.js';
import { html, type Markup } from './html.js';

/**
 * The pages work without script; this only adds what a browser alone cannot:
 * a Copy button beside each value marked `data-copy-text`, which says "Copied"
 * (to screen readers too) when the value is on the clipboard.
 */
const SCRIPT = readAsset(new URL('./assets/copy.js', import.meta.url));

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
