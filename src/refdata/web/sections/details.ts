import { html, type Markup } from '../../../platform/web/html.js';
import { scrollRegion } from '../../../platform/web/scroll-region.js';
import { isAbsoluteIri, PAGE_READING, REFERS_TO } from '../../families/common.js';
import { humanize } from '../../families/field-words.js';
import { compactIri } from '../../rdf/html.js';
import type { ResourceRow } from '../../resources/rows.js';
import type { FieldSchema } from '../authoring/form-model.js';
import { choicesOf, kindOf } from '../authoring/form-model.js';
import { makesTrees } from '../hierarchy/tree.js';
import { pageHref, statusLabel } from '../links.js';
import type { PageSection, SectionContext } from './section.js';

/**
 * Fields the page shows elsewhere: the title and definition, the reason kept
 * with the history, the labels in other languages, the breadcrumbs' superclasses.
 */
const SHOWN_APART = new Set([
  'name',
  'description',
  'changeJustification',
  'packageName',
  'translations',
  'synonyms',
]);
const SHOWN_IN_BREADCRUMBS = new Set(['subClassOf', 'superEntity', 'ontology']);

/** Every IRI a body holds, at any depth, to look them up at once. */
function irisIn(value: unknown, into: string[] = []): string[] {
  if (typeof value === 'string') {
    if (isAbsoluteIri(value)) into.push(value);
  } else if (Array.isArray(value)) {
    for (const item of value) irisIn(item, into);
  } else if (value !== null && typeof value === 'object') {
    for (const item of Object.values(value)) irisIn(item, into);
  }
  return into;
}

type Named = ReadonlyMap<string, ResourceRow>;

/** An IRI as people read it: the stored resource's name, linked, else the IRI (linked when a web address). */
function iriMarkup(pages: SectionContext['pages'], iri: string, named: Named): Markup {
  const row = named.get(iri);
  if (row)
    return html`<a href="${pageHref(pages.refdata, row.iri) ?? row.iri}">${row.name}</a>${
      row.status === 'Approved'
        ? html``
        : html` <span class="status status-${row.status}">${statusLabel(row.status)}</span>`
    }`;
  const shown = compactIri(iri);
  return /^https?:\/\//i.test(iri)
    ? html`<a href="${iri}" class="iri">${shown}</a>`
    : html`<code class="iri">${shown}</code>`;
}

/** A value by its schema: names for IRIs, Yes/No, a table for a list of groups. */
function valueMarkup(
  pages: SectionContext['pages'],
  schema: FieldSchema,
  value: unknown,
  named: Named,
  label = schema.title ?? 'Table',
): Markup {
  if (value === undefined || value === null) return html``;
  const kind = kindOf(schema);
  if (Array.isArray(value)) {
    const items = schema.items ?? {};
    if (kindOf(items) === 'group') return groupTable(pages, items, value, named, label);
    return html`<ul class="inline-list">${value.map((item) => html`<li>${valueMarkup(pages, items, item, named)}</li>`)}</ul>`;
  }
  if (kind === 'group' && typeof value === 'object') {
    return html`${Object.entries(schema.properties ?? {})
      .filter(([name]) => (value as Record<string, unknown>)[name] !== undefined)
      .map(
        ([name, inner], index) =>
          html`${index > 0 ? ', ' : ''}${inner.title ?? humanize(name)} ${valueMarkup(pages, inner, (value as Record<string, unknown>)[name], named)}`,
      )}`;
  }
  if (typeof value === 'boolean') return html`${value ? 'Yes' : 'No'}`;
  if (typeof value === 'string' && (schema[REFERS_TO] || schema.format === 'link-iri'))
    return iriMarkup(pages, value, named);
  // A choice among IRIs (an IMF aspect) reads as its short name.
  if (typeof value === 'string' && kind === 'choice' && choicesOf(schema).every(isAbsoluteIri))
    return iriMarkup(pages, value, named);
  return html`${String(value)}`;
}

/** A list of groups (related terms, connection points) as a table, a column per field. */
function groupTable(
  pages: SectionContext['pages'],
  schema: FieldSchema,
  rows: unknown[],
  named: Named,
  label: string,
): Markup {
  const columns = Object.entries(schema.properties ?? {}).filter(
    ([name]) => !rows.every((row) => (row as Record<string, unknown>)[name] === undefined),
  );
  return scrollRegion(
    label,
    html`<table class="details-table"><thead><tr>${columns.map(([name, inner]) => html`<th scope="col">${inner.title ?? humanize(name)}</th>`)}</tr></thead><tbody>${rows.map(
      (row) =>
        html`<tr>${columns.map(([name, inner]) => html`<td>${valueMarkup(pages, inner, (row as Record<string, unknown>)[name], named)}</td>`)}</tr>`,
    )}</tbody></table>`,
  );
}

/**
 * What a resource says, field by field, from its family's schema: each field's
 * label, and its value in words (a referenced resource by its name, linked;
 * Yes or No; a list of groups as a table). Fields another section shows
 * (`x-page`, a drawing, an aggregate's values) are left to it.
 */
export const details: PageSection = {
  async render({ pages, body, row, visible }: SectionContext): Promise<Markup> {
    const family = pages.refdata.families.byKey(row.family);
    if (!family) return html``;
    const breadcrumbs = makesTrees(family);
    const fields = Object.entries(family.schema.properties as Record<string, FieldSchema>).filter(
      ([name, schema]) =>
        body[name] !== undefined &&
        !SHOWN_APART.has(name) &&
        !(breadcrumbs && SHOWN_IN_BREADCRUMBS.has(name)) &&
        name !== family.aggregate?.field &&
        schema[PAGE_READING] === undefined &&
        schema['x-form'] === undefined &&
        !(Array.isArray(body[name]) && (body[name] as unknown[]).length === 0),
    );
    if (fields.length === 0) return html``;
    const named = await pages.refdata.store.byIri(
      irisIn(fields.map(([name]) => body[name])),
      visible,
    );
    return html`<h2 id="details-heading">Details</h2><dl id="details" class="details">${fields.map(
      ([name, schema]) =>
        html`<div><dt>${schema.title ?? humanize(name)}</dt><dd data-field="${name}">${valueMarkup(pages, schema, body[name], named, schema.title ?? humanize(name))}</dd></div>`,
    )}</dl>`;
  },
};
