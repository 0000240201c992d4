import { html, type Markup, timeTag } from '../../../platform/web/html.js';
import type { ResourceRow } from '../../resources/rows.js';
import type { Pages } from '../pages.js';

/**
 * What a reviewer asked to change, on top of a Draft's page and form while the
 * Draft is as they sent it back (its last revision is their request).
 */
export async function changeRequestNotice(pages: Pages, row: ResourceRow): Promise<Markup> {
  if (row.status !== 'Draft') return html``;
  const last = (await pages.refdata.store.revisions(row.id)).at(-1);
  if (last?.action !== 'request-changes') return html``;
  const who = (await pages.people.lookUp([last.actor])).label(last.actor);
  return html`<div class="notice error" id="change-request"><p><strong>Changes requested</strong> by ${who} ${timeTag(Number(last.created_at), Date.now())}:</p><p>${last.justification}</p><p class="hint">Change the Draft, then submit it again: it goes back into its package.</p></div>`;
}
