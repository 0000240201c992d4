import type { FastifyReply } from 'fastify';
import type { HttpApp } from '../../platform/http/server.js';
import { html } from '../../platform/web/html.js';
import { safeReturnPath } from '../../platform/web/return-path.js';
import {
  PASSWORD_MAX_LENGTH,
  PASSWORD_MIN_LENGTH,
  passwordProblem,
} from '../accounts/passwords.js';
import type { UserRow } from '../accounts/users.js';
import type { Codehost } from '../context.js';
import { startSignedInSession } from './complete-sign-in.js';
import { csrfField, page } from './layout.js';
import type { Session } from './sessions.js';
import { accountOf, sessionOf } from './surface.js';
import { field } from './web-context.js';

function passwordPage(
  user: UserRow,
  session: Session,
  notice?: { kind: 'ok' | 'error'; text: string },
): string {
  return page(
    {
      title: 'Password',
      user,
      csrf: session.data.csrf,
      notice,
      settings: '/profile/password/edit',
    },
    html`<form method="post" action="/profile/password">
  ${csrfField(session.data.csrf)}
  <label for="current_password">Current password</label>
  <input type="password" id="current_password" name="current_password" autocomplete="current-password" required>
  <label for="new_password">New password</label>
  <input type="password" id="new_password" name="new_password" autocomplete="new-password" required minlength="${String(PASSWORD_MIN_LENGTH)}" maxlength="${String(PASSWORD_MAX_LENGTH)}" aria-describedby="password-rules">
  <p id="password-rules">${PASSWORD_MIN_LENGTH} to ${PASSWORD_MAX_LENGTH} characters, not only spaces, and not your current password, username or e-mail address. Changing it signs you out everywhere else.</p>
  <label for="password_confirmation">Confirm new password</label>
  <input type="password" id="password_confirmation" name="password_confirmation" autocomplete="new-password" required maxlength="${String(PASSWORD_MAX_LENGTH)}">
  <p><button type="submit">Save password</button></p>
</form>`,
  );
}

/**
 * `/profile/password/edit`: a user changes their own password with the current
 * one. The change ends every other session of theirs; this browser stays signed
 * in under a fresh session ID.
 */
export function registerPasswordPages(app: HttpApp, codehost: Codehost): void {
  app.get(
    '/profile/password/edit',
    { config: { signedIn: 'password-change' } },
    async (request, reply) => {
      const user = accountOf(request);
      const notice =
        user.password_change_required === 1
          ? {
              kind: 'error' as const,
              text: 'Your password was set for you. Choose one of your own to continue.',
            }
          : undefined;
      return reply.type('text/html').send(passwordPage(user, sessionOf(request), notice));
    },
  );

  // Guessing the current password from a stolen session is limited like signing in.
  const rateLimit = {
    max: codehost.platform.security.credentialRequestsPerMinute,
    timeWindow: 60_000,
  };
  app.post(
    '/profile/password',
    { config: { signedIn: 'password-change', rateLimit } },
    async (request, reply: FastifyReply) => {
      const user = accountOf(request);
      const session = sessionOf(request);
      const refuse = (text: string) =>
        reply
          .status(422)
          .type('text/html')
          .send(passwordPage(user, session, { kind: 'error', text }));
      const current = field(request.body, 'current_password');
      const next = field(request.body, 'new_password');
      if (!(await codehost.users.checkPassword(user, current))) {
        return refuse('The current password is not correct.');
      }
      const weak = passwordProblem(next);
      if (weak) return refuse(`The new password ${weak}.`);
      if (next.trim() === '') return refuse('The new password cannot be only spaces.');
      if (next === current) {
        return refuse('The new password must be different from the current one.');
      }
      const own = [user.username, ...(await codehost.users.emailsOf(user))].map((text) =>
        text.toLowerCase(),
      );
      if (own.includes(next.trim().toLowerCase())) {
        return refuse('The new password cannot be your username or e-mail address.');
      }
      if (next !== field(request.body, 'password_confirmation')) {
        return refuse('The confirmation does not match the new password.');
      }
      // Only a change someone else required interrupted where the user was going.
      const returnTo =
        user.password_change_required === 1 ? safeReturnPath(session.data.returnTo) : undefined;
      await codehost.users.setPassword(user.id, next);
      // Every session ended with the change (relying parties hear of it); this
      // browser goes on in a new one, signed in as it was.
      // Signed in as it was, and when it was.
      const fresh = await startSignedInSession(
        codehost,
        reply,
        user.id,
        session.data.amr,
        undefined,
        { authTime: session.data.authTime },
      );
      codehost.backchannelLogout.nudge();
      // Where a required change interrupted the user, they go on now; one that
      // interrupted nothing (signing in here directly) goes on to the profile.
      if (returnTo) return reply.redirect(returnTo, 302);
      if (user.password_change_required === 1) {
        return reply.redirect('/profile?done=password_changed', 303);
      }
      return reply.type('text/html').send(
        passwordPage(user, fresh, {
          kind: 'ok',
          text: 'Your password was changed. Your other sessions have been signed out.',
        }),
      );
    },
  );
}
