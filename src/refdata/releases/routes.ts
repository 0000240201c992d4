import { createGunzip } from 'node:zlib';
import { Type } from '@sinclair/typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { matchesIfNoneMatch } from '../../platform/http/conditional.js';
import { HttpError, validationProblem } from '../../platform/http/problem.js';
import type { HttpApp } from '../../platform/http/server.js';
import { principalOf } from '../auth/authenticate.js';
import { READ_ROLES, SUBMIT_ROLES } from '../auth/roles.js';
import type { Refdata } from '../context.js';
import { HEADERS, noContent, problems, rdfContent } from '../described-responses.js';
import { isLibrary } from '../families/family.js';
import { problem } from '../problem-codes.js';
import { negotiate, notAcceptable } from '../rdf/negotiation.js';
import { RDF_FORMATS, RDF_MEDIA_TYPES, type RdfMediaType } from '../rdf/serialize.js';
import { requiredText } from '../resources/text.js';
import { dcatQuads } from './dcat.js';
import { differences, differencesJson, differencesQuads } from './differences.js';
import { formatOfShortName, releaseFiles, shortNameOfFile } from './files.js';
import { releaseChunks } from './graph.js';
import { ReleaseJson, releaseJson } from './json.js';
import { makeRelease, ReleaseBlocked, ReleaseForbidden, ReleaseRefused } from './make.js';
import { ReleaseConflict, type ReleaseRow } from './store.js';
import { MAX_NOTES_LENGTH, MAX_VERSION_LENGTH, releasePath } from './versions.js';

const LIBRARY_QUERY = Type.Object(
  {
    library: Type.String({
      minLength: 1,
      maxLength: 2048,
      description: "The library's IRI, URL-encoded",
    }),
  },
  { additionalProperties: false },
);

const RELEASE_BODY = Type.Object(
  {
    version: Type.String({
      minLength: 1,
      maxLength: MAX_VERSION_LENGTH,
      description: 'A semantic version (semver.org) after the latest release, such as 1.0.0',
    }),
    notes: Type.String({
      minLength: 1,
      maxLength: MAX_NOTES_LENGTH,
      description: 'What the release brings, for the people who use the library',
    }),
  },
  { additionalProperties: false },
);

const RELEASE_PARAMS = Type.Object({
  library: Type.String({ maxLength: 255 }),
  version: Type.String({ maxLength: MAX_VERSION_LENGTH }),
});

/** What a release is offered as at its IRI: its description, then its content as RDF. */
const OFFERED = ['application/json', ...RDF_MEDIA_TYPES] as const;

/** The library a release path names, checked to be one. */
async function libraryOf(refdata: Refdata, name: string) {
  const iri = `${refdata.iriBase}/ontology/${name}`;
  const library = await refdata.store.findByIri(iri);
  if (!library || !isLibrary(library))
    throw new HttpError(problem(404, 'not-found', `No library has the IRI ${iri}.`));
  return library;
}

/** The release a path names, or 404. */
export async function releaseAt(
  refdata: Refdata,
  params: { library: string; version: string },
): Promise<ReleaseRow> {
  const library = await libraryOf(refdata, params.library);
  const release = await refdata.releases.find(library.iri, params.version);
  if (!release)
    throw new HttpError(
      problem(
        404,
        'not-found',
        `${library.iri} has no release ${params.version}; GET /releases?library= lists them.`,
      ),
    );
  return release;
}

/**
 * Library releases (docs/releases.md): `POST /releases` makes one, `GET
 * /releases` lists a library's; each is served at its IRI in every RDF format
 * (immutable, so cached for long), with its files and their DCAT description.
 */
