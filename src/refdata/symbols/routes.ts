import { Type } from '@sinclair/typebox';
import type { HttpApp } from '../../platform/http/server.js';
import { READ_ROLES } from '../auth/roles.js';
import type { Refdata } from '../context.js';
import {
  HEADERS,
  JsonLdDocument,
  problems,
  representationSchema,
  StatusSchema,
} from '../described-responses.js';
import type { Family } from '../families/family.js';
import { symbol } from '../families/symbol.js';
import { single } from '../rdf/library-graph.js';
import { negotiateOrRefuse } from '../rdf/negotiation.js';
import { resourceGraph } from '../rdf/resource-graph.js';
import { serializeStream } from '../rdf/serialize.js';
import { readRow, representation } from '../resources/lookup.js';
import { etagOf } from '../resources/rows.js';

const LIST_OFFERED = ['application/json', 'application/ld+json', 'text/turtle'] as const;

const SYMBOL_QUERY = Type.Object(
  {
    iri: Type.Optional(Type.String({ minLength: 1, maxLength: 2048 })),
    status: Type.Optional(StatusSchema),
    page: Type.Optional(Type.Integer({ minimum: 1, maximum: 1_000_000 })),
    per_page: Type.Optional(Type.Integer({ minimum: 1, maximum: 100 })),
  },
  { additionalProperties: false },
);

/**
 * `GET /esl/engineeringSymbols`: one symbol by `iri` (JSON, as for every family),
 * or the symbols a page at a time, optionally of one status, as JSON, JSON-LD or
 * Turtle, with `Link` to the next and previous pages and `X-Total-Count`.
 */
export function registerSymbolRoutes(app: HttpApp, refdata: Refdata): void {
  app.get('/esl/engineeringSymbols', {
    schema: {
      summary: 'Engineering symbols, a page at a time (or one by iri)',
      tags: ['authoring'],
      querystring: SYMBOL_QUERY,
      response: {
        200: {
          description:
            'One symbol (with iri), or a page of them: Link to the next and previous pages, X-Total-Count',
          headers: {
            etag: HEADERS.etag,
            link: { type: 'string', description: 'rel="next" and rel="prev" pages' },
            'x-total-count': { type: 'string', description: 'Symbols in every page' },
          },
          content: {
            'application/json': {
              schema: Type.Union([
                representationSchema(symbol as unknown as Family),
                Type.Array(representationSchema(symbol as unknown as Family)),
              ]),
            },
            'application/ld+json': {
              schema: JsonLdDocument,
            },
            'text/turtle': { schema: Type.String() },
          },
        },
        ...problems(400, 401, 403, 404, 406),
      },
    },
    config: { access: { roles: READ_ROLES } },
    handler: async (request, reply) => {
      const query = request.query;
      if (query.iri !== undefined) {
        const row = await readRow(refdata, symbol as unknown as Family, query.iri);
        return reply.header('etag', etagOf(row)).send(representation(refdata, row));
      }
      reply.header('vary', 'Accept');
      const mediaType = negotiateOrRefuse(request.headers.accept, LIST_OFFERED, 'The symbol list');
      const page = query.page ?? 1;
      const perPage = query.per_page ?? 20;
      let base = refdata.db.selectFrom('resources').where('family', '=', 'symbol');
      if (query.status) base = base.where('status', '=', query.status);
      const total = Number(
        (await base.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow()).n,
      );
      const rows = await base
        .selectAll()
        .orderBy('id')
        .limit(perPage)
        .offset((page - 1) * perPage)
        .execute();
      const link = (target: number) => {
        const url = new URL('/esl/engineeringSymbols', refdata.publicUrl);
        if (query.status) url.searchParams.set('status', query.status);
        url.searchParams.set('page', String(target));
        url.searchParams.set('per_page', String(perPage));
        return url.toString();
      };
      const links = [];
      if (page * perPage < total) links.push(`<${link(page + 1)}>; rel="next"`);
      if (page > 1) links.push(`<${link(page - 1)}>; rel="prev"`);
      reply.header('x-total-count', String(total));
      if (links.length > 0) reply.header('link', links.join(', '));
      if (mediaType === 'application/json') {
        return reply
          .type('application/json; charset=utf-8')
          .send(rows.map((row) => representation(refdata, row)));
      }
      const justifications = await refdata.store.graphFacts(rows);
      const quads = rows.flatMap((row) => resourceGraph(refdata, row, [], justifications));
      return reply
        .type(`${mediaType}; charset=utf-8`)
        .send(serializeStream(single(quads), mediaType));
    },
  });
}
