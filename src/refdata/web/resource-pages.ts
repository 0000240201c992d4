import { Type } from '@sinclair/typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { HttpError } from '../../platform/http/problem.js';
import type { HttpApp } from '../../platform/http/server.js';
import { copyable } from '../../platform/web/copy.js';
import { html, timeTag, trusted } from '../../platform/web/html.js';
import { isLibrary } from '../families/family.js';
import { problem } from '../problem-codes.js';
import { statementsTable } from '../rdf/html.js';
import { single } from '../rdf/library-graph.js';
import { resourceGraph } from '../rdf/resource-graph.js';
import { answerResource, type Offered, SHORT_NAMES } from '../rdf/routes.js';
import { RDF_MEDIA_TYPES, serializeStream } from '../rdf/serialize.js';
import { missing } from '../resources/lookup.js';
import { factsOf, type RowWithFacts } from '../resources/rows.js';
import { searchFilters } from '../search/routes.js';
import { completeShacl } from '../shacl/assemble.js';
import { DONE_NOTICES, doneNotice, resourceActions } from './authoring/resource-actions.js';
import { TREE_SCRIPT_PATH } from './hierarchy/tree.js';
import { historyList } from './history.js';
import { chosenLabels, labelsOf, labelsSection, languageName } from './languages.js';
import { pageHref, statusLabel, visibleStatuses } from './links.js';
import type { Pages } from './pages.js';
import { releaseStanding } from './release-standing.js';
import { changeRequestNotice } from './review/change-request.js';
import { discussionSection } from './review/discussion.js';
import { SECTIONS } from './sections/registry.js';
import type { PageQuery } from './sections/section.js';
import { PAGE_CONSTRAINT } from './surface.js';

/** What a page offers to download, by the `format` a link names. */
const DOWNLOADS: { format: string; mediaType: Offered; label: string }[] = [
  { format: 'json', mediaType: 'application/json', label: 'JSON' },
  ...RDF_MEDIA_TYPES.map((mediaType) => ({
    format: SHORT_NAMES[mediaType],
    mediaType,
    label: {
      'text/turtle': 'Turtle',
      'application/ld+json': 'JSON-LD',
      'application/rdf+xml': 'RDF/XML',
      'application/n-triples': 'N-Triples',
      'application/trig': 'TriG',
      'application/n-quads': 'N-Quads',
    }[mediaType],
  })),
];

/** IMF types also offer their complete SHACL, to people signed in (a Reader's right on PCA). */
const SHACL_FORMAT = 'shacl';

const DOWNLOAD_FORMATS = [...DOWNLOADS.map((download) => download.format), SHACL_FORMAT];

/**
 * The page of every resource, at its IRI (for browsers; programs reach the API
 * there): label, status, IRI, definition, every statement, the history with
 * who, when and why, and links to each representation, which download the
 * same data the API gives. Drafts are shown only to people who are signed in.
 */
