import type { FastifyRequest } from 'fastify';
import { HttpError } from '../../platform/http/problem.js';
import { problem } from '../problem-codes.js';
import type { Role } from './roles.js';
import { type Principal, TokenRefused, type TokenVerifier } from './tokens.js';

const REALM = 'Bearer realm="refdata"';

/** RFC 6750's challenge; a refused token also says why. */
function challenge(description?: string): Record<string, string> {
  return {
    'www-authenticate': description
      ? `${REALM}, error="invalid_token", error_description="${description.replace(/["\\]/g, '')}"`
      : REALM,
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
      problem(401, 'invalid-token', error.message, { headers: challenge(error.message) }),
    );
  }
  if (!principal.roles.some((role) => allowed.includes(role))) {
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

/**
 * An `onRequest` hook admitting callers with one of `allowed`. It runs before the
 * body is parsed and validated, so a caller without a token or a role learns
 * that (401, 403) before anything about the body, as in codehost.
 */
export function authorize(verifier: TokenVerifier, allowed: readonly Role[]) {
  const hook = async (request: FastifyRequest): Promise<void> => {
    principals.set(request, await requireRole(request, verifier, allowed));
  };
  authorizeHooks.add(hook);
  return hook;
}

/** Every hook `authorize` made: how the API description knows which routes need a token. */
const authorizeHooks = new WeakSet<object>();

export function isAuthorizeHook(hook: unknown): boolean {
  return typeof hook === 'function' && authorizeHooks.has(hook);
}

/** The caller an `authorize` hook admitted. */
export function principalOf(request: FastifyRequest): Principal {
  const principal = principals.get(request);
  if (!principal) throw new Error(`${request.routeOptions.url} has no authorize hook`);
  return principal;
}

/** The caller an `authorize` hook admitted, if one ran and admitted one. */
export function principalIfAny(request: FastifyRequest): Principal | undefined {
  return principals.get(request);
}
