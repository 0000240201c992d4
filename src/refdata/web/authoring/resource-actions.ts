import type { FastifyRequest } from 'fastify';
import { html, type Markup } from '../../../platform/web/html.js';
import type { Notice } from '../../../platform/web/layout.js';
import { REVIEW_ROLES, SUBMIT_ROLES, WRITE_ROLES } from '../../auth/roles.js';
import { isLibrary } from '../../families/family.js';
import type { ResourceRow } from '../../resources/rows.js';
import type { Pages } from '../pages.js';

/** What a resource page says after a step taken on another page (`?done=`). */
export const DONE_NOTICES = {
  created: 'The Draft was created.',
  saved: 'The Draft was saved.',
  submitted: 'Submitted for review.',
  approved: 'Approved: it is now published.',
  rejected: 'Rejected, with your justification.',
  'changes-requested': 'Sent back to its author with your request.',
} as const;

export type Done = keyof typeof DONE_NOTICES;

export function doneNotice(done: unknown): Notice | undefined {
  return typeof done === 'string' && Object.hasOwn(DONE_NOTICES, done)
    ? { kind: 'ok', text: DONE_NOTICES[done as Done] }
    : undefined;
}

/**
 * The steps the viewer's roles allow on a resource, as links to the pages that
 * take them: edit and submit a Draft, review a Submitted one, add a term to a
 * library, write a replacement for an Approved one.
 */
export function resourceActions(pages: Pages, request: FastifyRequest, row: ResourceRow): Markup {
  const family = pages.refdata.families.byKey(row.family);
  if (!family) return html``;
  const iri = encodeURIComponent(row.iri);
  const links: Markup[] = [];
  const body = JSON.parse(row.body) as { ontology?: unknown };
  // Only its author changes, submits or copies a resource (docs/review.md).
  const author = pages.viewerOf(request)?.subject === row.created_by;
  if (row.status === 'Draft' && author && pages.holds(request, WRITE_ROLES))
    links.push(html`<a class="button" href="/authoring/edit?iri=${iri}">Edit</a>`);
  // A value is submitted with its aggregate, never alone.
  if (row.status === 'Draft' && author && !family.parentIri && pages.holds(request, SUBMIT_ROLES))
    links.push(html`<a class="button" href="/authoring/submit?iri=${iri}">Submit for review…</a>`);
  if (row.status === 'Rejected' && author && !family.parentIri && pages.holds(request, WRITE_ROLES))
    links.push(html`<a class="button" href="/authoring/copy?iri=${iri}">Copy into a new Draft</a>`);
  if (row.status === 'Submitted' && !family.parentIri && pages.holds(request, REVIEW_ROLES))
    links.push(html`<a class="button" href="/review/resource?iri=${iri}">Review…</a>`);
  if (pages.holds(request, WRITE_ROLES)) {
    // Terms name their library in `ontology`; a library's page starts one there.
    if (isLibrary(row))
      links.push(
        html`<a class="button" href="/authoring/new?ontology=${iri}">Add a term to this library</a>`,
      );
    if (row.status === 'Approved' && family.schema.properties.replaces !== undefined) {
      const params = new URLSearchParams({ replaces: row.iri });
      if (typeof body.ontology === 'string') params.set('ontology', body.ontology);
      links.push(
        html`<a class="button" href="/authoring/new/${family.key}?${params.toString()}">Write a replacement</a>`,
      );
    }
  }
  return links.length > 0
    ? html`<p class="actions" id="actions">${links.map((link, index) => html`${index > 0 ? ' ' : ''}${link}`)}</p>`
    : html``;
}
