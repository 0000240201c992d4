import multipart from '@fastify/multipart';
import { Type } from '@sinclair/typebox';
import type { FastifyRequest } from 'fastify';
import { type FieldError, HttpError, validationProblem } from '../../platform/http/problem.js';
import type { HttpApp } from '../../platform/http/server.js';
import { principalOf } from '../auth/authenticate.js';
import { READ_ROLES, WRITE_ROLES } from '../auth/roles.js';
import type { Refdata } from '../context.js';
import { problems } from '../described-responses.js';
import { isLibrary } from '../families/family.js';
import { problem } from '../problem-codes.js';
import { ENCODINGS } from './csv-table.js';
import { exportTables, tablesAsWorkbook, tablesAsZip } from './export.js';
import { ImportRunning } from './jobs.js';
import type { UploadedFile } from './sources.js';
import { reportCsv, statusJson } from './status.js';
import { FIELDS, readTables, settingsOf } from './upload-rules.js';

const XLSX = 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet';
const ID = Type.Object({ id: Type.Integer({ minimum: 1, maximum: 2 ** 31 - 1 }) });
const MAX_FILES = 50;

/**
 * Bulk imports (docs/import.md): `POST /imports` takes the files and answers
 * 202 with the job's address at once; the job runs in the background on
 * whichever instance claims it; `GET` on it tells its progress and outcome,
 * and `/report` gives every line of its report as CSV.
 */
