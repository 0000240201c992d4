import { html, type Markup } from './html.js';

/** An http(s) address in running text, up to the first space or bracket that ends it. */
const ADDRESS = /\bhttps?:\/\/[^\s<>"'`]+/gi;
/** Punctuation after an address in a sentence belongs to the sentence. */
const TRAILING = /[.,;:!?)\]}]+$/;

/**
 * People's text as a page shows it: escaped, with http(s) addresses made links
 * that open no window onto this page and pass no ranking (a comment is user
 * content). Nothing else is a link: no other scheme, no markup of the writer's.
 */
export function linkified(text: string): Markup {
  const parts: Markup[] = [];
  let at = 0;
  for (const match of text.matchAll(ADDRESS)) {
    const start = match.index ?? 0;
    const address = match[0].replace(TRAILING, '');
    let valid = true;
    try {
      new URL(address);
    } catch {
      valid = false;
    }
    if (!valid) continue;
    parts.push(html`${text.slice(at, start)}`);
    parts.push(html`<a href="${address}" rel="nofollow ugc noopener noreferrer">${address}</a>`);
    at = start + address.length;
  }
  parts.push(html`${text.slice(at)}`);
  return html`${parts}`;
}
