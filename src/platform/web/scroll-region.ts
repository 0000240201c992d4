import { html, type Markup } from './html.js';

/**
 * A wide table in a box that scrolls sideways on a narrow screen: a named
 * region keyboards can reach (`tabindex="0"`), so people who do not use a
 * pointer can scroll it too (WCAG 2.1.1; axe's scrollable-region-focusable).
 */
export function scrollRegion(label: string, content: Markup): Markup {
  return html`<div class="table-scroll" role="region" aria-label="${label}" tabindex="0">${content}</div>`;
}
