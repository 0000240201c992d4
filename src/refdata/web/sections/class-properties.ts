import { html, type Markup } from '../../../platform/web/html.js';
import { scrollRegion } from '../../../platform/web/scroll-region.js';
import type { Status } from '../../db/tables.js';
import { generalizationsIn, PAGE_READING, REFERS_TO } from '../../families/common.js';
import type { Family } from '../../families/family.js';
import { compactIri } from '../../rdf/html.js';
import type { ResourceRow } from '../../resources/rows.js';
import type { FieldSchema } from '../authoring/form-model.js';
import { pageHref, statusLabel } from '../links.js';
import type { Pages } from '../pages.js';
import type { PageSection, SectionContext } from './section.js';

/** A superclass chain longer than this is taken as broken data and not followed further. */
const MAX_ANCESTORS = 100;
/** A picklist's values shown inline; a longer one is one click away, on its page. */
const VALUES_INLINE = 30;

/** The field a family's page reads as its properties table, and the item field naming the property. */
function propertiesField(family: Family): { field: string; propertyKey: string } | undefined {
  for (const [field, schema] of Object.entries(
    family.schema.properties as Record<string, FieldSchema>,
  )) {
    if (schema[PAGE_READING] !== 'properties') continue;
    const item = Object.entries(schema.items?.properties ?? {}).find(
      ([, inner]) => inner[REFERS_TO] !== undefined,
    );
    if (item) return { field, propertyKey: item[0] };
  }
  return undefined;
}

interface Listed {
  propertyIri: string;
  minCardinality?: number;
  maxCardinality?: number;
  /** The class it is stated on: this one, or the superclass it is inherited from. */
  from: { iri: string; name: string } | undefined;
}

/**
 * The properties a class has, nearest first, each once (a nearer class's
 * cardinalities win): its own, then its superclasses', breadth first.
 */
async function propertiesOf(
  pages: Pages,
  row: ResourceRow,
  body: Record<string, unknown>,
  reading: { field: string; propertyKey: string },
): Promise<Listed[]> {
  const listed: Listed[] = [];
  const seenProperties = new Set<string>();
  const seenClasses = new Set<string>([row.iri]);
  let level: { iri: string; name: string; body: Record<string, unknown>; own: boolean }[] = [
    { iri: row.iri, name: row.name, body, own: true },
  ];
  while (level.length > 0 && seenClasses.size < MAX_ANCESTORS) {
    const next: typeof level = [];
    for (const entry of level) {
      const references = (entry.body[reading.field] ?? []) as Record<string, unknown>[];
      for (const reference of references) {
        const propertyIri = reference[reading.propertyKey];
        if (typeof propertyIri !== 'string' || seenProperties.has(propertyIri)) continue;
        seenProperties.add(propertyIri);
        listed.push({
          propertyIri,
          minCardinality: reference.minCardinality as number | undefined,
          maxCardinality: reference.maxCardinality as number | undefined,
          from: entry.own ? undefined : { iri: entry.iri, name: entry.name },
        });
      }
      const parents = generalizationsIn(entry.body).filter((iri) => !seenClasses.has(iri));
      for (const iri of parents) seenClasses.add(iri);
      const stored = await pages.refdata.store.byIri(parents, undefined);
      for (const iri of parents) {
        const parent = stored.get(iri);
        if (parent)
          next.push({
            iri,
            name: parent.name,
            body: JSON.parse(parent.body) as Record<string, unknown>,
            own: false,
          });
      }
    }
    level = next;
  }
  return listed;
}

const VALUE_KINDS: Record<string, string> = {
  number: 'Number',
  controlledText: 'Picklist',
  freeText: 'Text',
  boolean: 'Yes or no',
};

function link(pages: Pages, row: { iri: string; name: string; status?: Status }): Markup {
  return html`<a href="${pageHref(pages.refdata, row.iri) ?? row.iri}">${row.name}</a>${
    row.status === undefined || row.status === 'Approved'
      ? html``
      : html` <span class="status status-${row.status}">${statusLabel(row.status)}</span>`
  }`;
}

/**
 * A class's properties as a table: each property by name (linked), its value
 * kind, its dimension or its picklist (with the picklist's values a click
 * away, inline), how many values a thing of the class has, and for inherited
 * ones the superclass they come from.
 */
