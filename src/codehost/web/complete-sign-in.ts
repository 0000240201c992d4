import type { FastifyReply, FastifyRequest } from 'fastify';
import { safeReturnPath } from '../../platform/web/return-path.js';
import type { UserRow } from '../accounts/users.js';
import type { Codehost } from '../context.js';
import { newSessionId } from '../oidc/backchannel-logout.js';
import type { Session } from './sessions.js';

/** RFC 8176's values for the ways codehost signs people in. */
export const AMR = {
  password: ['pwd'],
  passwordAndCode: ['pwd', 'otp', 'mfa'],
} as const;

/**
 * A passkey is something the user has, unlocked by something they know or
 * are (the device verified them): two factors. One synced between devices is
 * a software-held key (`swk`), one kept in a device a hardware key (`hwk`).
 */
export function passkeyAmr(backedUp: boolean, afterPassword: boolean): string[] {
  return [...(afterPassword ? ['pwd'] : []), backedUp ? 'swk' : 'hwk', 'user', 'mfa'];
}

/**
 * Signs the user in: a fresh session ID at that moment, so a planted ID gains
 * nothing, remembering how they signed in (`amr`) for the ID tokens it leads to.
 */
export async function completeSignIn(
  codehost: Codehost,
  request: FastifyRequest,
  reply: FastifyReply,
  user: UserRow,
  amr: readonly string[],
): Promise<FastifyReply> {
  const returnTo = safeReturnPath(request.session?.data.returnTo);
  const authTime = await codehost.users.recordSignIn(user);
  // A password someone else chose (the first root password, a reset) is replaced
  // first; where the user was going waits until then.
  if (user.password_change_required === 1) {
    await startSignedInSession(codehost, reply, user.id, amr, request.session, {
      authTime,
      ...(returnTo ? { returnTo } : {}),
    });
    return reply.redirect('/profile/password/edit', 302);
  }
  await startSignedInSession(codehost, reply, user.id, amr, request.session, { authTime });
  return reply.redirect(returnTo ?? '/profile', 302);
}

/**
 * A new signed-in session with its OpenID Connect session ID (`sid`), which
 * the ID tokens it leads to carry and whose ending relying parties hear of.
 */
export async function startSignedInSession(
  codehost: Codehost,
  reply: FastifyReply,
  userId: number,
  amr: readonly string[] | undefined,
  previous: Session | undefined,
  /** When it signed in (kept by a session that replaces another); where to go next. */
  options: { authTime?: number | undefined; returnTo?: string } = {},
): Promise<Session> {
  const sid = newSessionId();
  const { authTime, returnTo } = options;
  const session = await codehost.sessions.start(
    reply,
    {
      userId,
      sid,
      ...(amr ? { amr: [...amr] } : {}),
      ...(authTime !== undefined ? { authTime } : {}),
      ...(returnTo ? { returnTo } : {}),
    },
    previous,
  );
  await codehost.backchannelLogout.sessionStarted(sid, userId, session.idHash);
  return session;
}
