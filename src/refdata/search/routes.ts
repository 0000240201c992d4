import { Type } from '@sinclair/typebox';
import { cacheStatus, requestCaching } from '../../platform/http/cache-directives.js';
import { HttpError } from '../../platform/http/problem.js';
import type { HttpApp } from '../../platform/http/server.js';
import { READ_ROLES } from '../auth/roles.js';
import type { Refdata } from '../context.js';
import { STATUSES } from '../db/tables.js';
import { answer, problems, StatusSchema } from '../described-responses.js';
import type { FamilyRegistry } from '../families/registry.js';
import { problem } from '../problem-codes.js';
import { OFFERED } from '../rdf/routes.js';
import { decodeCursor, encodeCursor } from './search.js';
import type { SearchAnswer } from './service.js';

/** Seconds a client should wait before asking again while the index is unavailable. */
export const RETRY_AFTER_SECONDS = 60;
/** The answer cache's name in `Cache-Status` (RFC 9211). */
const ANSWER_CACHE_NAME = 'refdata-search';

/** The filters a search takes, shared by the API and the search page. */
export const searchFilters = (families: FamilyRegistry) => ({
  family: Type.Optional(
    Type.Array(Type.Union(families.keys.map((key) => Type.Literal(key))), {
      maxItems: families.keys.length,
    }),
  ),
  library: Type.Optional(
    Type.Array(Type.String({ minLength: 1, maxLength: 2048 }), { maxItems: 20 }),
  ),
  status: Type.Optional(
    Type.Array(StatusSchema, {
      maxItems: STATUSES.length,
    }),
  ),
  language: Type.Optional(
    Type.Array(
      Type.String({
        minLength: 2,
        maxLength: 35,
        format: 'language-tag',
        description:
          'Only resources with a label in this language (BCP 47; `de` also finds `de-CH`)',
      }),
      { maxItems: 10 },
    ),
  ),
  cursor: Type.Optional(Type.String({ minLength: 1, maxLength: 3000 })),
});

const searchQuery = (families: FamilyRegistry) =>
  Type.Object(
    {
      q: Type.Optional(
        Type.String({
          minLength: 1,
          maxLength: 200,
          description: 'Words to find; the last may be a prefix',
        }),
      ),
      ...searchFilters(families),
      limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100 })),
    },
    { additionalProperties: false },
  );

const Counts = Type.Record(Type.String(), Type.Integer({ minimum: 0 }));
const Link = Type.String({ format: 'uri' });

/** What a search answers (see docs/search.md). */
const SearchPage = Type.Object(
  {
    total: Type.Integer({ minimum: 0, description: 'Exact: every match of the query and filters' }),
    limit: Type.Integer(),
    facets: Type.Object(
      { family: Counts, library: Counts, status: Counts },
      { description: 'Counts for the query, each dimension under the other filters' },
    ),
    hits: Type.Array(
      Type.Object({
        iri: Type.String({ format: 'uri' }),
        label: Type.String(),
        identifier: Type.Optional(Type.String()),
        family: Type.String(),
        types: Type.Array(Type.String()),
        status: StatusSchema,
        description: Type.Optional(Type.String()),
        collection: Type.Optional(
          Type.Object(
            { iri: Type.String({ format: 'uri' }), label: Type.Optional(Type.String()) },
            { description: "The library it is defined in (a value: its picklist's)" },
          ),
        ),
        links: Type.Object({
          resource: Link,
          representations: Type.Array(Type.String()),
          json: Link,
          revisions: Link,
        }),
      }),
    ),
    next: Type.Optional(Type.String({ format: 'uri', description: 'The next page, if any' })),
    cursor: Type.Optional(Type.String()),
  },
  { additionalProperties: false },
);

/**
 * `GET /search/search-index`: free text over labels, identifiers, descriptions and
 * mapping targets (words as prefixes), filtered by family, library and status,
 * a page at a time by cursor, with the exact total and the counts per family,
 * library and status. 503 with Retry-After while this instance builds its
 * index, or while search is marked down. An answer asked again is given from
 * those kept, unless the request's `Cache-Control` asks for it afresh.
 */
