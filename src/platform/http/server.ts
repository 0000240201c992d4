import { randomUUID } from 'node:crypto';
import { type IncomingMessage, type ServerResponse, STATUS_CODES } from 'node:http';
import type { Duplex } from 'node:stream';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Ajv } from 'ajv';
import formats from 'ajv-formats';
import Fastify, {
  type FastifyBaseLogger,
  type FastifyInstance,
  type FastifyRequest,
  type RawServerDefault,
} from 'fastify';
import helmet from 'helmet';
import type { Config } from '../config.js';
import { type BodyTextPolicy, installBodyParsers, PLAIN_TEXT_POLICY } from './body-parsers.js';
import { type ErrorRenderer, installErrorHandling } from './errors.js';
import { CUSTOM_FORMATS } from './formats.js';
import { type PlatformProblemCode, problem } from './problem.js';
import { REQUEST_ID_HEADER, requestIdFor } from './request-id.js';
import { LazyRequestLogger, OneLinePerRequest } from './request-logging.js';
import { RouteTable } from './route-table.js';

declare module 'fastify' {
  interface FastifyInstance {
    /** Every route's path and methods, and which surface owns each address. */
    routeTable: RouteTable;
  }
}

/** The Fastify instance type every route module of both services works with. */
export type HttpApp = FastifyInstance<
  RawServerDefault,
  IncomingMessage,
  ServerResponse,
  FastifyBaseLogger,
  TypeBoxTypeProvider
>;

export interface HttpServerOptions {
  config: Pick<Config, 'bodyLimitBytes' | 'requestTimeoutMs' | 'trustProxy'>;
  logger: FastifyBaseLogger;
  renderError: ErrorRenderer;
  /** What the service asks of text in bodies beyond valid Unicode; plain by default. */
  bodyText?: BodyTextPolicy;
}

/** Longest path parameter the router accepts; longer ones are 414 URI Too Long. */
export const MAX_PATH_PARAMETER_LENGTH = 2048;

/**
 * The server both services share: request IDs, size limits, security headers,
 * form and JSON bodies, one log line per request, and the error handlers that put
 * every failure into the service's own shape. Routes are added by the caller.
 */
export async function createHttpServer(options: HttpServerOptions): Promise<HttpApp> {
  const { config } = options;
  const app = Fastify({
    loggerInstance: options.logger,
    genReqId: requestIdFor,
    logController: new OneLinePerRequest(options.logger),
    childLoggerFactory: (logger, bindings, childOptions) =>
      new LazyRequestLogger(logger, bindings, childOptions),
    bodyLimit: config.bodyLimitBytes,
    requestTimeout: config.requestTimeoutMs,
    // Node checks request deadlines only every `connectionsCheckingInterval` (30 s
    // by default) and gives headers their own 60 s: a slow client would be cut at
    // up to twice the documented limit. Headers and the whole request share the
    // limit, checked often enough to keep to it within a second.
    http: {
      headersTimeout: config.requestTimeoutMs,
      requestTimeout: config.requestTimeoutMs,
      connectionsCheckingInterval: Math.min(1000, config.requestTimeoutMs / 4),
    },
    // A hop count trusts that many proxies nearest to us, as proxy-addr defines it.
    trustProxy:
      typeof config.trustProxy === 'number' ? hopCountTrust(config.trustProxy) : config.trustProxy,
    return503OnClosing: true,
    // Path parameters may be long (a URL-encoded full path of nested groups);
    // find-my-way's default of 100 characters would answer those 414.
    routerOptions: { maxParamLength: MAX_PATH_PARAMETER_LENGTH },
    clientErrorHandler: (error, socket) =>
      answerClientError(error as NodeJS.ErrnoException, socket, options.renderError),
  }).withTypeProvider<TypeBoxTypeProvider>();

  // Query strings, path parameters and headers are text, so their values are
  // coerced to the schema's types ("3" to 3, a lone value to an array). A JSON body
  // has types of its own: a number where a string belongs is an error to report,
  // not a value to convert.
  const textParts = schemaValidator({ coerceTypes: 'array' });
  const body = schemaValidator({ coerceTypes: false });
  app.setValidatorCompiler(({ schema, httpPart }) =>
    (httpPart === 'body' ? body : textParts).compile(schema),
  );
  // Response schemas describe what a route answers (the API description, checked
  // against every response of the test suite); they do not shape it. Fastify's
  // schema-driven serializer would drop any field a schema left out, silently;
  // JSON.stringify sends what the handler built, so a gap shows in the check.
  app.setSerializerCompiler(() => (data) => JSON.stringify(data));
  // A form body is text too: its values are coerced like a query string's before
  // the route's validation runs (which then reports what could not be coerced).
  const formCoercers = new WeakMap<object, (data: unknown) => unknown>();
  app.addHook('preValidation', async (request) => {
    const schema = request.routeOptions.schema?.body;
    const type = request.headers['content-type'] ?? '';
    if (typeof schema !== 'object' || schema === null || typeof request.body !== 'object') return;
    if (!type.toLowerCase().startsWith('application/x-www-form-urlencoded')) return;
    let coerce = formCoercers.get(schema);
    if (!coerce) {
      coerce = textParts.compile(schema);
      formCoercers.set(schema, coerce);
    }
    coerce(request.body);
  });

  const routes = new RouteTable();
  routes.track(app);
  app.decorate('routeTable', routes);

  app.addHook('onRequest', async (request, reply) => {
    reply.header(REQUEST_ID_HEADER, request.id);
    // A route without a body (PUT /status/submit) takes an empty one whatever its
    // declared type: clients often send `Content-Type: application/json` on every
    // request, and an empty JSON body would otherwise be a parse error.
    const headers = request.headers;
    const empty =
      headers['content-length'] === '0' ||
      (headers['content-length'] === undefined && headers['transfer-encoding'] === undefined);
    if (empty && request.routeOptions.schema?.body === undefined) delete headers['content-type'];
  });

  // While closing, Fastify only ends connections that are idle at that moment; a
  // keep-alive connection whose request was still running would then hold the
  // shutdown open until its keep-alive timeout. Ending each such connection with
  // its last response lets shutdown finish as soon as in-flight requests do.
  let closing = false;
  app.addHook('preClose', async () => {
    closing = true;
  });
  app.addHook('onSend', async (_request, reply) => {
    if (closing) reply.header('connection', 'close');
    // Text says how it is encoded, so clients that trust the header read it right.
    const type = reply.getHeader('content-type');
    if (typeof type === 'string' && /^text\//i.test(type) && !/charset=/i.test(type)) {
      reply.header('content-type', `${type}; charset=utf-8`);
    }
  });

  // helmet's headers on every answer. Its middleware is built once, here:
  // @fastify/helmet built it anew for every request (about a tenth of a small
  // request's CPU), for per-route options and nonces neither service uses.
  const securityHeaders = helmet({
    contentSecurityPolicy: {
      useDefaults: true,
      // Deployments often serve plain HTTP behind a TLS proxy or on localhost; an
      // upgrade directive would break same-origin assets there.
      // Nothing either service serves is meant to be framed (clickjacking of the
      // consent and sign-in pages above all).
      directives: { 'upgrade-insecure-requests': null, 'frame-ancestors': ["'none'"] },
    },
    frameguard: { action: 'deny' },
  });
  app.addHook('onRequest', (request, reply, done) => {
    // helmet calls back with nothing, or with an error Fastify then answers.
    securityHeaders(request.raw, reply.raw, done as (error?: unknown) => void);
  });
  // Bodies are JSON or forms; Fastify's built-in text/plain parser would hand
  // routes a bare string, so that type is unsupported (415) like any other.
  installBodyParsers(app, {
    bodyLimit: config.bodyLimitBytes,
    text: options.bodyText ?? PLAIN_TEXT_POLICY,
  });
  installErrorHandling(app, options.renderError, routes);
  return app;
}