export function registerImportRoutes(app: HttpApp, refdata: Refdata): void {
  const { imports } = refdata;
  const limit = imports.settings.maxUploadBytes;
  const tags = ['imports'];
  const owned = async (request: FastifyRequest, id: number) => {
    const job = await imports.find(principalOf(request).subject, id);
    if (!job) throw new HttpError(problem(404, 'not-found', `You have no import ${id}.`));
    return job;
  };

  app.register(async (scope: HttpApp) => {
    await scope.register(multipart, {
      limits: {
        fileSize: limit,
        files: MAX_FILES,
        fields: FIELDS.length * 2,
        fieldSize: 4096,
        parts: MAX_FILES + FIELDS.length * 2,
      },
    });
    scope.post('/imports', {
      schema: {
        summary: 'Import files into a library, in the background',
        description: `multipart/form-data: \`file\` (one or more CSV or .xlsx files: the CFIHOS tables), \`library\` (the target library's IRI), \`dryRun\` (true: report only), \`mode\` (all-or-nothing, the default, or valid-only), \`encoding\` (${ENCODINGS.join(', ')}; detected when left out). At most ${limit} bytes in all. Answers 202 with the job's address; docs/import.md.`,
        tags,
        response: {
          202: {
            description: 'Accepted; Location names the job, whose status GET tells',
            headers: { location: { type: 'string' } },
            content: { 'application/json': { schema: Type.Unknown() } },
          },
          ...problems(400, 401, 403, 409, 413, 415),
        },
      },
      config: { access: { roles: WRITE_ROLES } },
      handler: async (request, reply) => {
        if (!request.isMultipart())
          throw new HttpError(
            problem(415, 'unsupported-media-type', 'Send the files as multipart/form-data.'),
          );
        const fields = new Map<string, string>();
        const files: UploadedFile[] = [];
        const errors: FieldError[] = [];
        let total = 0;
        try {
          for await (const part of request.parts()) {
            if (part.type === 'file') {
              if (part.fieldname !== 'file') {
                errors.push({
                  in: 'body',
                  field: `/${part.fieldname}`,
                  detail: 'is not a field of an import; files go in "file"',
                });
                await part.toBuffer();
                continue;
              }
              const bytes = await part.toBuffer();
              total += bytes.length;
              if (total > limit) throw tooLarge(limit);
              files.push({ name: (part.filename || 'upload').slice(0, 255), bytes });
            } else if (!(FIELDS as readonly string[]).includes(part.fieldname)) {
              errors.push({
                in: 'body',
                field: `/${part.fieldname}`,
                detail: `is not a field of an import (${FIELDS.join(', ')}, file)`,
              });
            } else if (fields.has(part.fieldname)) {
              errors.push({ in: 'body', field: `/${part.fieldname}`, detail: 'is given twice' });
            } else fields.set(part.fieldname, String(part.value));
          }
        } catch (error) {
          throw uploadProblem(error, limit);
        }
        const checked = settingsOf(fields);
        errors.push(...checked.errors);
        if (files.length === 0)
          errors.push({
            in: 'body',
            field: '/file',
            detail: 'is required: one or more CSV or .xlsx files',
          });
        const read =
          files.length === 0 ? undefined : await readTables(files, checked.settings?.encoding);
        if (read && 'errors' in read) {
          if (read.tooLarge !== undefined)
            throw new HttpError(problem(413, 'payload-too-large', read.tooLarge));
          errors.push(...read.errors);
        }
        if (errors.length > 0 || !checked.settings || !read || 'errors' in read)
          throw new HttpError(validationProblem(errors));
        const library = await refdata.store.findByIri(checked.settings.library);
        if (!library || !isLibrary(library))
          throw new HttpError(
            validationProblem([
              { in: 'body', field: '/library', detail: 'must be the IRI of an existing library' },
            ]),
          );
        try {
          const job = await imports.create(
            { ...checked.settings, owner: principalOf(request).subject, files },
            read,
          );
          imports.nudge();
          const json = statusJson(job, refdata.publicUrl);
          return reply.status(202).header('location', json.links.self).send(json);
        } catch (error) {
          if (error instanceof ImportRunning)
            throw new HttpError(problem(409, 'import-running', error.message));
          throw error;
        }
      },
    });
  });

  app.get('/exports', {
    schema: {
      summary: "A library's resources as the CFIHOS tables",
      description:
        'The tables an import reads, so that importing them again changes nothing: CSV files in a ZIP archive (format=zip, the default) or the sheets of one workbook (format=xlsx). Drafts included, so a token with any role is needed. docs/import.md#export',
      tags,
      querystring: Type.Object(
        {
          library: Type.String({ minLength: 1, maxLength: 2048, description: "The library's IRI" }),
          format: Type.Optional(Type.Union([Type.Literal('zip'), Type.Literal('xlsx')])),
        },
        { additionalProperties: false },
      ),
      produces: ['application/zip', XLSX],
      response: {
        200: {
          description: 'The tables, as an attachment',
          content: {
            'application/zip': {
              schema: Type.Unsafe<Buffer>({ type: 'string', format: 'binary' }),
            },
            [XLSX]: { schema: Type.Unsafe<Buffer>({ type: 'string', format: 'binary' }) },
          },
        },
        ...problems(400, 401, 403, 404),
      },
    },
    config: { access: { roles: READ_ROLES } },
    handler: async (request, reply) => {
      const library = await refdata.store.findByIri(request.query.library);
      if (!library || !isLibrary(library))
        throw new HttpError(
          problem(404, 'not-found', `No library has the IRI ${request.query.library}.`),
        );
      const tables = await exportTables(refdata, library);
      const path = library.iri.slice(library.iri.lastIndexOf('/') + 1) || 'library';
      const xlsx = request.query.format === 'xlsx';
      return reply
        .header('content-type', xlsx ? XLSX : 'application/zip')
        .header('content-disposition', `attachment; filename="${path}.${xlsx ? 'xlsx' : 'zip'}"`)
        .send(xlsx ? await tablesAsWorkbook(tables) : await tablesAsZip(tables));
    },
  });

  app.get('/imports', {
    schema: {
      summary: 'Your imports, the latest first',
      tags,
      response: { 200: Type.Unknown(), ...problems(401, 403) },
    },
    config: { access: { roles: WRITE_ROLES } },
    handler: async (request) =>
      (await imports.list(principalOf(request).subject)).map((job) =>
        statusJson(job, refdata.publicUrl),
      ),
  });

  app.get('/imports/:id', {
    schema: {
      summary: "An import's state, progress and outcome",
      description:
        'While it runs: rows done, rows per second and time left; once it has ended: the counts and the refused lines.',
      tags,
      params: ID,
      response: { 200: Type.Unknown(), ...problems(400, 401, 403, 404) },
    },
    config: { access: { roles: WRITE_ROLES } },
    handler: async (request) =>
      statusJson(await owned(request, request.params.id), refdata.publicUrl, { withRefused: true }),
  });

  app.get('/imports/:id/report', {
    schema: {
      summary: "An import's report, every line, as CSV",
      tags,
      params: ID,
      produces: ['text/csv'],
      response: {
        200: {
          description:
            'One line per record: file, line, column, outcome, family, IRI, name, messages, what was not kept',
          content: { 'text/csv': { schema: Type.String() } },
        },
        ...problems(400, 401, 403, 404),
      },
    },
    config: { access: { roles: WRITE_ROLES } },
    handler: async (request, reply) => {
      const job = await owned(request, request.params.id);
      return reply
        .header('content-type', 'text/csv; charset=utf-8')
        .header('content-disposition', `attachment; filename="import-${job.id}-report.csv"`)
        .send(reportCsv((await imports.report(job.owner, job.id)) ?? null));
    },
  });
}

function tooLarge(limit: number): HttpError {
  return new HttpError(
    problem(
      413,
      'payload-too-large',
      `The files are larger than this service takes in one import (${limit} bytes).`,
    ),
  );
}

/** What a failed multipart upload is answered with: too large, or not a whole form. */
function uploadProblem(error: unknown, limit: number): unknown {
  if (error instanceof HttpError) return error;
  const code = (error as { code?: unknown }).code;
  if (code === 'FST_REQ_FILE_TOO_LARGE') return tooLarge(limit);
  if (code === 'FST_FILES_LIMIT' || code === 'FST_PARTS_LIMIT' || code === 'FST_FIELDS_LIMIT')
    return new HttpError(
      problem(413, 'payload-too-large', `An import takes at most ${MAX_FILES} files.`),
    );
  return new HttpError(
    problem(
      400,
      'malformed-body',
      'The upload is not a whole multipart/form-data body (was it cut short?).',
    ),
  );
}