export function registerSearchRoutes(app: HttpApp, refdata: Refdata): void {
  app.get('/search/search-index', {
    schema: {
      summary: 'Search labels, identifiers, descriptions and mappings',
      tags: ['search'],
      querystring: searchQuery(refdata.families),
      response: {
        200: answer(
          'A page of hits, best first, with the total and the facets',
          'application/json',
          SearchPage,
          ['cache-status'],
        ),
        ...problems(400, 401, 403, 503),
      },
    },
    config: { access: { roles: READ_ROLES } },
    handler: async (request, reply) => {
      if (!refdata.search.available) {
        throw new HttpError(
          problem(
            503,
            'search-unavailable',
            'The search index is being rebuilt or is down; try again later.',
            {
              headers: { 'retry-after': String(RETRY_AFTER_SECONDS) },
            },
          ),
        );
      }
      const query = request.query;
      const after = query.cursor === undefined ? undefined : decodeCursor(query.cursor);
      if (query.cursor !== undefined && !after) {
        throw new HttpError(
          problem(400, 'validation', 'cursor is not one this service gave out.', {
            errors: [
              { in: 'query', field: 'cursor', detail: 'is not a cursor from a previous page' },
            ],
          }),
        );
      }
      const limit = query.limit ?? 20;
      const { answer: result, cache } = await refdata.search.searchCaching(
        {
          q: query.q,
          families: query.family ?? [],
          libraries: query.library ?? [],
          statuses: query.status ?? [],
          languages: query.language ?? [],
          limit,
          after,
        },
        requestCaching(request.headers['cache-control']),
      );
      reply.header('cache-status', cacheStatus(ANSWER_CACHE_NAME, cache));
      reply.type('application/json; charset=utf-8');
      const kept = cache.hit || cache.stored;
      const sent = kept ? sentBodies.get(result) : undefined;
      if (sent?.url === request.url) return reply.send(sent.body);
      const body = Buffer.from(JSON.stringify(pageBody(refdata, result, query, limit)));
      if (kept) sentBodies.set(result, { url: request.url, body });
      return reply.send(body);
    },
  });
}

/**
 * The body of a kept answer as last sent, and the request URL it was sent for
 * (its `next` link repeats the request's parameters): a search asked again in
 * the same words is written, not built. Gone with the answer.
 */
const sentBodies = new WeakMap<SearchAnswer, { url: string; body: Buffer }>();

/** A search answer as the API shows it (`SearchPage`). */
function pageBody(
  refdata: Refdata,
  result: SearchAnswer,
  query: Record<string, string | number | string[] | undefined>,
  limit: number,
) {
  const cursor = result.next ? encodeCursor(result.next) : undefined;
  const next = cursor ? new URL('/search/search-index', refdata.publicUrl) : undefined;
  if (next && cursor) {
    for (const [name, value] of Object.entries(query)) {
      if (name === 'cursor' || value === undefined) continue;
      for (const item of Array.isArray(value) ? value : [value])
        next.searchParams.append(name, String(item));
    }
    next.searchParams.set('cursor', cursor);
  }
  return {
    total: result.total,
    limit,
    facets: facetsBody(result.facets),
    hits: result.hits.map(({ row, library, types }) => {
      const resource = `${refdata.publicUrl}${row.iri.startsWith(refdata.iriBase) ? row.iri.slice(refdata.iriBase.length) : ''}`;
      return {
        iri: row.iri,
        label: row.name,
        identifier: row.iri.split(/[/#]/).pop(),
        family: row.family,
        types,
        status: row.status,
        ...(row.description ? { description: row.description } : {}),
        collection: library,
        links: {
          resource,
          representations: OFFERED,
          json: `${refdata.publicUrl}${refdata.families.byKey(row.family)?.route}?iri=${encodeURIComponent(row.iri)}`,
          revisions: `${refdata.publicUrl}/revisions?iri=${encodeURIComponent(row.iri)}`,
        },
      };
    }),
    ...(next && cursor ? { next: next.toString(), cursor } : {}),
  };
}

/** Facet counts as JSON: for each dimension, value to count, most first. */
export function facetsBody(facets: SearchAnswer['facets']) {
  const ordered = (counts: Map<string, number>) =>
    Object.fromEntries([...counts].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1)));
  return {
    family: ordered(facets.family),
    library: ordered(facets.library),
    status: ordered(facets.status),
  };
}
