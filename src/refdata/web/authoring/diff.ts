import { html, type Markup } from '../../../platform/web/html.js';
import type { Change } from '../../resources/field-changes.js';

/** "/relatedTerms/0/relationType" as "relatedTerms 1 › relationType". */
export function pointerWords(pointer: string): string {
  return pointer
    .split('/')
    .slice(1)
    .map((step) =>
      /^\d+$/.test(step)
        ? String(Number(step) + 1)
        : step.replaceAll('~1', '/').replaceAll('~0', '~'),
    )
    .join(' › ');
}

/** A table of changes, with headings naming the two sides. */
export function changesTable(
  changes: readonly Change[],
  headings: { before: string; after: string },
  caption: string,
  names: ReadonlyMap<string, { name: string; href: string | undefined }> = new Map(),
): Markup {
  // A value naming one of our resources shows its name, linked.
  const shown = (value: string) => {
    const named = names.get(value);
    if (!named) return html`${value}`;
    return named.href ? html`<a href="${named.href}">${named.name}</a>` : html`${named.name}`;
  };
  if (changes.length === 0) return html`<p>No field differs.</p>`;
  return html`<table class="stack diff"><caption>${caption}</caption>
<thead><tr class="head"><th scope="col">Field</th><th scope="col">${headings.before}</th><th scope="col">${headings.after}</th></tr></thead>
<tbody>${changes.map(
    (change) =>
      html`<tr><th scope="row" data-label="Field">${pointerWords(change.pointer)}</th><td data-label="${headings.before}">${
        change.before === undefined
          ? html`<span class="hint">(none)</span>`
          : html`<del>${shown(change.before)}</del>`
      }</td><td data-label="${headings.after}">${
        change.after === undefined
          ? html`<span class="hint">(none)</span>`
          : html`<ins>${shown(change.after)}</ins>`
      }</td></tr>`,
  )}</tbody></table>`;
}
