import type { FastifyReply, FastifyRequest, RouteShorthandOptions } from 'fastify';
import { HttpError, problem } from '../../platform/http/problem.js';
import { constantTimeEqual } from '../../platform/security/secrets.js';
import type { UserRow } from '../accounts/users.js';
import type { Codehost } from '../context.js';
import type { Session } from './sessions.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** The browser session the request carried, when it is valid. */
    session: Session | undefined;
  }
}

/** The path parameter of pages about one stored row (an application, a token). */
export const ID_PARAMS = {
  type: 'object',
  properties: { id: { type: 'integer', minimum: 1, maximum: 2147483647 } },
  required: ['id'],
} as const;

export type FormBody = Record<string, string | string[] | undefined>;

/** One text field of a submitted form ('' when absent; the first when repeated). */
export function field(body: unknown, name: string): string {
  const value = (body as FormBody | undefined)?.[name];
  if (Array.isArray(value)) return typeof value[0] === 'string' ? value[0] : '';
  return typeof value === 'string' ? value : '';
}

/** Every value of a repeated field (checkboxes). */
export function fieldValues(body: unknown, name: string): string[] {
  const value = (body as FormBody | undefined)?.[name];
  if (Array.isArray(value)) return value.filter((item) => typeof item === 'string');
  return typeof value === 'string' ? [value] : [];
}

/** Only paths on this service may be returned to after signing in. */
export function safeReturnPath(path: string | undefined): string | undefined {
  if (!path?.startsWith('/') || path.startsWith('//') || path.startsWith('/\\')) {
    return undefined;
  }
  return path;
}

/**
 * Route options every web page shares: errors as HTML pages, the session loaded,
 * pages never cached (they show personal data and one-time secrets), and on
 * POST the form token checked against the session's (synchronizer token).
 */
export function webRoute(
  codehost: Codehost,
  extra: RouteShorthandOptions = {},
): RouteShorthandOptions {
  return {
    ...extra,
    config: { errorShape: 'html', ...(extra.config ?? {}) },
    onRequest: async (request, reply) => {
      reply.header('cache-control', 'no-store');
      request.session = await codehost.sessions.load(request);
    },
    preHandler: async (request) => {
      if (request.method !== 'POST') return;
      const sent = field(request.body, 'authenticity_token');
      const expected = request.session?.data.csrf;
      if (!expected || !sent || !constantTimeEqual(sent, expected)) {
        // Rails answers a bad authenticity token with 422 too.
        throw new HttpError(
          problem(
            422,
            'invalid-authenticity-token',
            'The form has expired or did not come from this site. Go back, reload the page and try again.',
          ),
        );
      }
    },
  };
}

/** The signed-in user, or undefined after answering with a redirect to sign in. */
export async function signedInUser(
  codehost: Codehost,
  request: FastifyRequest,
  reply: FastifyReply,
): Promise<UserRow | undefined> {
  const userId = request.session?.data.userId;
  const user = userId === undefined ? undefined : await codehost.users.findById(userId);
  if (user && user.state === 'active') return user;
  // Remember where the visitor was going (GET only; a POST cannot be replayed).
  const returnTo = request.method === 'GET' ? safeReturnPath(request.url) : undefined;
  if (request.session && request.session.data.userId === undefined) {
    // Keep the session (a half-finished two-factor sign-in survives a detour).
    if (returnTo) {
      request.session.data.returnTo = returnTo;
      await codehost.sessions.save(request.session);
    }
  } else {
    // No session, or one whose user can no longer sign in: start afresh.
    await codehost.sessions.start(reply, returnTo ? { returnTo } : {}, request.session);
  }
  reply.redirect('/users/sign_in', 302);
  return undefined;
}

/** The session of the request, creating an anonymous one so a form can carry a token. */
export async function ensureSession(
  codehost: Codehost,
  request: FastifyRequest,
  reply: FastifyReply,
): Promise<Session> {
  request.session ??= await codehost.sessions.start(reply, {});
  return request.session;
}
