import type { FastifyReply, FastifyRequest } from 'fastify';
import { HttpError } from '../../../platform/http/problem.js';
import type { HttpApp } from '../../../platform/http/server.js';
import { html } from '../../../platform/web/html.js';
import { csrfField } from '../../../platform/web/layout.js';
import { SUBMIT_ROLES } from '../../auth/roles.js';
import { checkMovesAlone } from '../../lifecycle/steps.js';
import { problem } from '../../problem-codes.js';
import { qualityReport } from '../../quality/report.js';
import { IRI_QUERY, notFound } from '../../resources/lookup.js';
import type { ResourceRow } from '../../resources/rows.js';
import { checkAuthor } from '../../review/authorship.js';
import { submitTogether } from '../../review/decisions.js';
import { draftsBehind } from '../../review/dependencies.js';
import { pageHref } from '../links.js';
import type { Pages } from '../pages.js';
import { findingsTable } from '../quality-pages.js';
import { dependenciesOf, dependencyLine } from './dependencies.js';
import { pointerWords } from './diff.js';

/** Who may see the pages for submitting (checked by the surface). */
const SUBMITTING = { roles: SUBMIT_ROLES, doing: 'Submitting' } as const;

/**
 * Submitting a Draft for review, after a confirmation that lists the resources
 * it names and their states, as PCA's dependency review does: Drafts among them
 * can be submitted with it (they are ticked), and anything not yet Approved is
 * pointed out, since a reviewer will look at it too.
 */
