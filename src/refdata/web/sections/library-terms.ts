import { sql } from 'kysely';
import { html, type Markup } from '../../../platform/web/html.js';
import type { Status } from '../../db/tables.js';
import { LIBRARY_FAMILY } from '../../families/family.js';
import { rootsOf } from '../../resources/hierarchy.js';
import { makesTrees, treeLevel } from '../hierarchy/tree.js';
import { defaultStatuses, pageHref, shownStatuses, statusLabel } from '../links.js';
import { ofFamilies, type PageQuery, type PageSection, type SectionContext } from './section.js';

const PAGE_SIZE = 50;

function address(path: string, query: PageQuery): string {
  const params = new URLSearchParams();
  for (const family of query.family ?? []) params.append('family', family);
  for (const status of query.status ?? []) params.append('status', status);
  if (query.page && query.page > 1) params.set('page', String(query.page));
  const text = params.toString();
  return `${path}${text ? `?${text}` : ''}#terms`;
}

/** A library's terms, paged and filtered, and its class hierarchy as a tree to open. */
export const libraryTerms: PageSection = {
  shownFor: ofFamilies(LIBRARY_FAMILY),
  async render({ pages, request, row, visible, query }: SectionContext): Promise<Markup> {
    const { refdata } = pages;
    const page = query.page ?? 1;
    const signedIn = visible === undefined;
    // Visitors who choose no status are not shown Rejected terms; the Status
    // filter, ticked to match, lists them with their count to include them.
    const shown = shownStatuses(signedIn, (query.status ?? []) as Status[]);
    const base = refdata.db
      .selectFrom('resources as r')
      .where('r.library_key', '=', row.iri)
      .where('r.family', '!=', LIBRARY_FAMILY)
      .$if(visible !== undefined, (select) =>
        select.where('r.status', 'in', (visible ?? []) as Status[]),
      );
    const counts = await base
      .select(['r.family', 'r.status', sql<number>`count(*)`.as('n')])
      .groupBy(['r.family', 'r.status'])
      .execute();
    const filtered = base
      .$if((query.family ?? []).length > 0, (select) =>
        select.where('r.family', 'in', query.family ?? []),
      )
      .$if(shown !== undefined, (select) =>
        shown?.length ? select.where('r.status', 'in', shown) : select.where(sql<boolean>`1 = 0`),
      );
    const total = Number(
      (await filtered.select(sql<number>`count(*)`.as('n')).executeTakeFirst())?.n ?? 0,
    );
    const terms = await filtered
      .select(['r.iri', 'r.name', 'r.family', 'r.status'])
      .orderBy('r.name_normalized')
      .orderBy('r.id')
      .limit(PAGE_SIZE)
      .offset((page - 1) * PAGE_SIZE)
      .execute();
    const byFamily = new Map<string, number>();
    const byStatus = new Map<string, number>();
    for (const entry of counts) {
      byFamily.set(entry.family, (byFamily.get(entry.family) ?? 0) + Number(entry.n));
      byStatus.set(entry.status, (byStatus.get(entry.status) ?? 0) + Number(entry.n));
    }
    const path = request.url.split('?')[0] ?? '/';
    const ticked = { family: query.family ?? [], status: (shown ?? []) as readonly string[] };
    const chosen = (name: 'family' | 'status', value: string) =>
      ticked[name].includes(value) ? html` checked` : html``;
    const pagesCount = Math.max(1, Math.ceil(total / PAGE_SIZE));
    return html`<h2 id="terms">Terms</h2>
<form method="get" action="${path}#terms" class="facets">
  <fieldset class="facet"><legend>Family</legend>${[...byFamily].map(
    ([family, n]) =>
      html`<div><label class="inline"><input type="checkbox" name="family" value="${family}"${chosen('family', family)}> ${refdata.families.labelOf(family)} <span class="count">(${n})</span></label></div>`,
  )}</fieldset>
  <fieldset class="facet"><legend>Status</legend>${[...byStatus].map(
    ([status, n]) =>
      html`<div><label class="inline"><input type="checkbox" name="status" value="${status}"${chosen('status', status)}> ${statusLabel(status)} <span class="count">(${n})</span></label></div>`,
  )}</fieldset>
  ${!signedIn && (query.status ?? []).length === 0 && byStatus.has('Rejected') ? html`<p class="hint" id="rejected-hint">Rejected terms are left out: tick Rejected to include them.</p>` : html``}
  <p><button type="submit">Show</button></p>
</form>
<p id="term-count">${total} ${total === 1 ? 'term' : 'terms'}${pagesCount > 1 ? html`, page ${page} of ${pagesCount}` : html``}</p>
<ul id="term-list" class="cards">${terms.map(
      (term) =>
        html`<li><a href="${pageHref(refdata, term.iri) ?? term.iri}">${term.name}</a> <span class="status status-${term.status}">${statusLabel(term.status)}</span> <span class="hint">${refdata.families.labelOf(term.family)}</span></li>`,
    )}</ul>
<nav aria-label="Pages of terms" class="inline-list">${
      page > 1
        ? html`<a rel="prev" href="${address(path, { ...query, page: page - 1 })}">Previous ${PAGE_SIZE}</a>`
        : html``
    }${page < pagesCount ? html`<a rel="next" href="${address(path, { ...query, page: page + 1 })}">Next ${PAGE_SIZE}</a>` : html``}</nav>
${await hierarchy({ pages, row, visible: defaultStatuses(signedIn) })}`;
  },
};

/**
 * The library's classes as a tree: its top classes (none of whose superclasses
 * is in the library), each opening to its subclasses a level at a time
 * (web/hierarchy/tree.ts), so a library of thousands of classes is drawn as
 * quickly as one of ten.
 */
async function hierarchy({
  pages,
  row,
  visible,
}: Pick<SectionContext, 'pages' | 'row' | 'visible'>): Promise<Markup> {
  const families = pages.refdata.families.all.filter(makesTrees).map((family) => family.key);
  const roots = await rootsOf(pages.refdata.db, row.iri, families, visible);
  if (roots.total === 0) return html``;
  return html`<h2 id="class-hierarchy">Class hierarchy</h2><p class="hint">The library's top classes; open one to see its subclasses.</p>${treeLevel(pages, roots, 'hierarchy')}`;
}