export function registerReleaseRoutes(app: HttpApp, refdata: Refdata): void {
  const tags = ['releases'];

  app.post('/releases', {
    schema: {
      summary: "Release a library's published view",
      description:
        'Makes an immutable release of the library: the library and its Approved and Deprecated terms as they are now, with the version (semantic versioning, after the latest release) and notes given. A Reviewer, or the Creator who made the library, may. Answers 201 with its address.',
      tags,
      querystring: LIBRARY_QUERY,
      body: RELEASE_BODY,
      response: {
        201: {
          description: 'Released; Location is its IRI on this service',
          headers: { location: { type: 'string' } },
          content: { 'application/json': { schema: ReleaseJson } },
        },
        ...problems(400, 401, 403, 404, 409, 413, 415),
      },
    },
    config: { access: { roles: SUBMIT_ROLES } },
    handler: async (request, reply) => {
      const library = await refdata.store.findByIri(request.query.library);
      if (!library || !isLibrary(library))
        throw new HttpError(
          validationProblem([
            { in: 'query', field: 'library', detail: 'must be the IRI of an existing library' },
          ]),
        );
      const version = requiredText(request.body.version, '/version');
      const notes = requiredText(request.body.notes, '/notes');
      try {
        const release = await makeRelease(refdata, {
          library,
          version,
          notes,
          principal: principalOf(request),
        });
        const json = await releaseJson(refdata, release, true);
        return reply.status(201).header('location', json.links.self).send(json);
      } catch (error) {
        throw releaseProblem(error);
      }
    },
  });

  app.get('/releases', {
    schema: {
      summary: "A library's releases, the latest first",
      tags,
      querystring: LIBRARY_QUERY,
      response: {
        200: {
          description: 'Its releases',
          content: { 'application/json': { schema: Type.Array(ReleaseJson) } },
        },
        ...problems(400, 401, 403),
      },
    },
    config: { access: { roles: READ_ROLES } },
    handler: async (request) => {
      const releases = await refdata.releases.list(request.query.library);
      return Promise.all(releases.map((release) => releaseJson(refdata, release)));
    },
  });

  app.get('/releases/changes', {
    schema: {
      summary: 'What changed between two releases of a library, or since a release',
      description: `Resources added, changed (field by field), deprecated (with their replacements) and removed, from the release \`from\` to the release \`to\`, or to today's published view when \`to\` is left out. Content negotiation over application/json and ${RDF_MEDIA_TYPES.join(', ')}.`,
      tags,
      querystring: Type.Object(
        {
          library: LIBRARY_QUERY.properties.library,
          from: Type.String({ minLength: 1, maxLength: MAX_VERSION_LENGTH }),
          to: Type.Optional(Type.String({ minLength: 1, maxLength: MAX_VERSION_LENGTH })),
        },
        { additionalProperties: false },
      ),
      response: {
        200: {
          description: 'The differences',
          content: {
            'application/json': { schema: Type.Unknown() },
            ...rdfContent(),
          },
        },
        ...problems(400, 401, 403, 404, 406),
      },
    },
    config: { access: { roles: READ_ROLES } },
    handler: async (request, reply) => {
      const { library, from, to } = request.query;
      const sides = await sidesOf(refdata, library, from, to);
      const mediaType = negotiate(request.headers.accept, OFFERED);
      if (!mediaType) throw notAcceptable(OFFERED);
      reply.header('vary', 'Accept');
      const result = await differences(refdata, sides.from, sides.to);
      if (mediaType === 'application/json')
        return reply.type('application/json; charset=utf-8').send(differencesJson(result));
      const format = RDF_FORMATS[mediaType];
      return reply
        .type(format.contentType)
        .send(
          await format.write(
            differencesQuads(
              result,
              `${refdata.publicUrl}/releases/changes?${new URLSearchParams({ library, from, ...(to ? { to } : {}) })}`,
            ),
          ),
        );
    },
  });

  app.get('/ontology/:library/releases/latest', {
    schema: {
      summary: "A library's latest release: a redirect to it",
      tags,
      params: Type.Object({ library: Type.String({ maxLength: 255 }) }),
      response: {
        302: noContent('Location is the latest release'),
        ...problems(400, 401, 403, 404),
      },
    },
    config: { access: { roles: READ_ROLES } },
    handler: (request, reply) => redirectToLatest(refdata, request, reply, request.params.library),
  });

  app.get('/ontology/:library/releases/:version', {
    schema: {
      summary: 'A release: its description (JSON) or its content in any RDF format',
      description: `Content negotiation over ${OFFERED.join(', ')}. A release never changes.`,
      tags,
      params: RELEASE_PARAMS,
      response: {
        200: {
          description: 'The release in the representation the Accept header prefers',
          headers: { etag: HEADERS.etag },
          content: {
            'application/json': { schema: ReleaseJson },
            ...rdfContent(),
          },
        },
        304: noContent('The tag names this representation'),
        ...problems(400, 401, 403, 404, 406),
      },
    },
    config: { access: { roles: READ_ROLES } },
    handler: async (request, reply) => {
      const release = await releaseAt(refdata, request.params);
      const mediaType = negotiate(request.headers.accept, OFFERED);
      if (!mediaType) throw notAcceptable(OFFERED);
      reply.header('vary', 'Accept');
      if (mediaType === 'application/json')
        return reply
          .type('application/json; charset=utf-8')
          .send(await releaseJson(refdata, release, true));
      const format = RDF_FORMATS[mediaType];
      // The formats written as files are served as their stored bytes, whatever
      // this version of refdata would write now.
      if (formatOfShortName(format.shortName))
        return sendStoredFile(refdata, request, reply, release, mediaType, undefined);
      // TriG and N-Quads are written anew: the same triples, in today's spelling.
      const etag = `W/"${release.id}-${format.shortName}"`;
      reply.header('etag', etag).header('cache-control', `${cacheScope(refdata)}, max-age=86400`);
      if (matchesIfNoneMatch(request.headers['if-none-match'], etag))
        return reply.status(304).send();
      return reply.type(format.contentType).send(format.stream(releaseChunks(refdata, release)));
    },
  });

  app.get('/ontology/:library/releases/:version/dcat', {
    schema: {
      summary: "A release's DCAT description: a dcat:Dataset and its dcat:Distributions",
      tags,
      params: RELEASE_PARAMS,
      response: {
        200: {
          description: 'The description, in the RDF format the Accept header prefers',
          content: rdfContent(),
        },
        304: noContent('The tag names this representation'),
        ...problems(400, 401, 403, 404, 406),
      },
    },
    config: { access: { roles: READ_ROLES } },
    handler: (request, reply) => sendDcat(refdata, request, reply, request.params),
  });

  app.get('/ontology/:library/releases/:version/files/:name', {
    schema: {
      summary: "A release's file, the same bytes for as long as the release lives",
      description:
        'Sent gzip-encoded to a client that accepts gzip. The SHA-256 of the bytes is in the release description and its DCAT.',
      tags,
      params: Type.Object({
        library: Type.String({ maxLength: 255 }),
        version: Type.String({ maxLength: MAX_VERSION_LENGTH }),
        name: Type.String({ maxLength: 400 }),
      }),
      response: {
        200: {
          description: 'The file',
          headers: { etag: HEADERS.etag },
          content: rdfContent(),
        },
        304: noContent('The tag names this file'),
        ...problems(400, 401, 403, 404),
      },
    },
    config: { access: { roles: READ_ROLES } },
    handler: (request, reply) => sendReleaseFile(refdata, request, reply, request.params),
  });
}

