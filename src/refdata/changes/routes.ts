import { Type } from '@sinclair/typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { DataFactory } from 'n3';
import { matchesIfNoneMatch } from '../../platform/http/conditional.js';
import { HttpError } from '../../platform/http/problem.js';
import type { HttpApp } from '../../platform/http/server.js';
import { principalIfAny } from '../auth/authenticate.js';
import { READ_ROLES } from '../auth/roles.js';
import type { Refdata } from '../context.js';
import { JsonLdDocument, problems } from '../described-responses.js';
import { isLibrary } from '../families/family.js';
import { PUBLISHED_STATUSES } from '../lifecycle/views.js';
import { problem } from '../problem-codes.js';
import { negotiateOrRefuse } from '../rdf/negotiation.js';
import { RDF_FORMATS, RDF_MEDIA_TYPES, type RdfMediaType } from '../rdf/serialize.js';
import {
  type Cursor,
  cursorText,
  type FeedFilter,
  MAX_EVENT_ID,
  parseCursor,
  readEvent,
  readEvents,
} from './feed.js';
import { memberIri, memberQuads, pageQuads, streamQuads } from './feed-graph.js';

const A_YEAR = 31_536_000;

const FEED_QUERY = Type.Object(
  {
    library: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 2048,
        description: "Only this library's events (its IRI)",
      }),
    ),
    since: Type.Optional(
      Type.String({ format: 'date-time', description: 'Only events at or after this time' }),
    ),
    until: Type.Optional(
      Type.String({ format: 'date-time', description: 'Only events before this time' }),
    ),
    after: Type.Optional(
      Type.String({
        pattern: '^[0-9]{1,15}\\.[0-9]{1,10}$',
        description: "A page's position, as the relation to it gives it",
      }),
    ),
  },
  { additionalProperties: false },
);

const RDF_CONTENT = Object.fromEntries(
  RDF_MEDIA_TYPES.map((mediaType) => [
    mediaType,
    {
      schema:
        mediaType === 'application/ld+json'
          ? JsonLdDocument
          : Type.String({ description: RDF_FORMATS[mediaType].label }),
    },
  ]),
);

function badRequest(detail: string): HttpError {
  return new HttpError(problem(400, 'validation', detail));
}

/** The time a `since` or `until` names, in epoch ms. */
function timeOf(value: string | undefined, name: string): number | undefined {
  if (value === undefined) return undefined;
  const time = Date.parse(value);
  if (!Number.isFinite(time)) throw badRequest(`${name} is not a date and time.`);
  return time;
}

function chosenFormat(request: FastifyRequest): RdfMediaType {
  return negotiateOrRefuse(request.headers.accept, RDF_MEDIA_TYPES, 'The change feed');
}

/**
 * `/changes`: every change as a Linked Data Event Stream (docs/changes.md),
 * the whole service's or one library's, paged by time; `/changes/events/{id}`:
 * one member. Visitors (when the service is open to them) see the versions in
 * the published view; Readers with a token see every version.
 */
