import type { IncomingMessage, ServerResponse } from 'node:http';
import formBody from '@fastify/formbody';
import helmet from '@fastify/helmet';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import Fastify, {
  type FastifyBaseLogger,
  type FastifyInstance,
  type RawServerDefault,
} from 'fastify';
import type { Config } from '../config.js';
import { type ErrorRenderer, installErrorHandling } from './errors.js';
import { REQUEST_ID_HEADER, requestIdFor } from './request-id.js';
import { OneLinePerRequest } from './request-logging.js';
import { RouteTable } from './route-table.js';

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
    logController: new OneLinePerRequest(),
    bodyLimit: config.bodyLimitBytes,
    requestTimeout: config.requestTimeoutMs,
    // A hop count trusts that many proxies nearest to us, as proxy-addr defines it.
    trustProxy:
      typeof config.trustProxy === 'number' ? hopCountTrust(config.trustProxy) : config.trustProxy,
    return503OnClosing: true,
    // Path parameters may be long (a URL-encoded full path of nested groups);
    // find-my-way's default of 100 characters would answer those 414.
    routerOptions: { maxParamLength: MAX_PATH_PARAMETER_LENGTH },
    ajv: {
      customOptions: {
        // Unknown fields are an error the client should hear about, not silently dropped.
        removeAdditional: false,
        allErrors: true,
        coerceTypes: 'array',
      },
    },
  }).withTypeProvider<TypeBoxTypeProvider>();

  const routes = new RouteTable();
  routes.track(app);

  app.addHook('onRequest', async (request, reply) => {
    reply.header(REQUEST_ID_HEADER, request.id);
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
  });

  await app.register(helmet, {
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
  await app.register(formBody, { bodyLimit: config.bodyLimitBytes });
  // Bodies are JSON or forms; Fastify's built-in text/plain parser would hand
  // routes a bare string, so that type is unsupported (415) like any other.
  app.removeContentTypeParser('text/plain');
  installErrorHandling(app, options.renderError, routes);
  return app;
}

function hopCountTrust(hops: number): (address: string, hop: number) => boolean {
  return (_address, hop) => hop < hops;
}
