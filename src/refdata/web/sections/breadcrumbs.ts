import { html, type Markup } from '../../../platform/web/html.js';
import { type TrailStep, trailOf } from '../../resources/hierarchy.js';
import { makesTrees } from '../hierarchy/tree.js';
import { nameIn } from '../languages.js';
import { pageHref } from '../links.js';
import type { PageSection, SectionContext } from './section.js';

/**
 * A class's place in its hierarchy, at the top of its page: its library, then
 * its superclasses from the most general down (the first one each names), then
 * itself; and the other superclasses it has, as "also a kind of".
 */
export const breadcrumbs: PageSection = {
  placement: 'top',
  shownFor: makesTrees,
  async render({ pages, row, body, visible, language }: SectionContext): Promise<Markup> {
    const { refdata } = pages;
    const { trail, others } = await trailOf(refdata.db, body, visible);
    const library =
      row.library_key && row.library_key !== row.iri
        ? await refdata.store.findByIri(row.library_key)
        : undefined;
    // The trail follows the language the page is shown in, where a step has a
    // label in it; a name in another language than the page's says which.
    const named = (resource: { name: string; body: Record<string, unknown>; language: string }) => {
      const shown = nameIn(resource, language);
      return shown.language.toLowerCase().startsWith('en')
        ? html`${shown.name}`
        : html`<span lang="${shown.language}">${shown.name}</span>`;
    };
    const step = (entry: TrailStep) =>
      entry.stored
        ? html`<a href="${pageHref(refdata, entry.iri) ?? entry.iri}">${named(entry)}</a>`
        : /^https?:\/\//i.test(entry.iri)
          ? html`<a href="${entry.iri}" class="iri">${entry.iri}</a>`
          : html`<code class="iri">${entry.iri}</code>`;
    const shownLibrary =
      library && (visible === undefined || visible.includes(library.status)) ? library : undefined;
    return html`<nav aria-label="Hierarchy" class="breadcrumbs" id="breadcrumbs"><ol>${
      shownLibrary
        ? html`<li><a href="${pageHref(refdata, shownLibrary.iri) ?? shownLibrary.iri}">${named({ ...shownLibrary, body: JSON.parse(shownLibrary.body) as Record<string, unknown> })}</a></li>`
        : html``
    }${trail.map((entry) => html`<li>${step(entry)}</li>`)}<li aria-current="page">${named({ ...row, body })}</li></ol>${
      others.length > 0
        ? html`<p class="hint" id="also-a-kind-of">Also a kind of ${others.map((entry, index) => html`${index > 0 ? ', ' : ''}${step(entry)}`)}.</p>`
        : html``
    }</nav>`;
  },
};
