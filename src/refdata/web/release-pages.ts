import { Type } from '@sinclair/typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { HttpError } from '../../platform/http/problem.js';
import type { HttpApp } from '../../platform/http/server.js';
import { copyable } from '../../platform/web/copy.js';
import { errorSummary, type FieldErrors, textField } from '../../platform/web/forms.js';
import { html, type Markup, timeTag } from '../../platform/web/html.js';
import { csrfField } from '../../platform/web/layout.js';
import { SUBMIT_ROLES } from '../auth/roles.js';
import { isLibrary } from '../families/family.js';
import { problem } from '../problem-codes.js';
import { type QualityReport, qualityReport } from '../quality/report.js';
import { RDF_FORMATS, RDF_MEDIA_TYPES } from '../rdf/serialize.js';
import { type ChangeSummary, differences, summarize } from '../releases/differences.js';
import { releaseJson } from '../releases/json.js';
import {
  makeRelease,
  mayRelease,
  RELEASED_BY,
  ReleaseBlocked,
  ReleaseForbidden,
  ReleaseRefused,
} from '../releases/make.js';
import {
  redirectToLatest,
  releaseAt,
  sendDcat,
  sendReleaseFile,
  sidesOf,
} from '../releases/routes.js';
import { ReleaseConflict, type ReleaseRow } from '../releases/store.js';
import { MAX_VERSION_LENGTH, releasePath } from '../releases/versions.js';
import type { ResourceRow } from '../resources/rows.js';
import { changesTable, pointerWords } from './authoring/diff.js';
import { formFieldsOf } from './authoring/form-fields.js';
import { pageHref } from './links.js';
import type { Pages } from './pages.js';
import { findingsTable } from './quality-pages.js';
import { PAGE_CONSTRAINT } from './surface.js';

/** Who may see the pages for releasing a library (checked by the surface). */
const RELEASING_A_LIBRARY = { roles: SUBMIT_ROLES, doing: 'Releasing a library' } as const;

const RELEASE_PARAMS = Type.Object({
  library: Type.String({ maxLength: 255 }),
  version: Type.String({ maxLength: MAX_VERSION_LENGTH }),
});
const CHANGES_QUERY = Type.Object(
  {
    library: Type.String({ minLength: 1, maxLength: 2048 }),
    from: Type.String({ minLength: 1, maxLength: MAX_VERSION_LENGTH }),
    to: Type.Optional(Type.String({ minLength: 1, maxLength: MAX_VERSION_LENGTH })),
  },
  { additionalProperties: false },
);
/**
 * A page's download links name a format, so that a browser's download (which
 * may accept anything) reaches the pages, as a resource page's do.
 */
const DOWNLOAD_QUERY = Type.Object(
  { format: Type.Optional(Type.String({ maxLength: 16 })) },
  { additionalProperties: false },
);
/** Of each kind of change, a page lists this many; the rest are counted, and in the JSON. */
const LISTED = 200;
const FORMAT_LABELS: Record<string, string> = {
  'text/turtle': 'Turtle',
  'application/n-triples': 'N-Triples',
  'application/rdf+xml': 'RDF/XML',
  'application/ld+json': 'JSON-LD',
};

function bytes(count: number): string {
  if (count < 1024) return `${count} bytes`;
  if (count < 1024 * 1024) return `${(count / 1024).toFixed(1)} KiB`;
  return `${(count / 1024 / 1024).toFixed(1)} MiB`;
}

/** A release's files: each linked to download, its format, size and checksum. */
function filesTable(
  files: readonly {
    url: string;
    name: string;
    mediaType: string;
    byteSize: number;
    sha256: string;
  }[],
  caption: string,
): Markup {
  return html`<div class="table-scroll"><table class="stack"><caption class="visually-hidden">${caption}</caption>
<thead><tr class="head"><th scope="col">File</th><th scope="col">Format</th><th scope="col">Size</th><th scope="col">SHA-256</th></tr></thead>
<tbody>${files.map(
    (file) =>
      html`<tr><td data-label="File"><a href="${new URL(file.url).pathname}?format=${file.name.slice(file.name.lastIndexOf('.') + 1)}" download>${file.name}</a></td><td data-label="Format">${FORMAT_LABELS[file.mediaType] ?? file.mediaType}</td><td data-label="Size">${bytes(file.byteSize)}</td><td data-label="SHA-256"><code class="checksum">${file.sha256}</code></td></tr>`,
  )}</tbody></table></div>`;
}

