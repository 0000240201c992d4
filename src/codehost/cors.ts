import type { FastifyReply, FastifyRequest } from 'fastify';
import type { HttpApp } from '../platform/http/server.js';

/**
 * Where codehost answers browsers of other origins, as GitLab does
 * (config/application.rb, Rack::Cors): the API, the token and revocation
 * endpoints (so a single-page application can use the authorization code flow
 * with PKCE), userinfo, the key set and the discovery documents. Any origin,
 * never with credentials: a cross-origin request carries a bearer token or a
 * client's own parameters, never the session cookie.
 *
 * Written out rather than through @fastify/cors: its per-request delegator
 * (the only way it takes rules by path) cost about a fifth of a bare request's
 * throughput on every codehost answer, browser or not. Here a request without
 * `Origin` costs one header lookup.
 */
interface CorsRule {
  methods: string;
  /** Request headers a preflight may name; undefined allows whatever it asks for. */
  allowHeaders?: string;
  exposeHeaders?: string;
}

const API: CorsRule = {
  methods: 'GET, HEAD, POST, PUT, DELETE, PATCH',
  // GitLab's `headers: :any` (Sudo, Job-Token, ...): whatever the preflight asks for.
  exposeHeaders:
    'Link, X-Total, X-Total-Pages, X-Per-Page, X-Page, X-Next-Page, X-Prev-Page, X-Request-Id, ETag',
};
const TOKENS: CorsRule = { methods: 'POST', allowHeaders: 'Authorization, Content-Type' };
const USERINFO: CorsRule = { methods: 'GET, HEAD, POST', allowHeaders: 'Authorization' };
const DISCOVERY: CorsRule = { methods: 'GET, HEAD', exposeHeaders: 'ETag, Last-Modified' };

const BY_PATH: ReadonlyMap<string, CorsRule> = new Map([
  ['/oauth/token', TOKENS],
  ['/oauth/revoke', TOKENS],
  ['/oauth/userinfo', USERINFO],
  ['/oauth/discovery/keys', DISCOVERY],
  ['/.well-known/openid-configuration', DISCOVERY],
  ['/.well-known/oauth-authorization-server', DISCOVERY],
]);

/** Two hours: Chromium's ceiling for a cached preflight. */
const PREFLIGHT_MAX_AGE_SECONDS = '7200';

function ruleFor(url: string): CorsRule | undefined {
  const query = url.indexOf('?');
  const path = query === -1 ? url : url.slice(0, query);
  return path.startsWith('/api/') ? API : BY_PATH.get(path);
}

function answerCors(request: FastifyRequest, reply: FastifyReply): FastifyReply | undefined {
  const rule = ruleFor(request.url);
  if (!rule) return undefined;
  reply.header('access-control-allow-origin', '*');
  const asked = request.headers['access-control-request-method'];
  // A preflight (RFC: the Fetch standard's CORS protocol) is answered here, before
  // any route: an OPTIONS that is no preflight goes on to be answered as before.
  if (request.method === 'OPTIONS' && typeof asked === 'string') {
    const headers = rule.allowHeaders ?? request.headers['access-control-request-headers'];
    reply.header('access-control-allow-methods', rule.methods);
    if (headers) reply.header('access-control-allow-headers', headers);
    reply.header('access-control-max-age', PREFLIGHT_MAX_AGE_SECONDS);
    if (rule.allowHeaders === undefined) reply.header('vary', 'Access-Control-Request-Headers');
    return reply.status(204).send();
  }
  if (rule.exposeHeaders) reply.header('access-control-expose-headers', rule.exposeHeaders);
  return undefined;
}

export function registerCors(app: HttpApp): void {
  app.addHook('onRequest', async (request, reply) => {
    if (request.headers.origin === undefined) return;
    return answerCors(request, reply);
  });
}
