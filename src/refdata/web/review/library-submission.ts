import type { FastifyRequest } from 'fastify';
import { HttpError } from '../../../platform/http/problem.js';
import type { HttpApp } from '../../../platform/http/server.js';
import { html, type Markup } from '../../../platform/web/html.js';
import { csrfField } from '../../../platform/web/layout.js';
import { SUBMIT_ROLES } from '../../auth/roles.js';
import { isLibrary } from '../../families/family.js';
import { problem } from '../../problem-codes.js';
import { notFound } from '../../resources/lookup.js';
import type { ResourceRow } from '../../resources/rows.js';
import { submitTogether, submittableDraftsIn } from '../../review/decisions.js';
import { formFieldsOf } from '../authoring/form-fields.js';
import type { Pages } from '../pages.js';

const SUBMITTING = { roles: SUBMIT_ROLES, doing: 'Submitting' } as const;
const SUBMIT_PATH = '/review/submit-library';

/**
 * The offer, where a Creator's Drafts in a library are (its page, an
 * import's page): to submit every one of them for review as one package, so
 * that an import's thousands are one decision rather than thousands.
 */
export async function libraryDraftsOffer(
  pages: Pages,
  request: FastifyRequest,
  library: ResourceRow,
): Promise<Markup> {
  const viewer = pages.viewerOf(request);
  // A signed-in viewer has a session, whose form token the form carries.
  const session = pages.sessionOf(request);
  if (!viewer || !session || !pages.holds(request, SUBMIT_ROLES)) return html``;
  const { refdata } = pages;
  const valueFamilies = refdata.families.all
    .filter((family) => family.parentIri !== undefined)
    .map((family) => family.key);
  const own =
    (await refdata.store.countInLibrary(library.iri, ['Draft'], {
      createdBy: viewer.subject,
      exceptFamilies: valueFamilies,
    })) + (library.status === 'Draft' && library.created_by === viewer.subject ? 1 : 0);
  if (own === 0) return html``;
  return html`<form method="post" action="${SUBMIT_PATH}" class="inline-form" id="submit-library">${csrfField(session.data.csrf)}<input type="hidden" name="library" value="${library.iri}"><button type="submit">Submit your ${own.toLocaleString('en')} ${own === 1 ? 'Draft' : 'Drafts'} here for review</button> <span class="hint">as one package: a Reviewer sees it family by family, with a sample of each and the quality report, and decides it at once.</span></form>`;
}

/** `POST /review/submit-library`: the viewer's Drafts in a library, as one package. */
export function registerLibrarySubmission(app: HttpApp, pages: Pages): void {
  const { refdata } = pages;
  app.post(SUBMIT_PATH, { config: { viewers: SUBMITTING } }, async (request, reply) => {
    const viewer = pages.signedInViewer(request);
    const iri = formFieldsOf(request.body).get('library') ?? '';
    const library = iri === '' ? undefined : await refdata.store.findByIri(iri);
    if (!library || !isLibrary(library)) throw notFound(iri || 'library');
    const rows = await submittableDraftsIn(refdata, library, viewer.subject);
    if (rows.length === 0)
      throw new HttpError(
        problem(409, 'wrong-state', `You have no Drafts in ${library.name} to submit.`),
      );
    const [first, ...others] = rows as [ResourceRow, ...ResourceRow[]];
    const { packageId } = await submitTogether(refdata, first, others, viewer);
    return reply.redirect(`/review/packages/${String(packageId)}`, 303);
  });
}