/**
 * The two sides of a difference: the release \`from\` and the release \`to\`
 * (undefined: today's published view), which must come after it.
 */
export async function sidesOf(
  refdata: Refdata,
  libraryIri: string,
  from: string,
  to: string | undefined,
): Promise<{ from: ReleaseRow; to: ReleaseRow | undefined }> {
  const release = async (version: string, parameter: string) => {
    const found = await refdata.releases.find(libraryIri, version);
    if (!found)
      throw new HttpError(
        validationProblem([
          { in: 'query', field: parameter, detail: `names no release of ${libraryIri}` },
        ]),
      );
    return found;
  };
  const earlier = await release(from, 'from');
  const later = to === undefined ? undefined : await release(to, 'to');
  if (later && later.sequence <= earlier.sequence)
    throw new HttpError(
      validationProblem([
        { in: 'query', field: 'to', detail: `must be a release after ${earlier.version}` },
      ]),
    );
  return { from: earlier, to: later };
}

/** Shared caches may keep what anyone may read, and nothing else. */
function cacheScope(refdata: Refdata): 'public' | 'private' {
  return refdata.anonymousRead ? 'public' : 'private';
}

/** A release's representations never change: a long cache, and 304 for a tag held. */
function immutable(
  refdata: Refdata,
  request: FastifyRequest,
  reply: FastifyReply,
  etag: string,
): boolean {
  reply
    .header('etag', etag)
    .header('cache-control', `${cacheScope(refdata)}, max-age=31536000, immutable`);
  return matchesIfNoneMatch(request.headers['if-none-match'], etag);
}

/** A release's refusals as problems. */
export function releaseProblem(error: unknown): unknown {
  if (error instanceof ReleaseRefused)
    return new HttpError(
      validationProblem(error.errors.map((entry) => ({ in: 'body', ...entry }))),
    );
  if (error instanceof ReleaseForbidden)
    return new HttpError(problem(403, 'forbidden', error.message));
  if (error instanceof ReleaseConflict)
    return new HttpError(problem(409, 'release-conflict', error.message));
  if (error instanceof ReleaseBlocked)
    return new HttpError(
      problem(409, 'quality-errors', error.message, {
        errors: error.report.findings
          .filter((item) => item.severity === 'error')
          .slice(0, 100)
          .map((item) => ({
            in: 'query' as const,
            field: 'library',
            detail: `${item.resource} (${item.name}) ${item.message} [${item.rule}]`,
          })),
      }),
    );
  return error;
}