export function schemaValidator(options: { coerceTypes: 'array' | false }): Ajv {
  const ajv = new Ajv({
    ...options,
    // Unknown fields are an error the client should hear about, not silently dropped.
    removeAdditional: false,
    allErrors: true,
    useDefaults: true,
    strict: false,
  });
  // ajv-formats is CommonJS: its plugin is the default export's `default`.
  (formats as unknown as { default: (ajv: Ajv) => Ajv }).default(ajv);
  for (const [name, format] of Object.entries(CUSTOM_FORMATS)) {
    ajv.addFormat(name, { type: 'string', validate: format.validate });
  }
  return ajv;
}

function hopCountTrust(hops: number): (address: string, hop: number) => boolean {
  return (_address, hop) => hop < hops;
}

/**
 * What Node's parser refuses before there is a request to route (a request that
 * never finished in time, headers over the limit, a malformed request line) is
 * answered in the service's own error shape, with a request ID, and with
 * `Connection: close`: the connection is closed after the answer, and a
 * keep-alive client must know not to send its next request on it.
 */
function answerClientError(
  error: NodeJS.ErrnoException,
  socket: Duplex,
  render: ErrorRenderer,
): void {
  if (error.code === 'ECONNRESET' || socket.destroyed) return;
  const [status, code, detail]: [number, PlatformProblemCode, string] =
    error.code === 'ERR_HTTP_REQUEST_TIMEOUT'
      ? [408, 'request-timeout', 'The request was not received in time; the connection is closed.']
      : error.code === 'HPE_HEADER_OVERFLOW'
        ? [431, 'headers-too-large', 'The request headers are larger than this server accepts.']
        : [400, 'malformed-request', 'The request could not be parsed as HTTP.'];
  const traceId = randomUUID();
  const { contentType, body } = render(problem(status, code, detail), {
    traceId,
    request: CONNECTION_LEVEL_REQUEST,
  });
  const text = typeof body === 'string' ? body : JSON.stringify(body);
  if (socket.writable) {
    socket.write(
      `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\n` +
        `Content-Type: ${contentType}\r\n` +
        `Content-Length: ${Buffer.byteLength(text)}\r\n` +
        `${REQUEST_ID_HEADER}: ${traceId}\r\n` +
        'Cache-Control: no-store\r\n' +
        'Connection: close\r\n\r\n' +
        text,
    );
  }
  socket.destroy(error);
}

/**
 * The request renderers see for such an answer: there is none yet, so no route,
 * no headers and no address. Renderers read only these fields.
 */
const CONNECTION_LEVEL_REQUEST = {
  url: '',
  headers: {},
  is404: false,
  routeOptions: { config: {} },
} as unknown as FastifyRequest;
