import type { HttpApp } from '../../platform/http/server.js';
import { html, type Markup, timeTag } from '../../platform/web/html.js';
import type { RevisionsTable, Status } from '../db/tables.js';
import { PUBLISHED_STATUSES } from '../lifecycle/views.js';
import { releasePath } from '../releases/versions.js';

type RevisionAction = RevisionsTable['action'];

import { partValue } from '../../platform/http/request-parts.js';
import { firstRunSection } from './first-run.js';
import { pageHref, statusLabel, visibleStatuses } from './links.js';
import type { Pages } from './pages.js';

/** A revision's action as people say it. */
export const ACTION_WORDS: Record<RevisionAction, string> = {
  create: 'created',
  update: 'updated',
  submit: 'submitted for review',
  approve: 'approved',
  reject: 'rejected',
  'request-changes': 'sent back with changes requested',
  deprecate: 'deprecated',
  remove: 'removed',
};

/** Changes listed on the home page. */
const RECENT = 10;

/** A library's latest release after its status, or that a published one is not released yet. */
function libraryStanding(
  refdata: Pages['refdata'],
  library: { status: Status },
  latest: { iri: string; version: string } | undefined,
): Markup {
  if (latest)
    return html` latest release <a href="${releasePath(refdata, latest.iri)}">${latest.version}</a>`;
  return PUBLISHED_STATUSES.includes(library.status) ? html` not yet released` : html``;
}

/**
 * `/`: what this service holds: each library with how many terms it has in
 * each status, the search box (in the header, and here as the page's first
 * control), and the most recent changes.
 */
export function registerHomePage(app: HttpApp, pages: Pages): void {
  const { refdata } = pages;
  app.get('/', async (request, reply) => {
    const statuses = visibleStatuses(pages.viewerOf(request) !== undefined);
    const libraries = await refdata.store.libraries(statuses);
    const counts = await refdata.store.countsByLibraryAndStatus(statuses);
    const releases = await refdata.releases.latestOfEach();
    const byLibrary = new Map<string, { status: Status; n: number }[]>();
    for (const row of counts) {
      const list = byLibrary.get(row.library_key) ?? [];
      list.push({ status: row.status, n: row.n });
      byLibrary.set(row.library_key, list);
    }
    const recent = await refdata.store.recentRevisions(RECENT, statuses);
    // An instance with nothing yet offers a first library to build on.
    const firstRun =
      libraries.length === 0 && (await refdata.store.libraries(undefined)).length === 0
        ? await firstRunSection(pages, request, reply)
        : html`<p>No libraries yet.</p>`;
    const now = Date.now();
    const done = partValue(request.query, 'done');
    return pages.answer(
      request,
      reply,
      200,
      {
        title: 'Reference data libraries',
        wide: true,
        notice:
          done === 'signed_out' ? { kind: 'ok', text: 'You have been signed out.' } : undefined,
      },
      html`<form role="search" aria-label="Search every library" method="get" action="/search" class="home-search">
  <label for="home-q">Search every library</label>
  <input type="search" id="home-q" name="q" maxlength="200" placeholder="pump, pressure, kilogram…">
  <button type="submit">Search</button>
</form>
<h2>Libraries (${libraries.length})</h2>
${
  libraries.length === 0
    ? firstRun
    : html`<ul id="libraries" class="cards">${libraries.map((library) => {
        const terms = byLibrary.get(library.iri) ?? [];
        const total = terms.reduce((sum, entry) => sum + entry.n, 0);
        const description = (JSON.parse(library.body) as { description?: string }).description;
        return html`<li><a href="${pageHref(refdata, library.iri) ?? library.iri}"><strong>${library.name}</strong></a> <span class="status status-${library.status}">${statusLabel(library.status)}</span>${libraryStanding(refdata, library, releases.get(library.iri))}
<p class="iri">${library.iri}</p>
${description ? html`<p>${description}</p>` : html``}
<p>${total} ${total === 1 ? 'term' : 'terms'}${
          terms.length > 0
            ? html`: ${terms.map((entry, index) => html`${index > 0 ? ', ' : ''}${entry.n} ${statusLabel(entry.status).toLowerCase()}`)}`
            : html``
        }</p></li>`;
      })}</ul>`
}
<h2>Recent changes</h2>
${
  recent.length === 0
    ? html`<p>Nothing has changed yet.</p>`
    : html`<ul id="recent-changes">${recent.map(
        (change) =>
          html`<li><a href="${pageHref(refdata, change.iri) ?? change.iri}">${change.name}</a> <span class="hint">${refdata.families.labelOf(change.family)}</span> ${ACTION_WORDS[change.action]} ${timeTag(Number(change.created_at), now)}</li>`,
      )}</ul>`
}`,
    );
  });
}