/** A resource named on a page: its name, linked where it is ours. */
function resourceLink(pages: Pages, item: { iri: string; name: string }): Markup {
  const href = pageHref(pages.refdata, item.iri);
  const name = item.name || item.iri;
  return href ? html`<a href="${href}">${name}</a>` : html`${name}`;
}

/** The differences between two sides, as lists and field tables. */
export function differencesMarkup(
  pages: Pages,
  result: ChangeSummary,
  moreHref: string | undefined,
): Markup {
  const { counts } = result;
  const total = Object.values(counts).reduce((sum, count) => sum + count, 0);
  if (total === 0) return html`<p>Nothing changed.</p>`;
  const more = (count: number, shown: number) =>
    count > shown
      ? html`<p class="hint">And ${String(count - shown)} more: ${
          moreHref
            ? html`<a href="${moreHref}">all the changes</a>`
            : html`the API (GET /releases/changes) lists them all`
        }.</p>`
      : html``;
  const plainList = (
    id: string,
    heading: string,
    items: { iri: string; name: string }[],
    count: number,
  ) =>
    count === 0
      ? html``
      : html`<h3 id="${id}">${heading} (${String(count)})</h3><ul class="changes">${items.map(
          (item) => html`<li>${resourceLink(pages, item)}</li>`,
        )}</ul>${more(count, items.length)}`;
  const withFields = (
    id: string,
    heading: string,
    items: (ChangeSummary['changed'][number] & { replacedBy?: string | null })[],
    count: number,
  ) =>
    count === 0
      ? html``
      : html`<h3 id="${id}">${heading} (${String(count)})</h3>${items.map(
          (item) =>
            html`<section class="change"><h4>${resourceLink(pages, item)}${
              item.replacedBy
                ? html` <span class="hint">replaced by ${resourceLink(pages, {
                    iri: item.replacedBy,
                    name: result.added.find((added) => added.iri === item.replacedBy)?.name ?? '',
                  })}</span>`
                : html``
            }</h4>${
              item.fields.length === 0
                ? html`<p class="hint">No field differs.</p>`
                : changesTable(
                    item.fields,
                    { before: 'Before', after: 'After' },
                    `What differs in ${item.name} (${item.fields.map((field) => pointerWords(field.pointer)).join(', ')})`,
                    // A replacement's `replaces` names the resource itself.
                    new Map([
                      [item.iri, { name: item.name, href: pageHref(pages.refdata, item.iri) }],
                    ]),
                  )
            }</section>`,
        )}${more(count, items.length)}`;
  return html`<p id="change-counts">${String(counts.added)} added, ${String(counts.deprecated)} deprecated, ${String(counts.changed)} changed, ${String(counts.removed)} removed.</p>
${plainList('added', 'Added', result.added, counts.added)}
${withFields('deprecated', 'Deprecated', result.deprecated, counts.deprecated)}
${withFields('changed', 'Changed', result.changed, counts.changed)}
${plainList('removed', 'Removed', result.removed, counts.removed)}`;
}

/** The address of the changes between two sides. */
export function changesHref(library: string, from: string, to?: string): string {
  return `/releases/changes?${new URLSearchParams({ library, from, ...(to ? { to } : {}) })}`;
}

/**
 * Release pages: a release at its IRI (notes, files with their checksums, the
 * changes from the one before), its files and DCAT for browsers, the latest,
 * the changes between two releases, and the form that releases a library
 * (on its page, for a Reviewer or its author), which shows the quality
 * report's errors when it is refused.
 */
