import { html, type Markup } from '../../platform/web/html.js';
import type { Status } from '../db/tables.js';
import { PUBLISHED_STATUSES } from '../lifecycle/views.js';
import { releasePath } from '../releases/versions.js';
import type { Pages } from './pages.js';

const PUBLISHED = new Set<Status>(PUBLISHED_STATUSES);

/**
 * Where a published resource stands with its library's releases, after its
 * status: "in release 1.0.0", "changed since release 1.0.0" or "not yet
 * released"; nothing for a resource that is not published. Approved alone
 * does not say whether anyone downloading the library has it.
 */
export async function releaseStanding(
  pages: Pages,
  row: { id: number; status: Status; version: number },
): Promise<Markup> {
  if (!PUBLISHED.has(row.status)) return html``;
  const holding = await pages.refdata.releases.latestHolding(row.id);
  if (!holding) return html`<span id="release-standing"> not yet released</span>`;
  const link = html`<a href="${releasePath(pages.refdata, holding.iri)}">release ${holding.version}</a>`;
  return holding.memberVersion === row.version
    ? html`<span id="release-standing"> in ${link}</span>`
    : html`<span id="release-standing"> changed since ${link}</span>`;
}
