import { html, type Markup, timeTag } from '../../platform/web/html.js';
import type { RevisionRow } from '../resources/rows.js';
import { ACTION_WORDS } from './home-page.js';
import type { PeopleStore } from './people.js';

/** A resource's revisions as a page lists them: what, by whom (by name), when, why. */
export async function historyList(
  revisions: readonly RevisionRow[],
  people: PeopleStore,
  options: { id?: string } = {},
): Promise<Markup> {
  const known = await people.lookUp(revisions.map((revision) => revision.actor));
  const now = Date.now();
  return html`<ol${options.id ? html` id="${options.id}"` : html``}>${revisions.map(
    (revision) =>
      html`<li>${ACTION_WORDS[revision.action]} by <strong>${known.label(revision.actor)}</strong> ${timeTag(Number(revision.created_at), now)}${revision.justification ? html`: <q>${revision.justification}</q>` : html``}</li>`,
  )}</ol>`;
}
