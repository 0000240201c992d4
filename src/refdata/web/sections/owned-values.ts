import { html, type Markup } from '../../../platform/web/html.js';
import { pageHref, statusLabel } from '../links.js';
import type { PageSection, SectionContext } from './section.js';

/** An aggregate's values (a picklist's), each with its definition, linked to its own page. */
export const ownedValues: PageSection = {
  shownFor: (family) => family.aggregate !== undefined,
  async render({ pages, row, visible }: SectionContext): Promise<Markup> {
    const values = (await pages.refdata.store.childrenOf(row.iri)).filter(
      (value) => visible === undefined || visible.includes(value.status),
    );
    return html`<h2>Values (${values.length})</h2>${
      values.length === 0
        ? html`<p>No values.</p>`
        : html`<dl id="picklist-values" class="values">${values.map((value) => {
            const description = (JSON.parse(value.body) as { description?: string }).description;
            return html`<dt><a href="${pageHref(pages.refdata, value.iri) ?? value.iri}">${value.name}</a>${value.status === row.status ? html`` : html` <span class="status status-${value.status}">${statusLabel(value.status)}</span>`}</dt><dd>${description ?? ''}</dd>`;
          })}</dl>`
    }`;
  },
};
