import { type Static, Type } from '@sinclair/typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { Parser } from 'n3';
import { decodeUtf8 } from '../../platform/http/body-parsers.js';
import { HttpError } from '../../platform/http/problem.js';
import type { HttpApp } from '../../platform/http/server.js';
import { authorize } from '../auth/authenticate.js';
import { READ_ROLES } from '../auth/roles.js';
import type { Refdata } from '../context.js';
import { problems } from '../described-responses.js';
import { VIEWS } from '../lifecycle/views.js';
import { problem } from '../problem-codes.js';
import { negotiate } from '../rdf/negotiation.js';
import { RDF_FORMATS, RDF_MEDIA_TYPES, type RdfMediaType } from '../rdf/serialize.js';
import { classify, type QueryForm } from './query-form.js';
import { readQuery } from './query-reading.js';
import { serviceDescription } from './service-description.js';
import type { QueryDataset } from './store-worker.js';

/** XML Schema's namespace: its datatypes' IRIs name the casts (`xsd:integer(?x)`). */
const XSD = 'http://www.w3.org/2001/XMLSchema#';

/** SPARQL results formats for SELECT (and, but for CSV and TSV, ASK), by media type. */
export const RESULTS_FORMATS = {
  'application/sparql-results+json': 'application/sparql-results+json',
  'application/sparql-results+xml': 'application/sparql-results+xml',
  'application/json': 'application/sparql-results+json',
  'text/csv': 'text/csv',
  'text/tab-separated-values': 'text/tab-separated-values',
} as const;
type ResultsMediaType = keyof typeof RESULTS_FORMATS;

const SELECT_OFFERED = Object.keys(RESULTS_FORMATS) as ResultsMediaType[];
/** CSV and TSV are defined for solution sequences only (SPARQL 1.1 CSV and TSV §1). */
const ASK_OFFERED: ResultsMediaType[] = [
  'application/sparql-results+json',
  'application/sparql-results+xml',
  'application/json',
];
/** Graphs are written as dereferenced resources are, Turtle first as SPARQL servers do. */
export const GRAPH_OFFERED: RdfMediaType[] = [
  'text/turtle',
  ...RDF_MEDIA_TYPES.filter((mediaType) => mediaType !== 'text/turtle'),
];

const GraphIris = Type.Optional(
  Type.Array(Type.String({ minLength: 1, maxLength: 2048 }), { maxItems: 100 }),
);

const ProtocolParameters = {
  'default-graph-uri': GraphIris,
  'named-graph-uri': GraphIris,
  view: Type.Optional(
    Type.Union(
      VIEWS.map((view) => Type.Literal(view)),
      {
        description:
          '`published` (the default: Approved and Deprecated resources) or `working` (every status; a token with a reading role)',
      },
    ),
  ),
};

const GetParameters = Type.Object(
  {
    query: Type.Optional(
      Type.String({ description: 'The query; without one, the service description is answered' }),
    ),
    ...ProtocolParameters,
  },
  { additionalProperties: false },
);

const FormParameters = Type.Object(
  {
    query: Type.Optional(Type.String()),
    update: Type.Optional(Type.String({ description: 'Refused: the endpoint answers queries' })),
    ...ProtocolParameters,
  },
  { additionalProperties: false },
);

/** What a POST may carry: a form, or the query itself. */
const PostBody = Type.Union([FormParameters, Type.String()]);

type Protocol = Static<typeof GetParameters>;

const ANSWERS = {
  description:
    'SELECT and ASK as SPARQL results (JSON, XML, CSV, TSV); CONSTRUCT and DESCRIBE, and the service description, as RDF',
  content: Object.fromEntries(
    [...SELECT_OFFERED, ...GRAPH_OFFERED].map((mediaType) => [mediaType, { schema: {} }]),
  ),
};

const RESPONSES = {
  200: ANSWERS,
  ...problems(400, 401, 403, 406, 413, 415, 503),
};

/** The endpoint takes the query alone as text in these types (SPARQL 1.1 Protocol §2.1). */
const QUERY_TYPE = 'application/sparql-query';
const FORM_TYPE = 'application/x-www-form-urlencoded';
const UPDATE_TYPE = 'application/sparql-update';

/**
 * `/sparql`: the SPARQL 1.1 Protocol over the published view, or the working
 * view for readers who ask (docs/sparql.md).
 * A query by `GET ?query=`, by a form `POST`, or by `POST` of
 * `application/sparql-query`; `default-graph-uri` and `named-graph-uri` choose
 * the dataset; without them the default graph is every library's graph
 * together. Updates are refused: writes go through the authoring API.
 */