export function registerResourcePages(app: HttpApp, pages: Pages): void {
  const { refdata } = pages;

  const visibleRow = async (request: FastifyRequest): Promise<RowWithFacts> => {
    const iri = `${refdata.iriBase}${request.url.split('?')[0]}`;
    const row = await refdata.store.findWithFacts(iri);
    if (!row) throw await missing(refdata, iri);
    if (row.status === 'Draft' && !pages.viewerOf(request)) {
      throw new HttpError(
        problem(
          404,
          'not-found',
          'There is no page at this address, or it is a Draft: Drafts are shown to people who are signed in.',
        ),
      );
    }
    return row;
  };

  const page = async (
    request: FastifyRequest,
    reply: FastifyReply,
    row: RowWithFacts,
    query: PageQuery,
  ) => {
    const family = pages.refdata.families.byKey(row.family);
    const children = family?.aggregate ? await refdata.store.childrenWithFacts(row.iri) : [];
    const quads = resourceGraph(refdata, row, children, factsOf([row, ...children]));
    const revisions = await refdata.store.revisions(row.id);
    const history = await historyList(revisions, pages.people, { id: 'history' });
    // A Rejected resource says why first: the reviewer's reason, not only at the end of its history.
    const rejection =
      row.status === 'Rejected'
        ? revisions.filter((revision) => revision.action === 'reject').at(-1)
        : undefined;
    const rejecter = rejection
      ? (await pages.people.lookUp([rejection.actor])).label(rejection.actor)
      : '';
    const body = JSON.parse(row.body) as { name?: string; description?: string };
    const path = request.url.split('?')[0] ?? '/';
    const labels = labelsOf(body, row.language);
    const shownLabels = chosenLabels(request, reply, labels, query.lang);
    const context = {
      pages,
      request,
      row,
      body: body as Record<string, unknown>,
      query,
      visible: visibleStatuses(pages.viewerOf(request) !== undefined),
      language: shownLabels.language,
    };
    const changeRequest = await changeRequestNotice(pages, row);
    const standing = await releaseStanding(pages, row);
    // A Deprecated resource says so first, and what to use instead.
    const replacement =
      row.status === 'Deprecated' && row.replaced_by
        ? await refdata.store.findByIri(row.replaced_by)
        : undefined;
    // The discussion of a submission, for people signed in: on what is or was under review.
    const discussion =
      row.status === 'Approved' || row.status === 'Deprecated' || row.status === 'ExternallyManaged'
        ? html``
        : await discussionSection(pages, request, reply, { resource: row });
    const shown = SECTIONS.filter(
      (section) => !section.shownFor || (family !== undefined && section.shownFor(family)),
    );
    const [top, sections] = await Promise.all([
      Promise.all(
        shown.filter((section) => section.placement === 'top').map((s) => s.render(context)),
      ),
      Promise.all(
        shown.filter((section) => section.placement !== 'top').map((s) => s.render(context)),
      ),
    ]);
    return pages.answer(
      request,
      reply,
      200,
      {
        title: shownLabels.name || row.iri,
        // The page is in English; a label in another language says which.
        titleLanguage: shownLabels.language.toLowerCase().startsWith('en')
          ? undefined
          : shownLabels.language,
        wide: true,
        notice: doneNotice(query.done),
        scripts: [TREE_SCRIPT_PATH],
      },
      html`${top}<p><span id="status" class="status status-${row.status}">${statusLabel(row.status)}</span>${standing} <span class="hint">${pages.refdata.families.labelOf(row.family)}</span></p>
<p>IRI: ${copyable('iri', row.iri, { className: 'iri', label: 'Copy IRI' })}</p>
${
  rejection
    ? html`<p class="notice error" id="rejection">Rejected by ${rejecter} ${timeTag(Number(rejection.created_at), Date.now())}: ${rejection.justification}</p>`
    : html``
}
${
  row.status === 'Deprecated'
    ? html`<p class="notice error" id="deprecation">Deprecated${
        replacement
          ? html`: use <a href="${pageHref(refdata, replacement.iri) ?? replacement.iri}">${replacement.name}</a> instead, which replaces it.`
          : html`.`
      }</p>`
    : html``
}
${changeRequest}
${resourceActions(pages, request, row)}
${
  shownLabels.description || body.description
    ? html`<p id="definition" lang="${shownLabels.description ? shownLabels.language : labels[0]?.language}">${shownLabels.description ?? body.description}</p>`
    : html``
}
${shownLabels !== labels[0] ? html`<p class="hint" id="label-language">Shown in ${languageName(shownLabels.language)}; in the library's language, ${languageName(labels[0]?.language ?? '')}: ${body.name ?? ''}.</p>` : html``}
${sections}
${labelsSection(path, labels, shownLabels)}
<h2 id="rdf">RDF</h2>
<details id="rdf-view"><summary>Every statement about it (${quads.filter((quad) => quad.subject.value === row.iri).length})</summary>
${trusted(statementsTable(row, quads, refdata.iriBase, refdata.publicUrl))}
</details>
<h2>Download</h2>
<ul id="downloads" class="inline-list">${DOWNLOADS.map(
        (download) =>
          html`<li><a href="${path}?format=${download.format}">${download.label}</a></li>`,
      )}${
        pages.refdata.families.byKey(row.family)?.hasShacl && pages.viewerOf(request)
          ? html`<li><a href="${path}?format=${SHACL_FORMAT}">Complete IMF SHACL (Turtle)</a></li>`
          : html``
      }${
        isLibrary(row)
          ? html`<li><a href="/changes?${new URLSearchParams({ library: row.iri }).toString()}">Its changes (a Linked Data Event Stream)</a></li>`
          : html``
      }</ul>
<h2>History</h2>
${history}
${discussion}`,
    );
  };

  const filters = searchFilters(pages.refdata.families);
  const querystring = Type.Object(
    {
      format: Type.Optional(Type.Union(DOWNLOAD_FORMATS.map((format) => Type.Literal(format)))),
      detailLevel: Type.Optional(Type.Integer({ minimum: 1, maximum: 3 })),
      // A library's terms: which, and which page of them.
      family: filters.family,
      status: filters.status,
      page: Type.Optional(Type.Integer({ minimum: 1, maximum: 100000 })),
      // After a step taken on another page: which notice to show (a fixed list).
      done: Type.Optional(Type.Union(Object.keys(DONE_NOTICES).map((key) => Type.Literal(key)))),
      // The language to show its labels in (else the browser's Accept-Language).
      lang: Type.Optional(Type.String({ minLength: 2, maxLength: 35, format: 'language-tag' })),
    },
    { additionalProperties: false },
  );
  for (const path of pages.refdata.families.iriPaths) {
    const options = { schema: { querystring }, ...PAGE_CONSTRAINT };
    app.get(path, options, async (request, reply) => {
      const row = await visibleRow(request);
      const format = request.query.format;
      if (format === undefined) return page(request, reply, row, request.query);
      const name = (row.iri.slice(row.iri.lastIndexOf('/') + 1) || 'resource').replace(
        /[^A-Za-z0-9._-]/g,
        '_',
      );
      if (format === SHACL_FORMAT) {
        if (!pages.refdata.families.byKey(row.family)?.hasShacl) {
          throw new HttpError(
            problem(400, 'validation', 'Only IMF block and terminal types have SHACL.'),
          );
        }
        if (!pages.viewerOf(request)) {
          throw new HttpError(
            problem(404, 'not-found', 'The complete SHACL is offered to people who are signed in.'),
          );
        }
        reply.header('content-disposition', `attachment; filename="${name}-shacl.ttl"`);
        const quads = await completeShacl(refdata, row);
        return reply
          .type('text/turtle; charset=utf-8')
          .send(serializeStream(single(quads), 'text/turtle'));
      }
      // The schema admits only the formats listed.
      const download = DOWNLOADS.find((entry) => entry.format === format);
      if (!download) throw new Error(`format ${String(format)} passed the schema`);
      reply.header('content-disposition', `attachment; filename="${name}.${download.format}"`);
      // Visitors are shown what is published, in a library's download too.
      const view = pages.viewerOf(request) ? 'working' : 'published';
      return answerResource(refdata, request, reply, row, download.mediaType, view);
    });
  }
}
