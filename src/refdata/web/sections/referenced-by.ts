import { html, type Markup } from '../../../platform/web/html.js';
import type { Status } from '../../db/tables.js';
import { pageHref, statusLabel } from '../links.js';
import type { PageSection, SectionContext } from './section.js';

/** Resources listed per kind of link; more are left for search. */
const LISTED = 100;

/** How a link from another resource reads from this one's side. */
const INVERSE: Record<string, string> = {
  subClassOf: 'Subclasses',
  superEntity: 'More specific classes',
  propertyReferences: 'Classes that use this property',
  attributeReferences: 'Types that have this attribute',
  terminalReferences: 'Block types that have this terminal',
  hasPartBlockReferences: 'Block types that have this one as a part',
  uom: 'Attribute types measured in this unit',
  dimension: 'Units of this dimension',
  range: 'Properties whose values are these',
  replaces: 'Replaced by',
  upperOntologies: 'Libraries that import this one',
  classification: 'Types classified by this',
  referenceTerms: 'Types that refer to this term',
  concerns: 'Attribute types about this',
  predicate: 'Attribute types that give a value for this property',
};

/** Links that other sections show (a library's terms, a picklist's values, a class's subclasses). */
const SHOWN_ELSEWHERE = new Set(['ontology', 'picklist', 'subClassOf', 'superEntity']);

/** The field names of `body` whose value is, or holds, `iri`. */
function fieldsReferencing(body: Record<string, unknown>, iri: string): string[] {
  const holds = (value: unknown): boolean =>
    value === iri ||
    (Array.isArray(value) && value.some(holds)) ||
    (value !== null &&
      typeof value === 'object' &&
      !Array.isArray(value) &&
      Object.values(value).some((inner) => inner === iri));
  return Object.entries(body)
    .filter(([name, value]) => !SHOWN_ELSEWHERE.has(name) && holds(value))
    .map(([name]) => name);
}

/**
 * Every relation in the other direction: the resources whose fields name this
 * one (subclasses, the classes that use a property, the units of a dimension,
 * what replaces it), grouped by the kind of link.
 */
export const referencedBy: PageSection = {
  async render({ pages, row, visible }: SectionContext): Promise<Markup> {
    // A library's own terms and a picklist's values name it too; their sections
    // list them, and leaving them out here keeps them from crowding out the rest
    // (the libraries that import this one, say).
    const candidates = await pages.refdata.store.referencing(
      row.iri,
      LISTED * 4,
      visible as Status[] | undefined,
    );
    const groups = new Map<string, typeof candidates>();
    for (const candidate of candidates) {
      for (const field of fieldsReferencing(
        JSON.parse(candidate.body) as Record<string, unknown>,
        row.iri,
      )) {
        const list = groups.get(field) ?? [];
        if (list.length < LISTED) list.push(candidate);
        groups.set(field, list);
      }
    }
    if (groups.size === 0) return html``;
    return html`<h2>Linked from</h2>${[...groups].map(
      ([field, list]) =>
        html`<h3>${INVERSE[field] ?? `Resources that name it in ${field}`} (${list.length})</h3><ul class="referenced-by" data-field="${field}">${list.map(
          (entry) =>
            html`<li><a href="${pageHref(pages.refdata, entry.iri) ?? entry.iri}">${entry.name}</a> <span class="hint">${pages.refdata.families.labelOf(entry.family)}</span>${entry.status === 'Approved' ? html`` : html` <span class="status status-${entry.status}">${statusLabel(entry.status)}</span>`}</li>`,
        )}</ul>`,
    )}`;
  },
};
