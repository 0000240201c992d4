import type { FastifyInstance, FastifyRequest } from 'fastify';
import { HttpError } from '../../platform/http/problem.js';
import { problem } from '../problem-codes.js';
import type { Role } from './roles.js';
import { type Principal, TokenRefused, type TokenVerifier } from './tokens.js';

const REALM = 'Bearer realm="refdata"';

/**
 * RFC 6750's challenge; a refused token also says why, and every one names
 * where to learn how to get a token (RFC 9728 section 5.1).
 */
function challenge(verifier: TokenVerifier, description?: string): Record<string, string> {
  const metadata = `resource_metadata="${verifier.resourceMetadataUrl}"`;
  return {
    'www-authenticate': description
      ? `${REALM}, error="invalid_token", error_description="${description.replace(/["\\]/g, '')}", ${metadata}`
      : `${REALM}, ${metadata}`,
  };
}

/**
 * The caller, from `Authorization: Bearer`, if they hold one of `allowed`.
 * No or a bad token is 401 with a challenge; a good token without the role 403.
 */
export async function requireRole(
  request: FastifyRequest,
  verifier: TokenVerifier,
  allowed: readonly Role[],
): Promise<Principal> {
  const header = request.headers.authorization;
  const match =
    header === undefined ? null : /^Bearer[ ]+([A-Za-z0-9._~+/-]+=*)$/i.exec(header.trim());
  if (!match?.[1]) {
    throw new HttpError(
      problem(
        401,
        'invalid-token',
        header === undefined
          ? 'A bearer token is required.'
          : 'The Authorization header is not a bearer token.',
        {
          headers: challenge(
            verifier,
            header === undefined ? undefined : 'The Authorization header is not a bearer token.',
          ),
        },
      ),
    );
  }
  let principal: Principal;
  try {
    principal = await verifier.verify(match[1]);
  } catch (error) {
    if (!(error instanceof TokenRefused)) throw error;
    throw new HttpError(
      problem(401, 'invalid-token', error.message, {
        headers: challenge(verifier, error.message),
      }),
    );
  }
  if (!principal.roles.some((role) => allowed.includes(role))) {
    if (principal.scopeNeeded !== undefined) {
      const detail = `The token's scope gives no access to this API; ask for one of: ${principal.scopeNeeded}.`;
      throw new HttpError(
        problem(403, 'missing-role', detail, {
          headers: {
            'www-authenticate': `${REALM}, error="insufficient_scope", error_description="${detail}", scope="${principal.scopeNeeded}"`,
          },
        }),
      );
    }
    throw new HttpError(
      problem(
        403,
        'missing-role',
        `This needs the role ${allowed.join(' or ')}; the token has ${principal.roles.length > 0 ? principal.roles.join(', ') : 'none of the service\u2019s roles'}.`,
      ),
    );
  }
  return principal;
}

const principals = new WeakMap<FastifyRequest, Principal>();

declare module 'fastify' {
  interface FastifyContextConfig {
    /** Who may call an API route; read by the one check below and by the API description. */
    access?: RouteAccess;
  }
}

/**
 * A route's callers: a token holding one of `roles`; with `visitors`, also
 * anyone without a token while the service is open to visitors
 * (`REFDATA_ANONYMOUS_READ`), who then sees the published view only.
 */
export interface RouteAccess {
  roles: readonly Role[];
  visitors?: boolean;
}

/**
 * The one check of the API's callers, for every route that declares its
 * `access` in its config. It runs before the body is parsed and validated,
 * so a caller without a token or a role learns that (401, 403) before
 * anything about the body, as in codehost.
 */
export function registerAccessCheck(
  app: FastifyInstance,
  verifier: TokenVerifier,
  anonymousRead: boolean,
): void {
  app.addHook('onRequest', async (request) => {
    const access = request.routeOptions.config.access;
    if (!access) return;
    if (access.visitors && anonymousRead && request.headers.authorization === undefined) return;
    principals.set(request, await requireRole(request, verifier, access.roles));
  });
}

/**
 * Admits the caller as the access check does, for a need only the request's
 * body shows (SPARQL's working view, named in a form).
 */
export async function admit(
  request: FastifyRequest,
  verifier: TokenVerifier,
  roles: readonly Role[],
): Promise<Principal> {
  const principal = await requireRole(request, verifier, roles);
  principals.set(request, principal);
  return principal;
}

/** The caller the access check admitted. */
export function principalOf(request: FastifyRequest): Principal {
  const principal = principals.get(request);
  if (!principal) throw new Error(`${request.routeOptions.url} declares no access`);
  return principal;
}

/** The caller the access check admitted; undefined for a visitor. */
export function principalIfAny(request: FastifyRequest): Principal | undefined {
  return principals.get(request);
}
