import { type Static, Type } from '@sinclair/typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { decodeUtf8 } from '../../platform/http/body-parsers.js';
import { HttpError } from '../../platform/http/problem.js';
import type { HttpApp } from '../../platform/http/server.js';
import { admit, principalIfAny } from '../auth/authenticate.js';
import { READ_ROLES } from '../auth/roles.js';
import type { Refdata } from '../context.js';
import { problems } from '../described-responses.js';
import { VIEWS } from '../lifecycle/views.js';
import { problem } from '../problem-codes.js';
import { negotiate, notAcceptable } from '../rdf/negotiation.js';
import { RDF_FORMATS } from '../rdf/serialize.js';
import { ClientShares } from './client-shares.js';
import type { QueryDataset } from './engine-calls.js';
import { evaluate, GRAPH_OFFERED, SELECT_OFFERED, updateRefused } from './evaluate.js';
import { acceptFor } from './format-parameters.js';
import { serviceDescription } from './service-description.js';

const GraphIris = Type.Optional(
  Type.Array(Type.String({ minLength: 1, maxLength: 2048 }), { maxItems: 100 }),
);

/** `format`, `output` and `results`: each may be sent once or more, and most clients send one. */
const FormatParameter = Type.Optional(
  Type.Union(
    [
      Type.String({ maxLength: 200 }),
      Type.Array(Type.String({ maxLength: 200 }), { maxItems: 10 }),
    ],
    {
      description:
        'A format by name (`json`, `xml`, `csv`, `tsv`, `turtle`, `ntriples`, `jsonld`, …) or media type, in place of `Accept`, as Fuseki and Virtuoso take it; a name for no format written here is let be',
    },
  ),
);

const ProtocolParameters = {
  maxrows: Type.Optional(
    Type.Integer({
      minimum: 1,
      description:
        "Virtuoso's cap on rows, which its SERVICE client sends: the answer holds at most this many, or the endpoint's own cap if that is lower",
    }),
  ),
  format: FormatParameter,
  output: FormatParameter,
  results: FormatParameter,
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
  ...problems(400, 401, 403, 406, 413, 415, 429, 503),
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
  const requireReader = async (request: FastifyRequest) => {
    await admit(request, refdata.verifier, READ_ROLES);
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
      // The published view is what visitors may read when the service is open to them.
      config: { access: { roles: READ_ROLES, visitors: true } },
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
      // The published view is what visitors may read when the service is open to them.
      config: { access: { roles: READ_ROLES, visitors: true } },
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

async function answerDescription(refdata: Refdata, request: FastifyRequest, reply: FastifyReply) {
  reply.header('vary', 'Accept');
  const mediaType = negotiate(request.headers.accept, GRAPH_OFFERED);
  if (!mediaType) throw notAcceptable(GRAPH_OFFERED, 'This answer');
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
  const client = ClientShares.clientOf(request.ip, principalIfAny(request)?.subject);
  const answer = await evaluate(
    refdata,
    text,
    view,
    datasetOf(protocol),
    acceptFor(protocol, request.headers.accept),
    client,
    protocol.maxrows,
  );
  if (answer.cappedAt !== undefined) reply.header('x-sparql-maxrows', String(answer.cappedAt));
  return reply.type(answer.contentType).send(answer.body);
}

/** The protocol's dataset, when it names one; otherwise every graph is the default. */
function datasetOf(protocol: Omit<Protocol, 'query'>): QueryDataset | undefined {
  const defaultGraphs = protocol['default-graph-uri'] ?? [];
  const namedGraphs = protocol['named-graph-uri'] ?? [];
  return defaultGraphs.length === 0 && namedGraphs.length === 0
    ? undefined
    : { defaultGraphs, namedGraphs };
}