export function registerSubmitPages(app: HttpApp, pages: Pages): void {
  const refdata = pages.refdata;

  const submittable = async (iri: string): Promise<ResourceRow> => {
    const row = await refdata.store.findByIri(iri);
    if (!row) throw notFound(iri);
    checkMovesAlone(refdata, row);
    if (row.status !== 'Draft')
      throw new HttpError(
        problem(409, 'not-draft', `${row.name} is ${row.status}; only a Draft can be submitted.`),
      );
    return row;
  };

  /**
   * The Drafts behind a resource, transitively (the picklist behind a property
   * it uses...): the viewer's own can go with it; others' are their authors' to submit.
   */
  const draftsBehindOf = async (row: ResourceRow, subject: string) => {
    const behind = await draftsBehind(refdata, row);
    return {
      mine: behind.filter((named) => named.row.created_by === subject),
      others: behind.filter((named) => named.row.created_by !== subject),
    };
  };

  const confirmation = async (
    request: FastifyRequest,
    reply: FastifyReply,
    row: ResourceRow,
    status: number,
    error?: string,
  ) => {
    const viewer = pages.viewerOf(request);
    const dependencies = await dependenciesOf(refdata, row);
    const behind = await draftsBehindOf(row, viewer?.subject ?? '');
    const drafts = behind.mine;
    const draftIris = new Set([...drafts, ...behind.others].map((named) => named.row.iri));
    const others = dependencies.filter((dependency) => !draftIris.has(dependency.iri));
    const authors = await pages.people.lookUp(behind.others.map((named) => named.row.created_by));
    const namer = new Map([
      [row.iri, row.name],
      ...drafts.map((named) => [named.row.iri, named.row.name] as const),
      ...behind.others.map((named) => [named.row.iri, named.row.name] as const),
    ]);
    // A field is named as the form of the resource naming it labels it.
    const familyOf = new Map([
      [row.iri, row.family],
      ...drafts.map((named) => [named.row.iri, named.row.family] as const),
      ...behind.others.map((named) => [named.row.iri, named.row.family] as const),
    ]);
    const schemaOf = (iri: string) => refdata.families.byKey(familyOf.get(iri) ?? '')?.schema ?? {};
    const session = await pages.ensureSession(request, reply);
    const withFacts = await refdata.store.findWithFacts(row.iri);
    const report = await qualityReport(refdata, {
      kind: 'resource',
      resource: withFacts ?? { ...row, justification: null, replaced_by: null },
    });
    return pages.answer(
      request,
      reply,
      status,
      {
        title: `Submit ${row.name} for review`,
        wide: report.findings.length > 0,
        notice: error ? { kind: 'error', text: error } : undefined,
      },
      html`<p>Once submitted, the ${refdata.families.labelOf(row.family)} can no longer be edited: another person, a Reviewer, approves it, rejects it or sends it back to you with what to change.</p>
<form method="post" action="/authoring/submit?iri=${encodeURIComponent(row.iri)}">${csrfField(session.data.csrf)}
<input type="hidden" name="_version" value="${String(row.version)}">
<input type="hidden" name="_versions" value="${JSON.stringify(Object.fromEntries(drafts.map((named) => [named.row.iri, named.row.version])))}">
${
  drafts.length > 0
    ? html`<fieldset class="group"><legend>Drafts it depends on</legend><p class="hint">These are not submitted yet. Submit them with it as one package: a reviewer cannot approve it before them, and can approve them all at once.</p>${drafts.map(
        (dependency, index) =>
          html`<div><input type="checkbox" id="also-${String(index)}" name="also" value="${dependency.row.iri}" checked> <label class="inline" for="also-${String(index)}">Also submit ${dependency.row.name}</label> <span class="hint">${refdata.families.labelOf(dependency.row.family)}, named in ${pointerWords(dependency.pointer, schemaOf(dependency.by))}${dependency.by === row.iri ? '' : ` of ${namer.get(dependency.by) ?? dependency.by}`}</span></div>`,
      )}
<label for="package-name">Package name</label>
<input type="text" id="package-name" name="packageName" maxlength="200" aria-describedby="package-name-hint">
<p class="hint" id="package-name-hint">Optional: what reviewers see in their queue (else ${row.name} and the number of others).</p></fieldset>`
    : html``
}
${
  behind.others.length > 0
    ? html`<h2>Drafts of other authors it depends on</h2><p class="hint">Only their authors submit them; approval of this waits for them.</p><ul id="others-drafts">${behind.others.map(
        (named) =>
          html`<li><a href="${pageHref(refdata, named.row.iri) ?? named.row.iri}">${named.row.name}</a> <span class="hint">${refdata.families.labelOf(named.row.family)}, by ${authors.label(named.row.created_by)}</span></li>`,
      )}</ul>`
    : html``
}
<h2>What it names</h2>
${
  others.length > 0
    ? html`<ul class="dependencies" id="dependencies">${others.map((dependency) => html`<li>${dependencyLine(refdata, dependency)}</li>`)}</ul>`
    : drafts.length > 0
      ? html`<p>Nothing else of this service.</p>`
      : html`<p id="dependencies">It names nothing of this service that still needs review.</p>`
}
<h2>Quality</h2>
${findingsTable(pages, request, report, `What the quality report finds in ${row.name}`)}
<p class="actions"><button type="submit" class="primary">Submit for review</button> <a href="${pageHref(refdata, row.iri) ?? '/'}">Cancel</a></p>
</form>`,
    );
  };

  app.get(
    '/authoring/submit',
    {
      config: { viewers: SUBMITTING },
      schema: { querystring: IRI_QUERY },
    },
    async (request, reply) => {
      const viewer = pages.signedInViewer(request);
      const row = await submittable(request.query.iri);
      // The page says who may, as the submission would (docs/review.md).
      checkAuthor(row, viewer.subject, 'submit');
      return confirmation(request, reply, row, 200);
    },
  );

  app.post(
    '/authoring/submit',
    {
      config: { viewers: SUBMITTING },
      schema: { querystring: IRI_QUERY },
    },
    async (request, reply) => {
      const viewer = pages.signedInViewer(request);
      const row = await submittable(request.query.iri);
      const body = (request.body ?? {}) as Record<string, unknown>;
      if (String(body._version) !== String(row.version)) {
        return confirmation(
          request,
          reply,
          row,
          409,
          `${row.name} changed since this page was opened; check it again before submitting.`,
        );
      }
      const also = new Set(
        (Array.isArray(body.also) ? body.also : [body.also]).filter(
          (value) => typeof value === 'string',
        ),
      );
      // Only the viewer's Drafts this resource depends on can come along, whatever the form says.
      const chosen = (await draftsBehindOf(row, viewer.subject)).mine
        .map((named) => named.row)
        .filter((dependency) => also.has(dependency.iri));
      // Each Draft going along is submitted as the page showed it, or looked at again.
      let shown: Record<string, unknown> = {};
      try {
        shown = JSON.parse(String(body._versions ?? '{}')) as Record<string, unknown>;
      } catch {
        // An unreadable list shows nothing: every Draft counts as changed.
      }
      const moved = chosen.find((dependency) => shown[dependency.iri] !== dependency.version);
      if (moved) {
        return confirmation(
          request,
          reply,
          row,
          409,
          `${moved.name} changed since this page was opened; check it again before submitting.`,
        );
      }
      const packageName = typeof body.packageName === 'string' ? body.packageName.trim() : '';
      try {
        await submitTogether(
          refdata,
          row,
          chosen,
          viewer,
          packageName === '' ? undefined : packageName.slice(0, 200),
        );
      } catch (error) {
        // A Draft that moved meanwhile, or one not theirs: said on the form, to look again.
        if (!(error instanceof HttpError) || ![403, 409].includes(error.problem.status))
          throw error;
        return confirmation(
          request,
          reply,
          row,
          error.problem.status,
          error.problem.detail ?? error.problem.title,
        );
      }
      return reply.redirect(`${pageHref(refdata, row.iri) ?? '/'}?done=submitted`, 303);
    },
  );
}
