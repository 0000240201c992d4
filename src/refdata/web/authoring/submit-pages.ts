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
import type { ResourceRow } from '../../resources/store.js';
import { submitTogether } from '../../review/decisions.js';
import { pageHref } from '../links.js';
import type { Pages } from '../pages.js';
import { findingsTable } from '../quality-pages.js';
import { viewerWith } from './access.js';
import { type Dependency, dependenciesOf, dependencyLine } from './dependencies.js';
import { pointerWords } from './diff.js';

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

  /** Drafts among the dependencies that can be submitted on their own. */
  const draftsAmong = (dependencies: readonly Dependency[]) =>
    dependencies.filter(
      (dependency) =>
        dependency.status === 'Draft' && !refdata.families.byKey(dependency.family)?.parentIri,
    );

  const confirmation = async (
    request: FastifyRequest,
    reply: FastifyReply,
    row: ResourceRow,
    status: number,
    error?: string,
  ) => {
    const dependencies = await dependenciesOf(refdata, row);
    const drafts = draftsAmong(dependencies);
    const others = dependencies.filter((dependency) => !drafts.includes(dependency));
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
      html`<p>Once submitted, the ${refdata.families.labelOf(row.family)} can no longer be edited: a Reviewer approves or rejects it.</p>
<form method="post" action="/authoring/submit?iri=${encodeURIComponent(row.iri)}">${csrfField(session.data.csrf)}
<input type="hidden" name="_version" value="${String(row.version)}">
${
  drafts.length > 0
    ? html`<fieldset class="group"><legend>Drafts it names</legend><p class="hint">These are not submitted yet. Submit them with it, or a reviewer cannot approve it with them.</p>${drafts.map(
        (dependency, index) =>
          html`<div><input type="checkbox" id="also-${String(index)}" name="also" value="${dependency.iri}" checked> <label class="inline" for="also-${String(index)}">Also submit ${dependency.name}</label> <span class="hint">${refdata.families.labelOf(dependency.family)}, named in ${pointerWords(dependency.pointer)}</span></div>`,
      )}</fieldset>`
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
${findingsTable(pages, report, `What the quality report finds in ${row.name}`)}
<p class="actions"><button type="submit" class="primary">Submit for review</button> <a href="${pageHref(refdata, row.iri) ?? '/'}">Cancel</a></p>
</form>`,
    );
  };

  app.get('/authoring/submit', { schema: { querystring: IRI_QUERY } }, async (request, reply) => {
    if (!viewerWith(pages, request, reply, SUBMIT_ROLES, 'Submitting')) return reply;
    const row = await submittable(request.query.iri);
    return confirmation(request, reply, row, 200);
  });

  app.post('/authoring/submit', { schema: { querystring: IRI_QUERY } }, async (request, reply) => {
    const viewer = viewerWith(pages, request, reply, SUBMIT_ROLES, 'Submitting');
    if (!viewer) return reply;
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
    // Only Drafts this resource names can come along, whatever the form says.
    const drafts = draftsAmong(await dependenciesOf(refdata, row)).filter((dependency) =>
      also.has(dependency.iri),
    );
    const others = (
      await refdata.store.findMany(drafts.map((dependency) => dependency.iri))
    ).filter((other) => other.status === 'Draft');
    await submitTogether(refdata, row, others, viewer);
    return reply.redirect(`${pageHref(refdata, row.iri) ?? '/'}?done=submitted`, 303);
  });
}
