import { Type } from '@sinclair/typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { partValue } from '../../platform/http/request-parts.js';
import { allowFormRedirectTo } from '../../platform/web/csp.js';
import { formField } from '../../platform/web/page-checks.js';
import { safeReturnPath } from '../../platform/web/return-path.js';
import type { UserRow } from '../accounts/users.js';
import type { Codehost } from '../context.js';
import type { Session } from './sessions.js';

/** The path parameter of pages about one stored row (an application, a token); the API's ID_PARAMS also takes a path. */
export const ROW_ID_PARAMS = Type.Object({ id: Type.Integer({ minimum: 1, maximum: 2147483647 }) });

export type FormBody = Record<string, string | string[] | undefined>;

/** One text field of a submitted form ('' when absent; the first when repeated). */
export const field = formField;

/** Every value of a repeated field (checkboxes). */
export function fieldValues(body: unknown, name: string): string[] {
  const value = (body as FormBody | undefined)?.[name];
  if (Array.isArray(value)) return value.filter((item) => typeof item === 'string');
  return typeof value === 'string' ? [value] : [];
}

/** How long a signed-in user asked to sign in again has to do it. */
const REAUTHENTICATE_WITHIN_MS = 15 * 60 * 1000;

/** The active user the request's session is signed in as, whatever their password. */
async function sessionUser(
  codehost: Codehost,
  request: FastifyRequest,
): Promise<UserRow | undefined> {
  const userId = request.session?.data.userId;
  const user = userId === undefined ? undefined : await codehost.users.findById(userId);
  return user?.state === 'active' ? user : undefined;
}

/**
 * The signed-in user of the request, if any. A user whose password someone else
 * chose counts as signed in only on the page that replaces it: anywhere else they
 * are a visitor (public pages) or sent there (see `signedInUser`).
 */
export async function currentUser(
  codehost: Codehost,
  request: FastifyRequest,
): Promise<UserRow | undefined> {
  const user = await sessionUser(codehost, request);
  return user?.password_change_required === 1 ? undefined : user;
}

/**
 * When the session's user must first replace a password someone else chose,
 * answers with a redirect to the password page (coming back here afterwards,
 * for a GET) and returns true.
 */
export async function detourForPasswordChange(
  codehost: Codehost,
  request: FastifyRequest,
  reply: FastifyReply,
): Promise<boolean> {
  const user = await sessionUser(codehost, request);
  if (user?.password_change_required !== 1) return false;
  if (request.method === 'GET' && request.session) {
    request.session.data.returnTo = request.url;
    await codehost.sessions.save(request.session);
  }
  await reply.redirect('/profile/password/edit', 302);
  return true;
}

/**
 * Sends the visitor to sign in, to come back to `returnTo` (a path here);
 * `loginHint` fills in the login field. With `reauthenticate` (OpenID Connect's
 * `prompt=login` and an exceeded `max_age`), a signed-in user stays signed in
 * until the sign-in succeeds: a plain GET, which any site can cause, must not
 * end their session (OpenID Connect Core 3.1.2.1; Keycloak and Okta do the same).
 */
export async function sendToSignIn(
  codehost: Codehost,
  request: FastifyRequest,
  reply: FastifyReply,
  options: { returnTo: string | undefined; loginHint?: string; reauthenticate?: boolean },
): Promise<FastifyReply> {
  const returnTo = options.returnTo === undefined ? undefined : safeReturnPath(options.returnTo);
  const extra = {
    ...(returnTo ? { returnTo } : {}),
    ...(options.loginHint ? { loginHint: options.loginHint } : {}),
  };
  const session = request.session;
  if (session && (session.data.userId === undefined || options.reauthenticate)) {
    // Keep the session: a half-finished two-factor sign-in survives a detour, and
    // a signed-in user asked to sign in again is signed in until they have.
    Object.assign(session.data, extra);
    if (options.reauthenticate && session.data.userId !== undefined) {
      session.data.reauthenticateUntil = Date.now() + REAUTHENTICATE_WITHIN_MS;
    }
    await codehost.sessions.save(session);
  } else {
    // No session, or one whose user can no longer sign in: start afresh.
    await codehost.sessions.start(reply, extra, session);
  }
  return reply.redirect('/users/sign_in', 302);
}

/**
 * The signed-in user, or undefined after answering with a redirect: to sign in,
 * or, while the password is one someone else chose, to the page that replaces it
 * (every other settings page waits until then; `duringPasswordChange`: this is
 * that page, or how the user leaves it).
 */
export async function signedInUser(
  codehost: Codehost,
  request: FastifyRequest,
  reply: FastifyReply,
  options: { duringPasswordChange: boolean },
): Promise<UserRow | undefined> {
  if (options.duringPasswordChange) {
    const user = await sessionUser(codehost, request);
    if (user) return user;
  } else {
    if (await detourForPasswordChange(codehost, request, reply)) return undefined;
    const user = await currentUser(codehost, request);
    if (user) return user;
  }
  // Remember where the visitor was going (GET only; a POST cannot be replayed).
  await sendToSignIn(codehost, request, reply, {
    returnTo: request.method === 'GET' ? request.url : undefined,
  });
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

export { allowFormRedirectTo };

/**
 * The notice a page shows after a redirect from an action, named by a query
 * parameter (`?done=destroyed`). Only these fixed texts can appear, so a crafted
 * link cannot put words of its own on the page.
 */
export function doneNotice(
  request: FastifyRequest,
  texts: Record<string, string>,
): { kind: 'ok'; text: string } | undefined {
  const done = partValue(request.query, 'done');
  const text = typeof done === 'string' && Object.hasOwn(texts, done) ? texts[done] : undefined;
  return text === undefined ? undefined : { kind: 'ok', text };
}

/**
 * Whether the form's `current_password` is the user's, checked through
 * sign-in's check so that guesses on settings pages count against the account.
 */
export async function currentPasswordAccepted(
  codehost: Codehost,
  user: UserRow,
  body: unknown,
): Promise<boolean> {
  const check = await codehost.signIn.check(user.username, field(body, 'current_password'));
  return check.outcome === 'ok';
}
