import { sql } from 'kysely';
import { html, type Markup } from '../../../platform/web/html.js';
import type { Status } from '../../db/tables.js';
import { type FamilyKey, LIBRARY_FAMILY } from '../../families/family.js';
import { defaultStatuses, pageHref, shownStatuses, statusLabel } from '../links.js';
import { ofFamilies, type PageQuery, type PageSection, type SectionContext } from './section.js';

const PAGE_SIZE = 50;
/** Above this many classes a library's hierarchy is not drawn as one tree. */
const TREE_LIMIT = 1500;

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
 * The library's classes as a tree: each under its superclasses in this library
 * (a class with several appears under each), roots first, every level a
 * `<details>` that opens without script.
 */
async function hierarchy({
  pages,
  row,
  visible,
}: Pick<SectionContext, 'pages' | 'row' | 'visible'>): Promise<Markup> {
  const classes = await pages.refdata.db
    .selectFrom('resources')
    .select(['iri', 'name', 'status', 'body'])
    .where('library_key', '=', row.iri)
    .where('family', 'in', ['class', 'cfihos-entity'] satisfies FamilyKey[])
    .$if(visible !== undefined, (select) =>
      select.where('status', 'in', (visible ?? []) as Status[]),
    )
    .orderBy('name_normalized')
    .limit(TREE_LIMIT + 1)
    .execute();
  if (classes.length === 0) return html``;
  if (classes.length > TREE_LIMIT) {
    return html`<h2>Class hierarchy</h2><p>This library has more than ${TREE_LIMIT} classes: too many to draw as one tree. Filter the terms above, or open a class to walk its superclasses and subclasses.</p>`;
  }
  const known = new Set(classes.map((entry) => entry.iri));
  const children = new Map<string, typeof classes>();
  const roots: typeof classes = [];
  for (const entry of classes) {
    const body = JSON.parse(entry.body) as { subClassOf?: string[]; superEntity?: string };
    const parents = [
      ...(body.subClassOf ?? []),
      ...(body.superEntity ? [body.superEntity] : []),
    ].filter((iri) => known.has(iri));
    if (parents.length === 0) roots.push(entry);
    for (const parent of parents) children.set(parent, [...(children.get(parent) ?? []), entry]);
  }
  const branch = (entry: (typeof classes)[number], seen: Set<string>): Markup => {
    const below = seen.has(entry.iri) ? [] : (children.get(entry.iri) ?? []);
    const link = html`<a href="${pageHref(pages.refdata, entry.iri) ?? entry.iri}">${entry.name}</a>${
      entry.status === 'Approved'
        ? html``
        : html` <span class="status status-${entry.status}">${statusLabel(entry.status)}</span>`
    }`;
    if (below.length === 0) return html`<li>${link}</li>`;
    const next = new Set(seen).add(entry.iri);
    // The toggle is its own control beside the link (a link inside a summary is
    // two controls in one, which keyboards and screen readers cannot tell apart).
    return html`<li>${link} <details><summary>${below.length} ${below.length === 1 ? 'subclass' : 'subclasses'}<span class="visually-hidden"> of ${entry.name}</span></summary><ul>${below.map((child) => branch(child, next))}</ul></details></li>`;
  };
  return html`<h2>Class hierarchy</h2><ul id="hierarchy" class="tree">${roots.map((root) => branch(root, new Set()))}</ul>`;
}