export function registerSparqlRoutes(app: HttpApp, refdata: Refdata): void {
  const settings = refdata.sparql.settings;
  const requireReader = authorize(refdata.verifier, READ_ROLES);
  // The published view is what visitors may read when the service is open to them.
  const reader = async (request: FastifyRequest) => {
    if (refdata.anonymousRead && request.headers.authorization === undefined) return;
    await requireReader(request);
  };
  // The working view (Drafts and all) is for people who work on the content, never
  // visitors; a form names it in its body, read after the hooks have run.
  const answer = (
    request: FastifyRequest,
    reply: FastifyReply,
    text: string,
    protocol: Omit<Protocol, 'query'>,
  ) => answerQuery(refdata, request, reply, text, protocol, requireReader);

  app.register(async (sparql: HttpApp) => {
    for (const type of [QUERY_TYPE, UPDATE_TYPE]) {
      // Strict UTF-8, as every other body: bytes that are not text are refused, not replaced.
      sparql.addContentTypeParser(
        type,
        { parseAs: 'buffer', bodyLimit: settings.maxQueryBytes },
        async (_request: FastifyRequest, body: Buffer) => decodeUtf8(body),
      );
    }
    // Browsers' clients (YASGUI and the like) call from other origins: the data is
    // public, and a token travels in a header, never in a cookie.
    sparql.addHook('onSend', async (_request, reply) => {
      reply.header('access-control-allow-origin', '*');
      reply.header('access-control-expose-headers', 'Retry-After, Content-Type, X-SPARQL-MaxRows');
    });
    sparql.options('/sparql', { schema: { hide: true } }, async (_request, reply) =>
      reply
        .status(204)
        .header('access-control-allow-methods', 'GET, POST, OPTIONS')
        .header('access-control-allow-headers', 'Authorization, Content-Type, Accept')
        .header('access-control-max-age', '600')
        .send(),
    );

    sparql.get('/sparql', {
      schema: {
        summary:
          'Query the published (or working) view, SPARQL 1.1 Protocol; or read the service description',
        tags: ['sparql'],
        querystring: GetParameters,
        response: RESPONSES,
      },
      onRequest: reader,
      handler: async (request, reply) => {
        const parameters = request.query;
        if (parameters.query === undefined) {
          if (parameters['default-graph-uri'] || parameters['named-graph-uri'])
            throw protocolError('default-graph-uri and named-graph-uri come with a query.');
          return answerDescription(refdata, request, reply);
        }
        return answer(request, reply, parameters.query, parameters);
      },
    });

    sparql.post('/sparql', {
      schema: {
        summary:
          'Query the published (or working) view by a form or an application/sparql-query body',
        tags: ['sparql'],
        querystring: Type.Object(ProtocolParameters, { additionalProperties: false }),
        body: PostBody,
        consumes: [FORM_TYPE, QUERY_TYPE],
        response: RESPONSES,
      },
      onRequest: reader,
      handler: async (request, reply) => {
        const type = (request.headers['content-type'] ?? '').split(';')[0]?.trim().toLowerCase();
        if (type === UPDATE_TYPE) throw updateRefused();
        // The service's JSON parser would take an object for a form: the protocol has no JSON.
        if (type !== QUERY_TYPE && type !== FORM_TYPE) {
          throw new HttpError(
            problem(
              415,
              'unsupported-media-type',
              `A query is sent as ${FORM_TYPE} or ${QUERY_TYPE}.`,
            ),
          );
        }
        const body = request.body;
        if (typeof body === 'string') {
          if (type !== QUERY_TYPE)
            throw protocolError(`A query is sent as a form or as ${QUERY_TYPE}.`);
          return answer(request, reply, body, request.query);
        }
        if (body.update !== undefined) throw updateRefused();
        if (body.query === undefined) throw protocolError('The form has no query.');
        // A form carries the dataset in its body; the URL's parameters would be a second one.
        if (request.query['default-graph-uri'] || request.query['named-graph-uri'])
          throw protocolError('With a form, the graphs are given in the form, not the URL.');
        // The view may be named in either (an editor posting to `/sparql?view=working`).
        if (body.view && request.query.view && body.view !== request.query.view)
          throw protocolError('The form and the URL name different views.');
        const view = body.view ?? request.query.view;
        return answer(request, reply, body.query, { ...body, ...(view ? { view } : {}) });
      },
    });
  });
}

function protocolError(detail: string): HttpError {
  return new HttpError(problem(400, 'validation', detail));
}

function updateRefused(): HttpError {
  return new HttpError(
    problem(
      403,
      'sparql-update-refused',
      'This endpoint answers queries only; resources are written through the authoring API.',
    ),
  );
}

async function answerDescription(refdata: Refdata, request: FastifyRequest, reply: FastifyReply) {
  reply.header('vary', 'Accept');
  const mediaType = negotiate(request.headers.accept, GRAPH_OFFERED);
  if (!mediaType) throw notAcceptable(GRAPH_OFFERED);
  const format = RDF_FORMATS[mediaType];
  return reply.type(format.contentType).send(await format.write(await serviceDescription(refdata)));
}