export function registerChangeFeedRoutes(app: HttpApp, refdata: Refdata): void {
  // Visitors (no token, the service open to them) see the published view only.
  const isVisitor = (request: FastifyRequest) => principalIfAny(request) === undefined;
  const pageSize = refdata.changes.pageSize;

  const cacheFor = (request: FastifyRequest, immutable: boolean) =>
    `${isVisitor(request) ? 'public' : 'private'}, ${immutable ? `max-age=${A_YEAR}, immutable` : 'no-cache'}`;

  const send = async (
    request: FastifyRequest,
    reply: FastifyReply,
    mediaType: RdfMediaType,
    etag: string,
    immutable: boolean,
    quads: () => Parameters<(typeof RDF_FORMATS)[RdfMediaType]['write']>[0],
  ) => {
    const format = RDF_FORMATS[mediaType];
    reply
      .header('vary', 'Accept, Authorization')
      .header('etag', etag)
      .header('cache-control', cacheFor(request, immutable))
      .header('access-control-allow-origin', '*');
    if (matchesIfNoneMatch(request.headers['if-none-match'], etag)) return reply.status(304).send();
    return reply.type(format.contentType).send(await format.write(quads()));
  };

  app.get('/changes', {
    schema: {
      summary: 'The change feed: every version of every resource, as a Linked Data Event Stream',
      description:
        'Pages of members in time order, each a version of a resource (dcterms:isVersionOf) with its RDF at that version, linked by tree:relation to the next page. JSON-LD unless Accept asks for another RDF format. Pages that will not change are marked ldes:immutable and cached for a year.',
      tags: ['changes'],
      querystring: FEED_QUERY,
      response: {
        200: { description: 'A page of the feed', content: RDF_CONTENT },
        304: { description: 'The page the If-None-Match tag names is current', type: 'null' },
        ...problems(400, 401, 403, 404, 406),
      },
    },
    config: { access: { roles: READ_ROLES, visitors: true } },
    handler: async (request, reply) => {
      const mediaType = chosenFormat(request);
      const { library, after: afterText } = request.query;
      const since = timeOf(request.query.since, 'since');
      const until = timeOf(request.query.until, 'until');
      if (since !== undefined && until !== undefined && until <= since)
        throw badRequest('until must be later than since.');
      const publishedOnly = isVisitor(request);
      if (library !== undefined) {
        const row = await refdata.store.findByIri(library);
        const visible =
          row && isLibrary(row) && (!publishedOnly || PUBLISHED_STATUSES.includes(row.status));
        if (!visible) {
          throw new HttpError(problem(404, 'not-found', `There is no library ${library}.`));
        }
      }
      const after: Cursor | undefined =
        afterText === undefined ? undefined : parseCursor(afterText);
      if (afterText !== undefined && after === undefined)
        throw badRequest('after is not a position in the feed.');
      const filter: FeedFilter = { library, since, until, publishedOnly };
      const events = await readEvents(refdata.db, filter, after, pageSize);
      const last = events.at(-1);
      // A full page links on, and is final, once its members are settled: until
      // then a change that took its time earlier may still commit into it, and a
      // client polls it (docs/changes.md#caching).
      const settled =
        events.length === pageSize &&
        last !== undefined &&
        last.at < Date.now() - refdata.changes.settleMilliseconds;
      const addressOf = (position: Cursor | undefined) => {
        const query = new URLSearchParams();
        if (library !== undefined) query.set('library', library);
        if (request.query.since !== undefined) query.set('since', request.query.since);
        if (request.query.until !== undefined) query.set('until', request.query.until);
        if (position) query.set('after', cursorText(position));
        const text = query.toString();
        return `${refdata.publicUrl}/changes${text ? `?${text}` : ''}`;
      };
      const streamIri = `${refdata.publicUrl}/changes${library === undefined ? '' : `?${new URLSearchParams({ library })}`}#stream`;
      const pageUrl = addressOf(after);
      const etag = `"${last ? cursorText(last) : 'empty'}-${events.length}-${settled ? 'i' : 'm'}-${RDF_FORMATS[mediaType].shortName}-${publishedOnly ? 'p' : 'w'}"`;
      return send(request, reply, mediaType, etag, settled, () => {
        const { namedNode } = DataFactory;
        const stream = namedNode(streamIri);
        const page = namedNode(pageUrl);
        return [
          // The first page of a window is a view of the stream a client starts from.
          ...streamQuads(stream, after === undefined ? page : undefined),
          ...pageQuads(
            page,
            settled ? { url: addressOf(last), at: last.at } : undefined,
            until,
            settled,
          ),
          ...events.flatMap((event) =>
            memberQuads(refdata, stream, namedNode(memberIri(refdata.publicUrl, event.id)), event),
          ),
        ];
      });
    },
  });

  app.get('/changes/events/:id', {
    schema: {
      summary: 'One member of the change feed: a version of a resource',
      tags: ['changes'],
      params: Type.Object({ id: Type.Integer({ minimum: 1, maximum: MAX_EVENT_ID }) }),
      response: {
        200: { description: 'The member', content: RDF_CONTENT },
        304: { description: 'The member the If-None-Match tag names is current', type: 'null' },
        ...problems(400, 401, 403, 404, 406),
      },
    },
    config: { access: { roles: READ_ROLES, visitors: true } },
    handler: async (request, reply) => {
      const mediaType = chosenFormat(request);
      const event = await readEvent(refdata.db, request.params.id, isVisitor(request));
      if (!event) {
        throw new HttpError(
          problem(404, 'not-found', `There is no change event ${request.params.id}.`),
        );
      }
      const etag = `"${event.id}-${RDF_FORMATS[mediaType].shortName}"`;
      return send(request, reply, mediaType, etag, true, () => {
        const { namedNode } = DataFactory;
        return memberQuads(
          refdata,
          namedNode(`${refdata.publicUrl}/changes#stream`),
          namedNode(memberIri(refdata.publicUrl, event.id)),
          event,
        );
      });
    },
  });
}