/** A release's file by its name, the stored bytes. */
export async function sendReleaseFile(
  refdata: Refdata,
  request: FastifyRequest,
  reply: FastifyReply,
  params: { library: string; version: string; name: string },
): Promise<FastifyReply> {
  const release = await releaseAt(refdata, params);
  const shortName = shortNameOfFile(release, params.name);
  const mediaType = shortName === undefined ? undefined : formatOfShortName(shortName);
  if (!mediaType)
    throw new HttpError(
      problem(404, 'not-found', `Release ${release.version} has no file ${params.name}.`),
    );
  return sendStoredFile(refdata, request, reply, release, mediaType, params.name);
}

/** Whether a request's Accept-Encoding takes gzip (a q of 0 refuses it). */
function takesGzip(header: string | undefined): boolean {
  return (header ?? '').split(',').some((entry) => {
    const [coding, ...parameters] = entry.split(';').map((part) => part.trim().toLowerCase());
    if (coding !== 'gzip' && coding !== '*') return false;
    const q = parameters.find((parameter) => parameter.startsWith('q='));
    return q === undefined || Number(q.slice(2)) > 0;
  });
}

/**
 * A stored file of a release (written first if a crash left it unwritten):
 * gzipped to a client that takes gzip, else inflated with its length; an
 * attachment when it is asked for by its file name.
 */
async function sendStoredFile(
  refdata: Refdata,
  request: FastifyRequest,
  reply: FastifyReply,
  release: ReleaseRow,
  mediaType: RdfMediaType,
  attachment: string | undefined,
): Promise<FastifyReply> {
  const format = RDF_FORMATS[mediaType];
  await releaseFiles(refdata, release);
  const file = await refdata.releases.file(release.id, format.shortName);
  if (!file) throw new Error(`release ${release.id} has no ${format.shortName} file`);
  const gzip = takesGzip(request.headers['accept-encoding']);
  // One tag per content coding: the bytes differ.
  if (immutable(refdata, request, reply, `"${file.sha256}${gzip ? '-gzip' : ''}"`))
    return reply.status(304).send();
  reply.type(format.contentType).header('vary', 'Accept, Accept-Encoding');
  if (attachment) reply.header('content-disposition', `attachment; filename="${attachment}"`);
  if (gzip) return reply.header('content-encoding', 'gzip').send(file.gzipped);
  const gunzip = createGunzip();
  gunzip.end(file.gzipped);
  return reply.header('content-length', String(file.byteSize)).send(gunzip);
}

/** A release's DCAT description, in the RDF format the request prefers. */
export async function sendDcat(
  refdata: Refdata,
  request: FastifyRequest,
  reply: FastifyReply,
  params: { library: string; version: string },
  /** The format a page's link names; otherwise the Accept header chooses. */
  chosen?: RdfMediaType,
): Promise<FastifyReply> {
  const release = await releaseAt(refdata, params);
  const mediaType = chosen ?? negotiate(request.headers.accept, RDF_MEDIA_TYPES);
  if (!mediaType) throw notAcceptable(RDF_MEDIA_TYPES);
  reply.header('vary', 'Accept');
  const format = RDF_FORMATS[mediaType];
  if (immutable(refdata, request, reply, `"${release.id}-dcat-${format.shortName}"`))
    return reply.status(304).send();
  const library = await refdata.store.findByIri(release.library_iri);
  const quads = dcatQuads(
    refdata,
    release,
    library?.name ?? release.library_iri,
    await releaseFiles(refdata, release),
  );
  return reply.type(format.contentType).send(await format.write(quads));
}

/** A redirect to a library's latest release, keeping the query. */
export async function redirectToLatest(
  refdata: Refdata,
  request: FastifyRequest,
  reply: FastifyReply,
  libraryName: string,
): Promise<FastifyReply> {
  const library = await libraryOf(refdata, libraryName);
  const latest = await refdata.releases.latest(library.iri);
  if (!latest) throw new HttpError(problem(404, 'not-found', `${library.iri} has no release yet.`));
  const query = request.url.includes('?') ? request.url.slice(request.url.indexOf('?')) : '';
  return reply
    .header('cache-control', 'no-cache')
    .redirect(`${releasePath(refdata, latest.iri)}${query}`, 302);
}
