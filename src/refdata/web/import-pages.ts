import multipart from '@fastify/multipart';
import { Type } from '@sinclair/typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { HttpError } from '../../platform/http/problem.js';
import type { HttpApp } from '../../platform/http/server.js';
import { type FieldErrors, fieldError } from '../../platform/web/forms.js';
import { html, type Markup, timeTag } from '../../platform/web/html.js';
import { csrfField, type Notice } from '../../platform/web/layout.js';
import { WRITE_ROLES } from '../auth/roles.js';
import { ENCODINGS } from '../imports/csv-table.js';
import { FilesGone, type ImportJobRow, ImportRunning } from '../imports/jobs.js';
import type { Counts, ReportEntry } from '../imports/plan.js';
import type { UploadedFile } from '../imports/sources.js';
import { progressOf, reportCsv, summaryLine } from '../imports/status.js';
import { readTables, settingsOf } from '../imports/upload-rules.js';
import { problem } from '../problem-codes.js';
import { pageHref } from './links.js';
import type { Pages } from './pages.js';
import { libraryDraftsOffer } from './review/library-submission.js';
import type { Viewer } from './session.js';

/** Who may see these pages (the API's rule for the same resources). */
const IMPORTERS = { roles: WRITE_ROLES, doing: 'Importing' } as const;

const BASE = '/account/imports';
const ID_PARAMS = Type.Object({ id: Type.Integer({ minimum: 1, maximum: 2 ** 31 - 1 }) });
export const IMPORT_SCRIPT_PATH = '/assets/import-progress.js';
/** Refused lines a finished import's page lists; the report has them all. */
const LISTED = 100;

const STATE_WORDS = {
  queued: 'Waiting to start',
  checking: 'Checking',
  writing: 'Writing',
  done: 'Done',
  failed: 'Failed',
} as const;

const OUTCOME_WORDS: Record<keyof Counts, string> = {
  created: 'Created',
  updated: 'Updated',
  unchanged: 'Unchanged',
  refused: 'Refused',
};

/**
 * With script, a running import's page updates in place: it reads the page
 * again every second and a half and swaps in its progress, until the import
 * has ended, when the whole page is read once more.
 */
const IMPORT_SCRIPT = `const section = document.getElementById('import-progress');
if (section && section.dataset.running === 'true') {
  const tick = async () => {
    const response = await fetch(location.href, { headers: { accept: 'text/html' } });
    if (!response.ok) return;
    const page = new DOMParser().parseFromString(await response.text(), 'text/html');
    const next = page.getElementById('import-progress');
    if (!next || next.dataset.running !== 'true') {
      location.reload();
      return;
    }
    section.querySelector('progress')?.setAttribute('value', next.querySelector('progress')?.getAttribute('value') ?? '0');
    const words = section.querySelector('.progress-words');
    const nextWords = next.querySelector('.progress-words');
    if (words && nextWords) words.textContent = nextWords.textContent;
    setTimeout(tick, 1500);
  };
  setTimeout(tick, 1500);
}
`;

/** Where the files of a page's upload are kept until its handler takes them. */
const uploads = new WeakMap<FastifyRequest, UploadedFile[]>();

/**
 * The import pages under /account/imports (docs/import.md): a form that
 * uploads files into a library, checking first or importing at once; each
 * import's page with its progress while it runs (script updates it in place;
 * without script it reloads itself) and its report once it has ended, with
 * "Import these files" after a check; the report as CSV. The same rules as
 * `POST /imports`.
 */