export const classProperties: PageSection = {
  shownFor: (family) => propertiesField(family) !== undefined,
  async render({ pages, row, body, visible }: SectionContext): Promise<Markup> {
    const family = pages.refdata.families.byKey(row.family);
    const reading = family ? propertiesField(family) : undefined;
    if (!reading) return html``;
    const listed = await propertiesOf(pages, row, body, reading);
    if (listed.length === 0) return html``;
    const properties = await pages.refdata.store.byIri(
      listed.map((entry) => entry.propertyIri),
      visible,
    );
    const bodies = new Map(
      [...properties].map(([iri, property]) => [
        iri,
        JSON.parse(property.body) as { types?: string[]; range?: string },
      ]),
    );
    const ranges = await pages.refdata.store.byIri(
      [...bodies.values()].flatMap((property) => (property.range ? [property.range] : [])),
      visible,
    );
    const picklists = [...ranges.values()].filter((range) => range.family === 'picklist');
    const values =
      picklists.length === 0
        ? []
        : await pages.refdata.db
            .selectFrom('resources')
            .select(['iri', 'name', 'status', 'parent_iri'])
            .where(
              'parent_iri',
              'in',
              picklists.map((picklist) => picklist.iri),
            )
            .$if(visible !== undefined, (select) => select.where('status', 'in', visible ?? []))
            .orderBy('name_normalized')
            .execute();
    const valuesOf = new Map<string, typeof values>();
    for (const value of values) {
      const list = valuesOf.get(value.parent_iri ?? '') ?? [];
      list.push(value);
      valuesOf.set(value.parent_iri ?? '', list);
    }
    const rangeCell = (range: string | undefined) => {
      if (!range) return html``;
      const stored = ranges.get(range);
      // A datatype (xsd:string) is named as the property's own page names it.
      if (!stored) return html`<code class="iri" title="${range}">${compactIri(range)}</code>`;
      const listedValues = valuesOf.get(stored.iri);
      if (stored.family !== 'picklist' || !listedValues || listedValues.length === 0)
        return link(pages, stored);
      return html`${link(pages, stored)}<details class="picklist-values"><summary>${listedValues.length} ${listedValues.length === 1 ? 'value' : 'values'}<span class="visually-hidden"> of ${stored.name}</span></summary><ul>${listedValues
        .slice(0, VALUES_INLINE)
        .map((value) => html`<li>${link(pages, value)}</li>`)}${
        listedValues.length > VALUES_INLINE
          ? html`<li><a href="${pageHref(pages.refdata, stored.iri) ?? stored.iri}#picklist-values">All ${listedValues.length} values</a></li>`
          : html``
      }</ul></details>`;
    };
    const inherited = listed.filter((entry) => entry.from !== undefined).length;
    return html`<h2 id="properties-heading">Properties (${listed.length})</h2>${
      inherited > 0
        ? html`<p class="hint">${listed.length - inherited === 0 ? 'None of its own' : `${listed.length - inherited} of its own`}, ${inherited} inherited from its superclasses.</p>`
        : html``
    }${scrollRegion(
      'Properties',
      html`<table id="class-properties" class="details-table stacked"><thead><tr><th scope="col">Property</th><th scope="col">Value</th><th scope="col">Dimension or picklist</th><th scope="col">How many</th><th scope="col">From</th></tr></thead><tbody>${listed.map(
        (entry) => {
          const property = properties.get(entry.propertyIri);
          const propertyBody = bodies.get(entry.propertyIri);
          const kind = propertyBody?.types?.[0];
          return html`<tr><th scope="row">${property ? link(pages, property) : html`<code class="iri">${entry.propertyIri}</code>`}</th><td data-label="Value">${kind ? (VALUE_KINDS[kind] ?? kind) : ''}</td><td data-label="Dimension or picklist">${rangeCell(propertyBody?.range)}</td><td data-label="How many">${
            entry.minCardinality === undefined
              ? ''
              : `${entry.minCardinality}..${entry.maxCardinality ?? '*'}`
          }</td><td data-label="From">${entry.from ? html`<a href="${pageHref(pages.refdata, entry.from.iri) ?? entry.from.iri}">${entry.from.name}</a>` : 'This class'}</td></tr>`;
        },
      )}</tbody></table>`,
    )}`;
  },
};