async function answerQuery(
  refdata: Refdata,
  request: FastifyRequest,
  reply: FastifyReply,
  text: string,
  protocol: Omit<Protocol, 'query'>,
  requireReader: (request: FastifyRequest) => Promise<void>,
) {
  reply.header('vary', 'Accept');
  const view = protocol.view ?? 'published';
  if (view === 'working') await requireReader(request);
  if (Buffer.byteLength(text) > refdata.sparql.settings.maxQueryBytes) {
    throw new HttpError(
      problem(
        413,
        'payload-too-large',
        `The query is longer than ${refdata.sparql.settings.maxQueryBytes} bytes.`,
      ),
    );
  }
  const classified = classify(text);
  if (classified.kind === 'update') throw updateRefused();
  const maxRows = refdata.sparql.settings.maxRows;
  const capped = readQuery(text, maxRows);
  // A text the grammar cannot read is most likely no query: what the engine says
  // of it (where it stopped reading) is the answer, whatever Accept asked for.
  if (!capped.readable || classified.kind === 'unknown') {
    const refusal = await refdata.sparql.refusal(text, RESULTS_FORMATS['application/json']);
    if (refusal !== undefined) throw refusedQuery(refusal);
  }
  // The engine reads more than SPARQL 1.1 (triple terms): the row cap cannot be put in.
  if (!capped.readable) {
    throw queryRefused(
      'This endpoint answers SPARQL 1.1 queries; this one is written in syntax beyond it.',
    );
  }
  if (capped.federated) {
    throw queryRefused(
      "SERVICE is not evaluated: this endpoint calls no other endpoint on a client's behalf.",
    );
  }
  // An external store's own functions (Virtuoso's bif: and sql:) reach past the data.
  const extension = capped.functions.find((iri) => !iri.startsWith(XSD));
  if (extension !== undefined && view === 'published' && refdata.sparql.external) {
    throw queryRefused(`The function <${extension}> is not offered here.`);
  }
  const form: QueryForm = classified.kind === 'query' ? classified.form : 'SELECT';
  const graph = form === 'CONSTRUCT' || form === 'DESCRIBE';
  const offered = graph ? GRAPH_OFFERED : form === 'ASK' ? ASK_OFFERED : SELECT_OFFERED;
  const mediaType = negotiate(request.headers.accept, offered as readonly string[]);
  if (!mediaType) throw notAcceptable(offered);
  // Oxigraph writes every graph format off the request thread, but for RDF/XML it
  // writes predicates XML cannot name as broken XML: the service's own writer
  // writes that one, and refuses such a graph instead.
  const ownWriter = graph && mediaType === 'application/rdf+xml';
  if (capped.capped) reply.header('x-sparql-maxrows', String(maxRows));
  const outcome = await refdata.sparql.query(
    view,
    capped.text,
    ownWriter
      ? 'application/n-triples'
      : graph
        ? mediaType
        : RESULTS_FORMATS[mediaType as ResultsMediaType],
    datasetOf(protocol),
  );
  if (!outcome.ok) throw refusedQuery(outcome.message, outcome.syntax);
  if (ownWriter) {
    const format = RDF_FORMATS['application/rdf+xml'];
    try {
      const quads = new Parser({ format: 'N-Triples' }).parse(outcome.body);
      return reply.type(format.contentType).send(await format.write(quads));
    } catch (error) {
      throw unwritable(mediaType, error instanceof Error ? error.message : String(error));
    }
  }
  const contentType = graph
    ? RDF_FORMATS[mediaType as RdfMediaType].contentType
    : mediaType.startsWith('text/') || mediaType.endsWith('json')
      ? `${mediaType}; charset=utf-8`
      : mediaType;
  return reply.type(contentType).send(outcome.body);
}

function unwritable(mediaType: string, why: string): HttpError {
  return new HttpError(
    problem(
      406,
      'not-acceptable',
      `This graph cannot be written as ${RDF_FORMATS[mediaType as RdfMediaType]?.label ?? mediaType} (${why}); ask for Turtle or N-Triples.`,
      { title: 'Not Acceptable' },
    ),
  );
}

/** The protocol's dataset, when it names one; otherwise every graph is the default. */
function datasetOf(protocol: Omit<Protocol, 'query'>): QueryDataset | undefined {
  const defaultGraphs = protocol['default-graph-uri'] ?? [];
  const namedGraphs = protocol['named-graph-uri'] ?? [];
  return defaultGraphs.length === 0 && namedGraphs.length === 0
    ? undefined
    : { defaultGraphs, namedGraphs };
}

/** The engine's message: a parse error says where (`error at 3:14: expected ...`). */
function refusedQuery(message: string, syntax = /^error at \d+:\d+/.test(message)): HttpError {
  return syntax
    ? new HttpError(problem(400, 'sparql-syntax', message, { title: 'Not a SPARQL query' }))
    : queryRefused(message);
}

function queryRefused(message: string): HttpError {
  return new HttpError(problem(400, 'sparql-query-refused', message, { title: 'Query refused' }));
}

function notAcceptable(offered: readonly string[]): HttpError {
  return new HttpError(
    problem(406, 'not-acceptable', `This answer is available as ${offered.join(', ')}.`, {
      title: 'Not Acceptable',
    }),
  );
}
