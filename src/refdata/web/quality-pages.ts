import { Type } from '@sinclair/typebox';
import type { FastifyRequest } from 'fastify';
import { HttpError } from '../../platform/http/problem.js';
import type { HttpApp } from '../../platform/http/server.js';
import { html, type Markup } from '../../platform/web/html.js';
import { READ_ROLES, WRITE_ROLES } from '../auth/roles.js';
import { isLibrary } from '../families/family.js';
import { problem } from '../problem-codes.js';
import { fixUrl } from '../quality/answers.js';
import { type QualityReport, qualityReport } from '../quality/report.js';
import { RULES } from '../quality/rules.js';
import { pageHref } from './links.js';
import type { Pages } from './pages.js';
import { PAGE_CONSTRAINT } from './surface.js';

/**
 * A report's findings as a table: severity, resource, rule, what is wrong,
 * where to mend it (a Draft's form for its author, else the resource's page).
 */
export function findingsTable(
  pages: Pages,
  request: FastifyRequest,
  report: QualityReport,
  caption: string,
): Markup {
  if (report.findings.length === 0)
    return html`<p id="quality-summary">The quality report finds nothing to mend.</p>`;
  const { refdata } = pages;
  return html`<p id="quality-summary">${String(report.errors)} error${report.errors === 1 ? '' : 's'}, ${String(report.warnings)} warning${report.warnings === 1 ? '' : 's'}. Errors stop a release; warnings are worth a look.</p>
<div class="table-scroll"><table class="stack findings"><caption>${caption}</caption>
<thead><tr class="head"><th scope="col">Severity</th><th scope="col">Resource</th><th scope="col">Rule</th><th scope="col">What is wrong</th><th scope="col">Mend it</th></tr></thead>
<tbody>${report.findings.map((item) => {
    const href = pageHref(refdata, item.resource);
    // Only its author edits a Draft (docs/review.md); others are shown its page.
    const editor =
      item.status === 'Draft' &&
      pages.viewerOf(request)?.subject === item.createdBy &&
      pages.holds(request, WRITE_ROLES);
    const fix = item.status === 'Draft' && !editor ? (href ?? undefined) : fixUrl(refdata, item);
    return html`<tr class="finding-${item.severity}"><td data-label="Severity"><strong>${item.severity === 'error' ? 'Error' : 'Warning'}</strong></td><td data-label="Resource">${
      href
        ? html`<a href="${href}">${item.name || item.resource}</a>`
        : html`${item.name || item.resource}`
    }</td><td data-label="Rule">${RULES[item.rule]}</td><td data-label="What is wrong">${item.name || 'It'} ${item.message}</td><td data-label="Mend it">${
      fix
        ? html`<a href="${new URL(fix, refdata.publicUrl).pathname}${new URL(fix, refdata.publicUrl).search}">${editor ? 'Edit the Draft' : 'Open it'}</a>`
        : html``
    }</td></tr>`;
  })}</tbody></table></div>`;
}

const QUALITY_QUERY = Type.Object(
  {
    library: Type.String({ minLength: 1, maxLength: 2048 }),
    view: Type.Optional(Type.Union([Type.Literal('published'), Type.Literal('working')])),
  },
  { additionalProperties: false },
);

/**
 * A library's quality report as a page, for people signed in: what a release
 * would take (the published view), or every resource of the library.
 */
export function registerQualityPages(app: HttpApp, pages: Pages): void {
  app.get(
    '/quality',
    {
      config: { viewers: { roles: READ_ROLES, doing: 'A quality report' } },
      schema: { querystring: QUALITY_QUERY },
      ...PAGE_CONSTRAINT,
    },
    async (request, reply) => {
      // Findings name Drafts, which only people signed in see (as the API asks a token).
      const { library, view } = request.query;
      const row = await pages.refdata.store.findByIri(library);
      if (!row || !isLibrary(row))
        throw new HttpError(problem(404, 'not-found', `No library has the IRI ${library}.`));
      const working = view === 'working';
      const report = await qualityReport(pages.refdata, {
        kind: working ? 'library' : 'release',
        library: row,
      });
      const other = new URLSearchParams({ library, view: working ? 'published' : 'working' });
      const libraryHref = pageHref(pages.refdata, row.iri) ?? '/';
      return pages.answer(
        request,
        reply,
        200,
        { title: `Quality of ${row.name}`, wide: true },
        html`<p>${
          working
            ? html`Every resource of <a href="${libraryHref}">${row.name}</a>, whatever its status.`
            : html`What a release of <a href="${libraryHref}">${row.name}</a> would take now: the library and its Approved and Deprecated terms.`
        } <a href="/quality?${other.toString()}">${working ? 'Only what a release would take' : 'Every resource, Drafts too'}</a>. The rules are PCA's for hosted content, the IMF authors' types grammar, and what a published resource may name.</p>
${findingsTable(pages, request, report, working ? `Findings in ${row.name}` : `Findings before a release of ${row.name}`)}`,
      );
    },
  );
}
