import type { HttpApp } from '../../../platform/http/server.js';
import { html, timeTag } from '../../../platform/web/html.js';
import { STATUSES } from '../../db/tables.js';
import { pageHref, statusLabel } from '../links.js';
import type { Pages } from '../pages.js';

/** How many of one's resources the page lists. */
const LISTED = 500;

/**
 * What the viewer created or last changed, by status (Drafts first), newest
 * first: where an author comes back to their work.
 */
export function registerMyDraftsPage(app: HttpApp, pages: Pages): void {
  const refdata = pages.refdata;
  app.get(
    '/authoring/mine',
    { config: { viewers: { doing: 'My drafts' } } },
    async (request, reply) => {
      const viewer = pages.signedInViewer(request);
      const rows = await refdata.store
        .selectListed()
        .where((eb) =>
          eb.or([eb('r.created_by', '=', viewer.subject), eb('r.updated_by', '=', viewer.subject)]),
        )
        .orderBy('r.updated_at', 'desc')
        .orderBy('r.id', 'desc')
        .limit(LISTED)
        .execute();
      const now = Date.now();
      const people = await pages.people.lookUp(rows.map((row) => row.updated_by));
      const groups = STATUSES.map((status) => ({
        status,
        rows: rows.filter((row) => row.status === status),
      })).filter((group) => group.rows.length > 0);
      return pages.answer(
        request,
        reply,
        200,
        { title: 'My drafts', wide: true },
        groups.length === 0
          ? html`<p>You have not written anything yet.${pages.holds(request, ['Creator']) ? html` <a href="/authoring/new">Write a Draft</a>.` : html``}</p>`
          : html`${groups.map(
              (group) =>
                html`<h2 id="status-${group.status}">${statusLabel(group.status)} (${String(group.rows.length)})</h2><ul class="cards">${group.rows.map(
                  (row) =>
                    html`<li><a href="${pageHref(refdata, row.iri) ?? row.iri}"><strong>${row.name}</strong></a> <span class="hint">${refdata.families.labelOf(row.family)}${row.library ? html` in ${row.library}` : html``}, changed by ${people.label(row.updated_by)} ${timeTag(Number(row.updated_at), now)}</span>${
                      row.status === 'Draft'
                        ? html` · <a href="/authoring/edit?iri=${encodeURIComponent(row.iri)}">Edit</a>`
                        : html``
                    }</li>`,
                )}</ul>`,
            )}`,
      );
    },
  );
}
