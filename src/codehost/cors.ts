import cors, { type FastifyCorsOptions } from '@fastify/cors';
import type { FastifyRequest } from 'fastify';
import type { HttpApp } from '../platform/http/server.js';

/**
 * Where codehost answers browsers of other origins, as GitLab does
 * (config/application.rb, Rack::Cors): the API, the token and revocation
 * endpoints (so a single-page application can use the authorization code flow
 * with PKCE), userinfo, the key set and the discovery documents. Any origin,
 * never with credentials: a cross-origin request carries a bearer token or a
 * client's own parameters, never the session cookie.
 */
const API_EXPOSED = [
  'Link',
  'X-Total',
  'X-Total-Pages',
  'X-Per-Page',
  'X-Page',
  'X-Next-Page',
  'X-Prev-Page',
  'X-Request-Id',
  'ETag',
];

const RULES: readonly { matches: (path: string) => boolean; options: FastifyCorsOptions }[] = [
  {
    matches: (path) => path.startsWith('/api/'),
    // Any request header, as GitLab's `headers: :any` (Sudo, Job-Token, ...): left
    // unset, the plugin allows the headers the preflight asks for.
    options: {
      methods: ['GET', 'HEAD', 'POST', 'PUT', 'DELETE', 'PATCH'],
      exposedHeaders: API_EXPOSED,
    },
  },
  {
    matches: (path) => path === '/oauth/token' || path === '/oauth/revoke',
    options: { methods: ['POST'], allowedHeaders: ['Authorization', 'Content-Type'] },
  },
  {
    matches: (path) => path === '/oauth/userinfo',
    options: { methods: ['GET', 'HEAD', 'POST'], allowedHeaders: ['Authorization'] },
  },
  {
    matches: (path) =>
      path === '/oauth/discovery/keys' ||
      path === '/.well-known/openid-configuration' ||
      path === '/.well-known/oauth-authorization-server',
    options: { methods: ['GET', 'HEAD'], exposedHeaders: ['ETag', 'Last-Modified'] },
  },
];

function optionsFor(request: FastifyRequest): FastifyCorsOptions {
  // An OPTIONS that is not a preflight (no Origin, or no method asked about) is an
  // ordinary request: 405 in GitLab's shape as before, not the plugin's plain-text 400.
  const preflightHeaders =
    request.headers.origin !== undefined &&
    request.headers['access-control-request-method'] !== undefined;
  if (request.method === 'OPTIONS' && !preflightHeaders) return { origin: false };
  const path = request.url.split('?')[0] ?? '';
  const rule = RULES.find((candidate) => candidate.matches(path));
  // Two hours: Chromium's ceiling for a cached preflight.
  return rule
    ? { origin: '*', credentials: false, maxAge: 7200, ...rule.options }
    : { origin: false };
}

export async function registerCors(app: HttpApp): Promise<void> {
  await app.register(cors, {
    delegator: (request, callback) => callback(null, optionsFor(request)),
  });
}
