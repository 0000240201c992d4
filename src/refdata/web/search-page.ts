import { Type } from '@sinclair/typebox';
import { HttpError } from '../../platform/http/problem.js';
import type { HttpApp } from '../../platform/http/server.js';
import { html, type Markup } from '../../platform/web/html.js';
import { STATUSES, type Status } from '../db/tables.js';
import type { FamilyRegistry } from '../families/registry.js';
import { problem } from '../problem-codes.js';
import { RETRY_AFTER_SECONDS, searchFilters } from '../search/routes.js';
import { decodeCursor, encodeCursor } from '../search/search.js';
import { languageName } from './languages.js';
import { pageHref, shownStatuses, statusLabel, visibleStatuses } from './links.js';
import type { Pages } from './pages.js';

const PAGE_SIZE = 20;
/** How much of a description a result shows. */
const SNIPPET_LENGTH = 220;

const searchPageQuery = (families: FamilyRegistry) =>
  Type.Object(
    // An empty box is a search for everything, so `q` may be empty here.
    { q: Type.Optional(Type.String({ maxLength: 200 })), ...searchFilters(families) },
    { additionalProperties: false },
  );

interface SearchQuery {
  q?: string;
  family?: string[];
  library?: string[];
  status?: Status[];
  language?: string[];
  cursor?: string;
}

function snippet(description: string | undefined): string | undefined {
  if (!description) return undefined;
  return description.length > SNIPPET_LENGTH
    ? `${description.slice(0, SNIPPET_LENGTH - 1).trimEnd()}…`
    : description;
}

/** This search's address with one more (or one less) of a filter's values, or another page. */
function addressWith(query: SearchQuery, change: Partial<SearchQuery>): string {
  const next = { ...query, ...change };
  const params = new URLSearchParams();
  if (next.q) params.set('q', next.q);
  for (const name of ['family', 'library', 'status', 'language'] as const) {
    for (const value of next[name] ?? []) params.append(name, value);
  }
  if (next.cursor) params.set('cursor', next.cursor);
  const text = params.toString();
  return text ? `/search?${text}` : '/search';
}

/** Languages offered to filter by: at most this many, those with the most resources. */
const LANGUAGES_OFFERED = 30;

/**
 * The languages resources have labels in, to keep to those with a label in
 * the ones ticked; shown once there is more than one. Each says how many of
 * the resources the search finds, and the reader may see, have labels in it.
 */
function languageChoice(chosen: readonly string[], counts: ReadonlyMap<string, number>): Markup {
  const ticked = new Set(chosen.map((tag) => tag.toLowerCase()));
  const offered = [...counts]
    .sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]))
    .slice(0, LANGUAGES_OFFERED)
    .filter(([tag]) => !tag.includes('-') || ticked.has(tag));
  for (const tag of ticked) if (!counts.has(tag)) offered.push([tag, 0]);
  if (offered.length < 2 && ticked.size === 0) return html``;
  return html`<fieldset class="facet" id="language-facet"><legend>Labels in</legend>${offered.map(
    ([tag, count]) =>
      html`<div><label class="inline"><input type="checkbox" name="language" value="${tag}"${ticked.has(tag) ? html` checked` : html``}> ${languageName(tag)} <span class="count">(${count})</span></label></div>`,
  )}</fieldset>`;
}

/**
 * `/search`: the words, filters by family, library and status with how many
 * results each would give, results with label, family, library, status and the
 * start of the definition, a page at a time. Everything is in the address, so a
 * search can be shared. Visitors who are not signed in never see Drafts.
 */