export function registerReleasePages(app: HttpApp, pages: Pages): void {
  const { refdata } = pages;

  app.get(
    '/ontology/:library/releases/latest',
    {
      schema: { params: Type.Object({ library: Type.String({ maxLength: 255 }) }) },
      ...PAGE_CONSTRAINT,
    },
    (request, reply) => redirectToLatest(refdata, request, reply, request.params.library),
  );

  app.get(
    '/ontology/:library/releases/:version/files/:name',
    {
      schema: {
        params: Type.Object({
          library: Type.String({ maxLength: 255 }),
          version: Type.String({ maxLength: MAX_VERSION_LENGTH }),
          name: Type.String({ maxLength: 400 }),
        }),
        querystring: DOWNLOAD_QUERY,
      },
      ...PAGE_CONSTRAINT,
    },
    (request, reply) => sendReleaseFile(refdata, request, reply, request.params),
  );

  app.get(
    '/ontology/:library/releases/:version/dcat',
    { schema: { params: RELEASE_PARAMS, querystring: DOWNLOAD_QUERY }, ...PAGE_CONSTRAINT },
    async (request, reply) => {
      const { format } = request.query;
      if (format === undefined)
        return dcatPage(request, reply, await releaseAt(refdata, request.params));
      // A link of the page names the format to save.
      const mediaType = RDF_MEDIA_TYPES.find((type) => RDF_FORMATS[type].shortName === format);
      if (!mediaType)
        throw new HttpError(
          problem(
            400,
            'validation',
            `format must be one of ${RDF_MEDIA_TYPES.map((type) => RDF_FORMATS[type].shortName).join(', ')}.`,
          ),
        );
      return sendDcat(refdata, request, reply, request.params, mediaType);
    },
  );

  /**
   * A release's DCAT description as people read it: what DCAT is for, the
   * dataset and its distributions, and the description itself in each RDF
   * format for the catalogues that harvest it.
   */
  const dcatPage = async (request: FastifyRequest, reply: FastifyReply, release: ReleaseRow) => {
    const [json, library] = await Promise.all([
      releaseJson(refdata, release, true),
      refdata.store.findByIri(release.library_iri),
    ]);
    const libraryName = library?.name ?? release.library_iri;
    const path = new URL(json.links.dcat).pathname;
    return pages.answer(
      request,
      reply,
      200,
      { title: `DCAT description of ${libraryName} ${release.version}`, wide: true },
      html`<p>DCAT, the W3C's Data Catalog Vocabulary, describes <a href="${releasePath(refdata, release.iri)}">release ${release.version} of ${libraryName}</a> as a dataset, so that data catalogues (CKAN, data.europa.eu and any other DCAT harvester) can list it: its title, version and date, and each file as a distribution with its media type, size and SHA-256 checksum. People download the files from the release's page; catalogues read this description.</p>
<h2>The dataset</h2>
<dl class="details"><dt>Title</dt><dd>${libraryName} ${release.version}</dd><dt>Identifier</dt><dd>${copyable('iri', release.iri, { className: 'iri', label: 'Copy IRI' })}</dd><dt>Issued</dt><dd>${json.releasedAt.slice(0, 10)}</dd><dt>Resources</dt><dd>${Number(release.resource_count).toLocaleString('en')}</dd></dl>
<h2 id="distributions">Distributions</h2>
${filesTable(json.files, "The release's distributions")}
<h2 id="for-machines">The description for machines</h2>
<p>The same description, as RDF: ${RDF_MEDIA_TYPES.filter(
        (type) => FORMAT_LABELS[type] !== undefined,
      ).map(
        (type, index) =>
          html`${index > 0 ? ', ' : ''}<a href="${path}?format=${RDF_FORMATS[type].shortName}" download>${FORMAT_LABELS[type]}</a>`,
      )}. A program that asks this address for an RDF media type (<code>Accept: text/turtle</code>) is given it directly.</p>`,
    );
  };

  app.get(
    '/ontology/:library/releases/:version',
    { schema: { params: RELEASE_PARAMS }, ...PAGE_CONSTRAINT },
    async (request, reply) => {
      const release = await releaseAt(refdata, request.params);
      return releasePage(request, reply, release);
    },
  );

  /** What the page shows of the changes from the release before: worked out once, then kept. */
  const changesFromPrevious = async (
    previous: ReleaseRow,
    release: ReleaseRow,
  ): Promise<ChangeSummary> => {
    const kept = await refdata.releases.changesSummary(release.id);
    if (kept !== undefined) return JSON.parse(kept) as ChangeSummary;
    const summary = summarize(await differences(refdata, previous, release), LISTED);
    await refdata.releases.keepChangesSummary(release.id, JSON.stringify(summary));
    return summary;
  };

  const releasePage = async (request: FastifyRequest, reply: FastifyReply, release: ReleaseRow) => {
    const [json, library, previous, latest] = await Promise.all([
      releaseJson(refdata, release, true),
      refdata.store.findByIri(release.library_iri),
      refdata.releases.previous(release),
      refdata.releases.latest(release.library_iri),
    ]);
    const people = await pages.people.lookUp([release.released_by]);
    const libraryName = library?.name ?? release.library_iri;
    const libraryHref = pageHref(refdata, release.library_iri);
    const changes = previous ? await changesFromPrevious(previous, release) : undefined;
    const now = Date.now();
    return pages.answer(
      request,
      reply,
      200,
      { title: `${libraryName} ${release.version}`, wide: true },
      html`<p><span class="status status-Approved">Release ${release.version}</span>${
        latest?.id === release.id ? html` <span class="hint">the latest</span>` : html``
      } of ${libraryHref ? html`<a href="${libraryHref}#releases">${libraryName}</a>` : html`${libraryName}`}</p>
<p>IRI: ${copyable('iri', release.iri, { className: 'iri', label: 'Copy IRI' })}</p>
<p>Released ${timeTag(Number(release.released_at), now)} by ${people.label(release.released_by)}: ${Number(release.resource_count).toLocaleString('en')} resources (the library, its published terms and their values).</p>
<h2>Notes</h2>
<p class="notes">${release.notes}</p>
<h2 id="files">Files</h2>
<p>Each file is the same bytes for as long as the release lives; its SHA-256 checks it.</p>
${filesTable(json.files, "The release's files")}
<p><a href="${new URL(json.links.dcat).pathname}">Its DCAT description</a>, for data catalogues</p>
<h2 id="changes">${previous ? html`Changes from ${previous.version}` : html`Changes`}</h2>
${
  previous && changes
    ? differencesMarkup(
        pages,
        changes,
        changesHref(release.library_iri, previous.version, release.version),
      )
    : html`<p>This is the library's first release.</p>`
}`,
    );
  };

  app.get(
    '/releases/changes',
    { schema: { querystring: CHANGES_QUERY }, ...PAGE_CONSTRAINT },
    async (request, reply) => {
      const { library, from, to } = request.query;
      const row = await refdata.store.findByIri(library);
      if (!row || !isLibrary(row))
        throw new HttpError(problem(404, 'not-found', `No library has the IRI ${library}.`));
      const sides = await sidesOf(refdata, library, from, to);
      const result = await differences(refdata, sides.from, sides.to);
      const later = sides.to ? sides.to.version : "today's published view";
      return pages.answer(
        request,
        reply,
        200,
        { title: `${row.name}: changes from ${from} to ${later}`, wide: true },
        html`<p>What changed in <a href="${pageHref(refdata, row.iri) ?? '/'}#releases">${row.name}</a> from <a href="${releasePath(refdata, sides.from.iri)}">${from}</a> to ${
          sides.to
            ? html`<a href="${releasePath(refdata, sides.to.iri)}">${later}</a>`
            : html`${later}`
        }. A resource that is changed once published is replaced: it shows as deprecated, with what differs in its replacement.</p>
<h2>What changed</h2>
${differencesMarkup(pages, summarize(result, LISTED), undefined)}`,
      );
    },
  );

  app.get(
    '/releases/new',
    {
      config: { viewers: RELEASING_A_LIBRARY },
      schema: {
        querystring: Type.Object(
          { library: Type.String({ minLength: 1, maxLength: 2048 }) },
          { additionalProperties: false },
        ),
      },
    },
    async (request, reply) => {
      const library = await refdata.store.findByIri(request.query.library);
      if (!library || !isLibrary(library))
        throw new HttpError(problem(404, 'not-found', 'There is no library to release here.'));
      const viewer = pages.signedInViewer(request);
      if (!mayRelease(viewer, library)) throw new HttpError(problem(403, 'forbidden', RELEASED_BY));
      const report = await qualityReport(refdata, { kind: 'release', library });
      return releaseForm(request, reply, library, { version: '', notes: '' }, {}, report, 200);
    },
  );

  app.post(
    '/releases/new',
    { config: { viewers: RELEASING_A_LIBRARY } },
    async (request, reply) => {
      const fields = formFieldsOf(request.body);
      const library = await refdata.store.findByIri(fields.get('library') ?? '');
      if (!library || !isLibrary(library))
        throw new HttpError(problem(404, 'not-found', 'There is no library to release here.'));
      const viewer = pages.signedInViewer(request);
      const version = (fields.get('version') ?? '').trim();
      const notes = (fields.get('notes') ?? '').trim();
      const errors: FieldErrors = {};
      if (version === '') errors.version = 'Give the version, such as 1.0.0.';
      if (notes === '') errors.notes = 'Say what the release brings.';
      if (Object.keys(errors).length > 0)
        return releaseForm(request, reply, library, { version, notes }, errors, undefined, 400);
      try {
        const release = await makeRelease(refdata, { library, version, notes, principal: viewer });
        return reply.redirect(releasePath(refdata, release.iri), 303);
      } catch (error) {
        if (error instanceof ReleaseRefused) {
          for (const entry of error.errors)
            errors[entry.field.slice(1)] = `This version ${entry.detail}.`;
          return releaseForm(request, reply, library, { version, notes }, errors, undefined, 400);
        }
        if (error instanceof ReleaseBlocked)
          return releaseForm(request, reply, library, { version, notes }, {}, error.report, 409);
        if (error instanceof ReleaseConflict)
          return releaseForm(
            request,
            reply,
            library,
            { version, notes },
            { version: error.message },
            undefined,
            409,
          );
        if (error instanceof ReleaseForbidden)
          throw new HttpError(problem(403, 'forbidden', RELEASED_BY));
        throw error;
      }
    },
  );

  /** The form refused: what was typed, what is wrong, and the report's findings when it blocked. */
  const releaseForm = async (
    request: FastifyRequest,
    reply: FastifyReply,
    library: ResourceRow,
    input: { version: string; notes: string },
    errors: FieldErrors,
    report: QualityReport | undefined,
    status: number,
  ) => {
    const summary =
      errorSummary(errors) ??
      (report && status === 409
        ? `Not released: the quality report finds ${report.errors === 1 ? 'an error. Mend it' : `${String(report.errors)} errors. Mend them`}, then release again.`
        : undefined);
    return pages.answer(
      request,
      reply,
      status,
      {
        title: `Release ${library.name}`,
        wide: true,
        ...(summary ? { notice: { kind: 'error', text: summary } } : {}),
      },
      html`<p>A release takes <a href="${pageHref(refdata, library.iri) ?? '/'}">${library.name}</a> and its Approved and Deprecated terms as they are now, for good: its files never change, and later changes go into the next release. It is refused while the quality report finds an error.</p>
${report ? html`<h2>Quality report</h2>${findingsTable(pages, request, report, 'Findings before this release')}` : html``}
<h2>Release</h2>
${await releaseFormMarkup(pages, request, reply, library, input, errors)}`,
    );
  };
}

/** The form that releases a library, for those who may. */
export async function releaseFormMarkup(
  pages: Pages,
  request: FastifyRequest,
  reply: FastifyReply,
  library: ResourceRow,
  input: { version: string; notes: string },
  errors: FieldErrors = {},
): Promise<Markup> {
  const session = await pages.ensureSession(request, reply);
  const latest = await pages.refdata.releases.latest(library.iri);
  return html`<form method="post" action="/releases/new" class="authoring" id="release-form">${csrfField(session.data.csrf)}
<input type="hidden" name="library" value="${library.iri}">
${textField({ name: 'version', label: 'Version', value: input.version, error: errors.version, maxLength: MAX_VERSION_LENGTH, required: true, hint: `A semantic version, such as 1.0.0${latest ? `, after the latest release, ${latest.version}` : ''}.` })}
${textField({ name: 'notes', label: 'Release notes', value: input.notes, error: errors.notes, maxLength: 20000, required: true, multiline: true, hint: 'What the release brings, for the people who use the library.' })}
<p class="actions"><button type="submit" class="primary">Release</button></p>
</form>`;
}

/** Whether the viewer of a page may release this library. */
export function viewerMayRelease(pages: Pages, request: FastifyRequest, library: ResourceRow) {
  const viewer = pages.viewerOf(request);
  return viewer !== undefined && mayRelease(viewer, library);
}
