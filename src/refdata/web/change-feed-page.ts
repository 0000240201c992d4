import { Type } from '@sinclair/typebox';
import { HttpError } from '../../platform/http/problem.js';
import type { HttpApp } from '../../platform/http/server.js';
import { html, timeTag } from '../../platform/web/html.js';
import { readLatestEvents } from '../changes/feed.js';
import type { ChangeEvent } from '../db/tables.js';
import { isLibrary } from '../families/family.js';
import { PUBLISHED_STATUSES } from '../lifecycle/views.js';
import { problem } from '../problem-codes.js';
import { pageHref, visibleStatuses } from './links.js';
import type { Pages } from './pages.js';
import { PAGE_CONSTRAINT } from './surface.js';

/** The latest changes a page lists; the feed itself has them all. */
const LISTED = 50;

/** What each event did, as people say it. */
const EVENT_WORDS: Record<ChangeEvent, string> = {
  created: 'created',
  updated: 'changed',
  submitted: 'submitted for review',
  approved: 'approved',
  rejected: 'rejected',
  'changes-requested': 'sent back for changes',
  deprecated: 'deprecated',
  removed: 'removed',
};

const FEED_PAGE_QUERY = Type.Object(
  {
    library: Type.Optional(Type.String({ minLength: 1, maxLength: 2048 })),
    // The feed's own window and paging: a person who opens such a link is
    // shown this page, which explains them.
    since: Type.Optional(Type.String({ maxLength: 64 })),
    until: Type.Optional(Type.String({ maxLength: 64 })),
    after: Type.Optional(Type.String({ maxLength: 64 })),
  },
  { additionalProperties: false },
);

/**
 * `/changes` for a browser: what the change feed is and how a program follows
 * it, the latest changes in words, and the feed's address in each RDF format.
 * Programs asking for RDF get the Linked Data Event Stream itself.
 */
export function registerChangeFeedPage(app: HttpApp, pages: Pages): void {
  const { refdata } = pages;
  app.get(
    '/changes',
    { schema: { querystring: FEED_PAGE_QUERY }, ...PAGE_CONSTRAINT },
    async (request, reply) => {
      const { library } = request.query;
      const publishedOnly = pages.viewerOf(request) === undefined;
      const row = library === undefined ? undefined : await refdata.store.findByIri(library);
      if (
        library !== undefined &&
        !(row && isLibrary(row) && (!publishedOnly || PUBLISHED_STATUSES.includes(row.status)))
      )
        throw new HttpError(problem(404, 'not-found', `There is no library ${library}.`));
      const events = await readLatestEvents(refdata.db, { library, publishedOnly }, LISTED);
      // Named as the reader may see them now; else as the version listed.
      const names = await refdata.store.byIri(
        [...new Set(events.map((event) => event.iri))],
        visibleStatuses(!publishedOnly),
      );
      const query = library === undefined ? '' : `?${new URLSearchParams({ library })}`;
      const feed = `${refdata.publicUrl}/changes${query}`;
      const now = Date.now();
      return pages.answer(
        request,
        reply,
        200,
        { title: row ? `Changes to ${row.name}` : 'Changes', wide: true },
        html`<p>Every version of every resource${row ? html` of <a href="${pageHref(refdata, row.iri) ?? '/'}">${row.name}</a>` : html``}, in the order they were made, is published at this address as a <a href="https://w3id.org/ldes/specification">Linked Data Event Stream</a> for programs to follow: a harvester reads it from the start, page by page, then asks again for what is new. Each member is one version of a resource, with its RDF as that version left it.${publishedOnly ? ' Signed out, you see the published versions (Approved and Deprecated) only.' : ''}</p>
<h2 id="latest">The latest changes</h2>
${
  events.length === 0
    ? html`<p>Nothing has changed yet.</p>`
    : html`<ul id="latest-changes">${events.map((event) => {
        const named = names.get(event.iri);
        const name = named?.name ?? (JSON.parse(event.body) as { name?: string }).name ?? event.iri;
        const href = named ? pageHref(refdata, event.iri) : undefined;
        return html`<li>${href ? html`<a href="${href}">${name}</a>` : html`${name}`} <span class="hint">${refdata.families.labelOf(event.family)}</span> ${EVENT_WORDS[event.event]} ${timeTag(event.at, now)}</li>`;
      })}</ul>`
}
<h2 id="for-programs">Following it from a program</h2>
<p>Ask this address for RDF: JSON-LD, Turtle, N-Triples, RDF/XML, TriG or N-Quads, by the <code>Accept</code> header.</p>
<pre class="command"><code>curl -H 'Accept: text/turtle' '${feed}'</code></pre>
<p>Each page links the next by <code>tree:relation</code>; a page that will not change again is marked <code>ldes:immutable</code> and may be kept. <code>since</code> and <code>until</code> (date and time) keep to a window${library === undefined ? html`, and <code>library</code> to one library's changes (its page links its own feed)` : html``}. Webhooks post the same changes as they happen.</p>`,
      );
    },
  );
}
