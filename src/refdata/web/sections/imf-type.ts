import { html, type Markup } from '../../../platform/web/html.js';
import type { EntityReference } from '../../families/imf-common.js';
import type { ResourceRow } from '../../resources/rows.js';
import { pageHref, statusLabel } from '../links.js';
import { localName } from './resources-by-iri.js';
import { ofFamilies, type PageSection, type SectionContext } from './section.js';

function cardinality(reference: EntityReference): string {
  return `${reference.minCardinality}..${reference.maxCardinality ?? '*'}`;
}

const QUALIFIERS = [
  'rangeQualifier',
  'regularityQualifier',
  'provenanceQualifier',
  'scopeQualifier',
] as const;

/**
 * An IMF block or terminal type drawn as what it is: its terminals (with their
 * direction), its attributes (with unit, qualifiers and cardinality) and its
 * parts, each linked, rather than as blank-node statements.
 */
export const imfType: PageSection = {
  shownFor: ofFamilies('imf-block', 'imf-terminal'),
  async render({ pages, body, visible }: SectionContext): Promise<Markup> {
    const { refdata } = pages;
    const terminals = (body.terminalReferences ?? []) as EntityReference[];
    const attributes = (body.attributeReferences ?? []) as EntityReference[];
    const parts = (body.hasPartBlockReferences ?? []) as EntityReference[];
    const referenced = await refdata.store.byIri(
      [...terminals, ...attributes, ...parts].map((reference) => reference.entityUri),
      visible,
    );
    const attributeDetails = (row: ResourceRow) => {
      const detail = JSON.parse(row.body) as Record<string, string | undefined>;
      const unit = detail.uom
        ? (referenced.get(detail.uom)?.name ?? localName(detail.uom))
        : undefined;
      const qualifiers = QUALIFIERS.flatMap((name) =>
        detail[name] ? [localName(detail[name] ?? '')] : [],
      );
      return html`${unit ? html`, unit <strong>${unit}</strong>` : html``}${qualifiers.length > 0 ? html`, ${qualifiers.join(', ')}` : html``}`;
    };
    const item = (reference: EntityReference, extra: (row: ResourceRow) => Markup) => {
      const row = referenced.get(reference.entityUri);
      const name = row
        ? html`<a href="${pageHref(refdata, row.iri) ?? row.iri}">${row.name}</a>${row.status === 'Approved' ? html`` : html` <span class="status status-${row.status}">${statusLabel(row.status)}</span>`}`
        : html`<code class="iri">${reference.entityUri}</code>`;
      return html`<li>${name} <span class="badge" title="cardinality">${cardinality(reference)}</span>${row ? extra(row) : html``}</li>`;
    };
    const direction = (row: ResourceRow) => {
      const value = (JSON.parse(row.body) as { direction?: string }).direction;
      return value
        ? html` <span class="direction">${value === 'input' ? '→ in' : 'out →'}</span>`
        : html``;
    };
    const list = (
      id: string,
      title: string,
      references: EntityReference[],
      extra: (row: ResourceRow) => Markup,
    ) =>
      references.length === 0
        ? html``
        : html`<h3>${title} (${references.length})</h3><ul id="${id}">${references.map((reference) => item(reference, extra))}</ul>`;
    if (terminals.length + attributes.length + parts.length === 0) return html``;
    return html`<h2>Structure</h2>
${list('imf-terminals', 'Terminals', terminals, direction)}
${list('imf-attributes', 'Attributes', attributes, attributeDetails)}
${list('imf-parts', 'Parts', parts, () => html``)}`;
  },
};
