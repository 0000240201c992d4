import { html, type Markup } from '../../../platform/web/html.js';
import { fieldWords } from '../../families/field-words.js';
import type { Change } from '../../resources/field-changes.js';

/** "/relatedTerms/0/relationType" as "Related terms › 1 › Relation type". */
export function pointerWords(
  pointer: string,
  schema: Parameters<typeof fieldWords>[0] = {},
): string {
  // Without the family's schema, each field's name in words; with it, its title.
  return fieldWords(schema, pointer);
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