export function registerSearchPage(app: HttpApp, pages: Pages): void {
  const { refdata } = pages;
  app.get(
    '/search',
    { schema: { querystring: searchPageQuery(pages.refdata.families) } },
    async (request, reply) => {
      const query = request.query;
      const words = query.q?.trim() ? query.q.trim() : undefined;
      const signedIn = pages.viewerOf(request) !== undefined;
      const visible = visibleStatuses(signedIn);
      const chosenStatuses = query.status ?? [];
      // Visitors who choose no status see all they may but Rejected resources;
      // the status filter, ticked to match, is how they include them.
      const statuses = [...(shownStatuses(signedIn, chosenStatuses) ?? [])];
      if (visible && chosenStatuses.length > 0 && statuses.length === 0) {
        throw new HttpError(
          problem(400, 'validation', 'Drafts are shown to people who are signed in.'),
        );
      }
      const after = query.cursor === undefined ? undefined : decodeCursor(query.cursor);
      if (query.cursor !== undefined && !after) {
        throw new HttpError(
          problem(400, 'validation', 'This page of results is not one this search gave out.'),
        );
      }
      const title = words ? `Search: ${words}` : 'Search';
      if (!refdata.search.available) {
        throw new HttpError(
          problem(
            503,
            'search-unavailable',
            'Search is being built just now. Try again in a minute; libraries can still be browsed.',
            { headers: { 'retry-after': String(RETRY_AFTER_SECONDS) } },
          ),
        );
      }
      const filters = {
        q: words,
        families: query.family ?? [],
        libraries: query.library ?? [],
        statuses,
        languages: query.language ?? [],
      };
      const [result, libraries] = await Promise.all([
        refdata.search.search({ ...filters, countLanguages: true, limit: PAGE_SIZE, after }),
        refdata.store.libraries(visible),
      ]);
      const libraryNames = new Map(libraries.map((library) => [library.iri, library.name]));

      const facet = (
        name: 'family' | 'library' | 'status',
        legend: string,
        options: { value: string; label: string }[],
        counts: Map<string, number>,
      ): Markup => {
        const chosen = new Set<string>(
          name === 'status' && chosenStatuses.length === 0 ? statuses : (query[name] ?? []),
        );
        const shown = options.filter(
          (option) => chosen.has(option.value) || counts.has(option.value),
        );
        if (shown.length === 0) return html``;
        return html`<fieldset class="facet"><legend>${legend}</legend>${shown.map(
          (option) =>
            html`<div><label class="inline"><input type="checkbox" name="${name}" value="${option.value}"${chosen.has(option.value) ? html` checked` : html``}> ${option.label} <span class="count">(${counts.get(option.value) ?? 0})</span></label></div>`,
        )}</fieldset>`;
      };
      const familyOptions = refdata.families.keys.map((key) => ({
        value: key,
        label: refdata.families.labelOf(key),
      }));
      const statusOptions = (visible ?? STATUSES).map((status) => ({
        value: status,
        label: statusLabel(status),
      }));
      const libraryOptions = libraries.map((library) => ({
        value: library.iri,
        label: library.name,
      }));

      const hits = result.hits.map(({ row, library }) => {
        const description = row.description;
        const libraryName = library ? (libraryNames.get(library.iri) ?? library.label) : undefined;
        return html`<li><a href="${pageHref(refdata, row.iri) ?? row.iri}"><strong>${row.name}</strong></a>
<span class="status status-${row.status}">${statusLabel(row.status)}</span>
<p class="hint">${refdata.families.labelOf(row.family)}${libraryName ? html` in ${libraryName}` : html``}</p>
${snippet(description) ? html`<p>${snippet(description)}</p>` : html``}</li>`;
      });
      return pages.answer(
        request,
        reply,
        200,
        { title, wide: true },
        html`<form class="search-page" method="get" action="/search" role="search" aria-label="Search with filters">
  <label for="q">Words to find</label>
  <div class="search-row"><input type="search" id="q" name="q" value="${query.q ?? ''}" maxlength="200"><button type="submit">Search</button></div>
  <div class="facets">
    ${facet('family', 'Family', familyOptions, result.facets.family)}
    ${facet('status', 'Status', statusOptions, result.facets.status)}
    ${facet('library', 'Library', libraryOptions, result.facets.library)}
    ${languageChoice(query.language ?? [], result.languages)}
  </div>
  ${visible && chosenStatuses.length === 0 && (result.facets.status.get('Rejected') ?? 0) > 0 ? html`<p class="hint" id="rejected-hint">Rejected resources are left out: tick Rejected under Status to include them.</p>` : html``}
  <p><button type="submit">Apply filters</button> <a href="${addressWith({}, { q: query.q })}">Clear filters</a></p>
</form>
<h2 id="result-count">${result.total} ${result.total === 1 ? 'result' : 'results'}</h2>
${result.hits.length === 0 ? html`<p>Nothing matches. Try fewer or shorter words, or clear the filters.</p>` : html`<ol id="results" class="cards">${hits}</ol>`}
${
  result.next
    ? html`<p><a id="next-page" rel="next" href="${addressWith(query, { cursor: encodeCursor(result.next) })}">Next ${PAGE_SIZE} results</a></p>`
    : html``
}`,
      );
    },
  );
}