export function registerImportPages(app: HttpApp, pages: Pages): void {
  const refdata = pages.refdata;
  const { imports } = refdata;
  const owned = async (viewer: Viewer, id: number): Promise<ImportJobRow> => {
    const job = await imports.find(viewer.subject, id);
    if (!job) throw new HttpError(problem(404, 'not-found', 'You have no import at this address.'));
    return job;
  };

  app.get(
    IMPORT_SCRIPT_PATH,
    { schema: { hide: true }, config: { open: true } },
    async (_request, reply) =>
      reply
        .type('text/javascript')
        .header('cache-control', 'public, max-age=3600')
        .send(IMPORT_SCRIPT),
  );

  const form = async (
    request: FastifyRequest,
    reply: FastifyReply,
    values: Record<string, string>,
    errors: FieldErrors,
  ): Promise<Markup> => {
    const session = await pages.ensureSession(request, reply);
    const libraries = await refdata.store.libraries();
    const chosen = values.library ?? '';
    const mode = values.mode ?? 'all-or-nothing';
    const describedBy = (name: string, hint = true) =>
      [hint ? `${name}-hint` : '', errors[name] ? `${name}-error` : ''].filter(Boolean).join(' ');
    return html`<form method="post" action="${BASE}/new" enctype="multipart/form-data" class="authoring">${csrfField(session.data.csrf)}
<div class="field"><label for="library">Library</label>
<select id="library" name="library" required aria-describedby="${describedBy('library')}"><option value="">Choose a library</option>${libraries.map(
      (library) =>
        html`<option value="${library.iri}"${library.iri === chosen ? html` selected` : html``}>${library.name}</option>`,
    )}</select>
<p class="hint" id="library-hint">The resources are made as Drafts of this library.</p>${fieldError(errors.library ? 'library-error' : undefined, errors.library)}</div>
<div class="field"><label for="file">Files</label>
<input type="file" id="file" name="file" multiple required accept=".csv,.xlsx,.zip,.ttl,.nt,.rdf,.owl,.jsonld,text/csv" aria-describedby="${describedBy('file')}">
<p class="hint" id="file-hint">The CFIHOS tables as CSV files, an Excel workbook with a sheet per table or a ZIP archive of CSV files; or a library's RDF as refdata writes it (Turtle, N-Triples, RDF/XML, JSON-LD). At most ${String(Math.floor(imports.settings.maxUploadBytes / (1024 * 1024)))} MB in all.</p>${fieldError(errors.file ? 'file-error' : undefined, errors.file)}</div>
<div class="field"><label for="encoding">Encoding of CSV files</label>
<select id="encoding" name="encoding" aria-describedby="encoding-hint"><option value="">Detect it</option>${ENCODINGS.map(
      (encoding) =>
        html`<option value="${encoding}"${values.encoding === encoding ? html` selected` : html``}>${encoding}</option>`,
    )}</select>
<p class="hint" id="encoding-hint">A byte-order mark or valid UTF-8 says it; otherwise it is guessed (the CFIHOS files are Windows-1252).</p></div>
<fieldset class="group"><legend>When a line is refused</legend>
<div><input type="radio" id="mode-all" name="mode" value="all-or-nothing"${mode === 'all-or-nothing' ? html` checked` : html``}> <label class="inline" for="mode-all">Import nothing (all or nothing)</label></div>
<div><input type="radio" id="mode-valid" name="mode" value="valid-only"${mode === 'valid-only' ? html` checked` : html``}> <label class="inline" for="mode-valid">Import what is valid and report the rest</label></div>
${fieldError(errors.mode ? 'mode-error' : undefined, errors.mode)}</fieldset>
<p class="actions"><button type="submit" name="dryRun" value="true" class="primary">Check first</button> <button type="submit" name="dryRun" value="false">Import now</button> <a href="${BASE}">Cancel</a></p>
</form>`;
  };

  const formPage = async (
    request: FastifyRequest,
    reply: FastifyReply,
    values: Record<string, string>,
    errors: FieldErrors,
    status: number,
  ) => {
    const messages = Object.values(errors).filter(Boolean);
    return pages.answer(
      request,
      reply,
      status,
      {
        title: 'New import',
        notice:
          messages.length > 0
            ? { kind: 'error', text: `The import cannot start: ${messages.join(' ')}` }
            : undefined,
      },
      await form(request, reply, values, errors),
    );
  };

  app.get(BASE, { config: { viewers: IMPORTERS } }, async (request, reply) => {
    const viewer = pages.signedInViewer(request);
    const jobs = await imports.list(viewer.subject);
    const names = new Map(
      (await refdata.store.libraries()).map((library) => [library.iri, library.name]),
    );
    const now = Date.now();
    return pages.answer(
      request,
      reply,
      200,
      { title: 'Imports', wide: true },
      html`<p>An import makes Drafts of a library from the CFIHOS tables (CSV files or an Excel workbook). Check first: the report says, line by line, what would be created, updated, left unchanged or refused, and why.</p>
<p><a class="button" href="${BASE}/new">New import</a></p>
${
  jobs.length === 0
    ? html`<p>You have not imported anything yet.</p>`
    : html`<div class="table-scroll"><table><caption class="visually-hidden">Your imports</caption><thead><tr><th scope="col">Import</th><th scope="col">Library</th><th scope="col">State</th><th scope="col">Outcome</th><th scope="col">Started</th></tr></thead><tbody>${jobs.map(
        (job) =>
          html`<tr><td><a href="${BASE}/${String(job.id)}">${job.dry_run === 1 ? 'Check' : 'Import'} ${String(job.id)}</a></td><td>${names.get(job.library_iri) ?? job.library_iri}</td><td>${STATE_WORDS[job.state]}</td><td>${job.counts ? summaryLine(JSON.parse(job.counts) as Counts, job.written === 1) : ''}</td><td>${timeTag(Number(job.created_at), now)}</td></tr>`,
      )}</tbody></table></div>`
}`,
    );
  });

  app.get(`${BASE}/new`, { config: { viewers: IMPORTERS } }, async (request, reply) => {
    const library = (request.query as Record<string, unknown>).library;
    return formPage(request, reply, typeof library === 'string' ? { library } : {}, {}, 200);
  });

  // The upload is read before the page checks run (they need its form token).
  app.register(async (upload: HttpApp) => {
    // Who may not import is answered before a byte of the upload is read: the
    // surface checks a page's declared viewers when the request arrives.
    await upload.register(multipart, {
      attachFieldsToBody: 'keyValues',
      limits: { fileSize: imports.settings.maxUploadBytes, files: 50, fields: 12, fieldSize: 4096 },
      async onFile(this: FastifyRequest, part) {
        const list = uploads.get(this) ?? [];
        const bytes = await part.toBuffer();
        const total = list.reduce((sum, file) => sum + file.bytes.length, 0) + bytes.length;
        if (total > imports.settings.maxUploadBytes)
          throw new HttpError(
            problem(
              413,
              'payload-too-large',
              'The files are larger than one import takes; import them in parts.',
            ),
          );
        if (part.filename || bytes.length > 0)
          list.push({ name: (part.filename || 'upload').slice(0, 255), bytes });
        uploads.set(this, list);
      },
    });
    upload.post(`${BASE}/new`, { config: { viewers: IMPORTERS } }, async (request, reply) => {
      const viewer = pages.signedInViewer(request);
      const body = (request.body ?? {}) as Record<string, unknown>;
      const values: Record<string, string> = {};
      for (const name of ['library', 'dryRun', 'mode', 'encoding']) {
        if (typeof body[name] === 'string' && body[name] !== '')
          values[name] = body[name] as string;
      }
      const files = uploads.get(request) ?? [];
      const checked = settingsOf(new Map(Object.entries(values)));
      const errors: FieldErrors = {};
      for (const error of checked.errors) errors[error.field.slice(1)] ??= sentence(error.detail);
      // The API's words name the field; the form's say what to do.
      if (values.library === undefined) errors.library = 'Choose a library.';
      if (files.length === 0) errors.file = 'Choose one or more files.';
      const read =
        files.length === 0 ? undefined : await readTables(files, checked.settings?.encoding);
      if (read && 'errors' in read)
        errors.file ??= read.errors.map((error) => sentence(error.detail)).join(' ');
      const library = checked.settings
        ? await refdata.store.findByIri(checked.settings.library)
        : undefined;
      if (checked.settings && library?.family !== 'library') errors.library ??= 'Choose a library.';
      if (Object.keys(errors).length > 0 || !checked.settings || !read || 'errors' in read)
        return formPage(
          request,
          reply,
          values,
          errors,
          read && 'tooLarge' in read && read.tooLarge !== undefined ? 413 : 400,
        );
      try {
        const job = await imports.create(
          { ...checked.settings, owner: viewer.subject, files },
          read,
        );
        imports.nudge();
        return reply.redirect(`${BASE}/${String(job.id)}`, 303);
      } catch (error) {
        if (!(error instanceof ImportRunning)) throw error;
        return formPage(request, reply, values, { library: `${error.message}` }, 409);
      }
    });
  });

  app.get(
    `${BASE}/:id`,
    { config: { viewers: IMPORTERS }, schema: { params: ID_PARAMS } },
    async (request, reply) => {
      const viewer = pages.signedInViewer(request);
      const job = await owned(viewer, request.params.id);
      return jobPage(request, reply, job);
    },
  );

  app.post(
    `${BASE}/:id/run`,
    { config: { viewers: IMPORTERS }, schema: { params: ID_PARAMS } },
    async (request, reply) => {
      const viewer = pages.signedInViewer(request);
      const job = await owned(viewer, request.params.id);
      try {
        const run = await imports.rerun(job, false);
        imports.nudge();
        return reply.redirect(`${BASE}/${String(run.id)}`, 303);
      } catch (error) {
        if (!(error instanceof ImportRunning || error instanceof FilesGone)) throw error;
        return jobPage(request, reply, job, { kind: 'error', text: error.message }, 409);
      }
    },
  );

  app.get(
    `${BASE}/:id/report.csv`,
    { config: { viewers: IMPORTERS }, schema: { params: ID_PARAMS } },
    async (request, reply) => {
      const viewer = pages.signedInViewer(request);
      const job = await owned(viewer, request.params.id);
      return reply
        .type('text/csv; charset=utf-8')
        .header('content-disposition', `attachment; filename="import-${String(job.id)}-report.csv"`)
        .send(reportCsv((await imports.report(job.owner, job.id)) ?? null));
    },
  );

  const jobPage = async (
    request: FastifyRequest,
    reply: FastifyReply,
    job: ImportJobRow,
    notice?: Notice,
    status = 200,
  ) => {
    const session = await pages.ensureSession(request, reply);
    const library = await refdata.store.findByIri(job.library_iri);
    const libraryLink = library
      ? html`<a href="${pageHref(refdata, library.iri) ?? library.iri}">${library.name}</a>`
      : html`${job.library_iri}`;
    const running = job.state === 'queued' || job.state === 'checking' || job.state === 'writing';
    const progress = progressOf(job);
    const files = JSON.parse(job.files) as {
      name: string;
      encoding?: string;
      records: number;
      blankRecords: number;
    }[];
    const counts = job.counts ? (JSON.parse(job.counts) as Counts) : undefined;
    const refused =
      !running && job.refused_lines ? (JSON.parse(job.refused_lines) as ReportEntry[]) : [];
    const title = `${job.dry_run === 1 ? 'Check' : 'Import'} ${String(job.id)}`;
    const words =
      job.state === 'queued'
        ? 'Waiting for a worker to take it up.'
        : `${STATE_WORDS[job.state]} resources: ${progress.done.toLocaleString('en')} of ${progress.total.toLocaleString('en')} (${String(progress.percent)} %)${progress.rowsPerSecond === null ? '' : `, ${progress.rowsPerSecond.toLocaleString('en')} a second, about ${String(progress.secondsLeft)} s left`}.`;
    const outcome = job.error
      ? ({ kind: 'error', text: job.error } as Notice)
      : job.state === 'done'
        ? ({
            kind: 'ok',
            text:
              job.dry_run === 1
                ? 'Checked; nothing was written.'
                : job.written === 1
                  ? 'Imported.'
                  : 'Nothing needed writing.',
          } as Notice)
        : undefined;
    // Written Drafts wait for review: the next step, offered where the import ends.
    const reviewOffer =
      !running && job.written === 1 && library
        ? html`<h2 id="next-step">Next: review</h2><p>What the import made are Drafts. Once a Reviewer approves them they are published, and the library can be released.</p>${await libraryDraftsOffer(pages, request, library)}`
        : html``;
    return pages.answer(
      request,
      reply,
      status,
      {
        title,
        wide: true,
        notice: notice ?? outcome,
        ...(running ? { refreshSeconds: 3, scripts: [IMPORT_SCRIPT_PATH] } : {}),
      },
      html`<p>${job.dry_run === 1 ? 'Checking' : 'Importing'} ${String(files.length)} ${files.length === 1 ? 'file' : 'files'} into ${libraryLink}; ${job.mode === 'all-or-nothing' ? 'all or nothing' : 'what is valid, reporting the rest'}.</p>
${
  running
    ? html`<section id="import-progress" data-running="true" aria-labelledby="progress-label"><h2 id="progress-label">Progress</h2>
<progress max="100" value="${String(progress.percent)}" aria-describedby="progress-words">${String(progress.percent)} %</progress>
<p class="progress-words" id="progress-words" role="status">${words}</p>
<p class="hint">This page follows the import as it runs; you may close it and come back from Imports.</p></section>`
    : html`<section id="import-progress" data-running="false"><h2>Outcome</h2>${
        counts
          ? html`<table class="counts"><caption class="visually-hidden">Lines by outcome</caption><tbody>${(
              Object.keys(OUTCOME_WORDS) as (keyof Counts)[]
            ).map(
              (key) =>
                html`<tr><th scope="row">${OUTCOME_WORDS[key]}</th><td>${counts[key].toLocaleString('en')}</td></tr>`,
            )}</tbody></table>
<p><a href="${BASE}/${String(job.id)}/report.csv" download>Download the report (CSV, every line)</a></p>
${reviewOffer}`
          : html``
      }${
        job.dry_run === 1 && job.state === 'done'
          ? html`<form method="post" action="${BASE}/${String(job.id)}/run">${csrfField(session.data.csrf)}<p><button type="submit" class="primary">Import these files</button> the same way.</p></form>`
          : html``
      }</section>`
}
<h2>Files</h2>
<ul>${files.map(
        (file) =>
          html`<li>${file.name}: ${file.records.toLocaleString('en')} records${file.blankRecords > 0 ? html`, ${String(file.blankRecords)} blank rows left out` : html``}${file.encoding ? html`, read as ${file.encoding}` : html``}</li>`,
      )}</ul>
${
  refused.length === 0
    ? html``
    : html`<h2>Refused lines</h2>${(counts?.refused ?? 0) > LISTED ? html`<p>The first ${String(LISTED)} of ${(counts?.refused ?? 0).toLocaleString('en')}; the report has them all.</p>` : html``}
<div class="table-scroll"><table><caption class="visually-hidden">Refused lines</caption><thead><tr><th scope="col">File</th><th scope="col">Line</th><th scope="col">Column</th><th scope="col">Name</th><th scope="col">Why</th></tr></thead><tbody>${refused
        .slice(0, LISTED)
        .map(
          (entry) =>
            html`<tr><td>${entry.source}</td><td>${String(entry.line)}</td><td>${entry.column === null ? '' : String(entry.column)}</td><td>${entry.name}</td><td>${entry.messages.join('; ')}</td></tr>`,
        )}</tbody></table></div>`
}`,
    );
  };
}

/** A rule's words as a sentence on a page. */
function sentence(detail: string): string {
  const text = `${detail.charAt(0).toUpperCase()}${detail.slice(1)}`;
  return /[.!?]$/.test(text) ? text : `${text}.`;
}
