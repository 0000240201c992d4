import type { FastifyReply, FastifyRequest } from 'fastify';
import type { HttpApp } from '../../platform/http/server.js';
import { html } from '../../platform/web/html.js';
import { safeReturnPath } from '../../platform/web/return-path.js';
import { isTwoFactorEnabled, type UserRow } from '../accounts/users.js';
import type { Codehost } from '../context.js';
import { csrfField, page } from './layout.js';
import type { Session } from './sessions.js';
import { doneNotice, ensureSession, field } from './web-context.js';

/** How long a correct password waits for its two-factor code. */
const PENDING_TWO_FACTOR_MS = 5 * 60 * 1000;

function signInForm(
  csrf: string,
  error?: string,
  login = '',
  done?: { kind: 'ok'; text: string },
): string {
  return page(
    { title: 'Sign in', notice: error ? { kind: 'error', text: error } : done },
    html`<form method="post" action="/users/sign_in">
  ${csrfField(csrf)}
  <label for="login">Username or email</label>
  <input type="text" id="login" name="login" value="${login}" autocomplete="username" required autofocus>
  <label for="password">Password</label>
  <input type="password" id="password" name="password" autocomplete="current-password" required>
  <p><button type="submit">Sign in</button></p>
</form>`,
  );
}

function twoFactorForm(csrf: string, error?: string): string {
  return page(
    {
      title: 'Two-factor authentication',
      notice: error ? { kind: 'error', text: error } : undefined,
    },
    html`<form method="post" action="/users/sign_in/two_factor">
  ${csrfField(csrf)}
  <label for="otp_attempt">Enter the code from your authenticator app, or one of your recovery codes</label>
  <input type="text" id="otp_attempt" name="otp_attempt" autocomplete="one-time-code" autocapitalize="none" spellcheck="false" required autofocus>
  <p><button type="submit">Verify code</button></p>
</form>`,
  );
}

export function registerSignInPages(app: HttpApp, codehost: Codehost): void {
  const rateLimit = {
    max: codehost.platform.security.credentialRequestsPerMinute,
    timeWindow: 60_000,
  };

  app.get('/', async (request, reply) =>
    reply.redirect(request.session?.data.userId === undefined ? '/users/sign_in' : '/profile', 302),
  );

  app.get('/users/sign_in', async (request, reply) => {
    const signedIn = request.session?.data.userId;
    if (signedIn !== undefined && request.session?.data.reauthenticateUntil === undefined) {
      return reply.redirect(safeReturnPath(request.session?.data.returnTo) ?? '/profile', 302);
    }
    const session = await ensureSession(codehost, request, reply);
    const current = signedIn === undefined ? undefined : await codehost.users.findById(signedIn);
    return reply.type('text/html').send(
      signInForm(
        session.data.csrf,
        undefined,
        session.data.loginHint ?? current?.username ?? '',
        current
          ? {
              kind: 'ok',
              text: 'The application asks you to sign in again. You stay signed in until you do.',
            }
          : doneNotice(request, { signed_out: 'You have been signed out.' }),
      ),
    );
  });

  app.post('/users/sign_in', { config: { rateLimit } }, async (request, reply) => {
    const session = request.session as Session;
    const login = field(request.body, 'login');
    const password = field(request.body, 'password');
    if (!login || !password) {
      return reply
        .status(422)
        .type('text/html')
        .send(
          signInForm(session.data.csrf, 'Enter your username or email and your password.', login),
        );
    }
    const check = await codehost.signIn.check(login, password);
    if (check.outcome === 'invalid') {
      return reply
        .status(422)
        .type('text/html')
        .send(signInForm(session.data.csrf, 'Invalid login or password.', login));
    }
    if (check.outcome === 'locked') {
      return reply
        .status(429)
        .header('retry-after', String(check.retryAfterSeconds))
        .type('text/html')
        .send(
          signInForm(
            session.data.csrf,
            `Too many failed sign-in attempts. Try again in ${Math.ceil(check.retryAfterSeconds / 60)} minutes.`,
            login,
          ),
        );
    }
    if (check.outcome === 'blocked') {
      return reply
        .status(403)
        .type('text/html')
        .send(signInForm(session.data.csrf, 'Your account has been blocked.'));
    }
    const returnTo = session.data.returnTo;
    if (isTwoFactorEnabled(check.user)) {
      const pending = await codehost.sessions.start(
        reply,
        {
          pendingUserId: check.user.id,
          pendingSince: Date.now(),
          ...(returnTo ? { returnTo } : {}),
          // Signing in again: still signed in as before until the code is given.
          ...(session.data.reauthenticateUntil !== undefined && session.data.userId !== undefined
            ? {
                userId: session.data.userId,
                reauthenticateUntil: session.data.reauthenticateUntil,
              }
            : {}),
        },
        session,
      );
      return reply.type('text/html').send(twoFactorForm(pending.data.csrf));
    }
    return completeSignIn(codehost, request, reply, check.user);
  });

  app.post('/users/sign_in/two_factor', { config: { rateLimit } }, async (request, reply) => {
    const session = request.session as Session;
    const { pendingUserId, pendingSince } = session.data;
    if (
      pendingUserId === undefined ||
      pendingSince === undefined ||
      Date.now() - pendingSince > PENDING_TWO_FACTOR_MS
    ) {
      return reply.redirect('/users/sign_in', 302);
    }
    const user = await codehost.users.findById(pendingUserId);
    if (user?.state !== 'active' || !isTwoFactorEnabled(user)) {
      return reply.redirect('/users/sign_in', 302);
    }
    const key = `otp-failures:${user.id}`;
    const windowMs = codehost.platform.security.signInFailureWindowSeconds * 1000;
    const failures = await codehost.counters.peek(key, windowMs);
    if (failures.count >= codehost.platform.security.signInFailuresPerAccount) {
      return reply
        .status(429)
        .header('retry-after', String(Math.ceil(failures.resetsInMs / 1000)))
        .type('text/html')
        .send(twoFactorForm(session.data.csrf, 'Too many wrong codes. Try again later.'));
    }
    if (!(await codehost.twoFactor.verify(user, field(request.body, 'otp_attempt')))) {
      await codehost.counters.hit(key, windowMs);
      return reply
        .status(422)
        .type('text/html')
        .send(twoFactorForm(session.data.csrf, 'Invalid two-factor code.'));
    }
    await codehost.counters.reset(key);
    return completeSignIn(codehost, request, reply, user);
  });

  app.post('/users/sign_out', async (request, reply) => {
    await codehost.sessions.end(reply, request.session);
    return reply.redirect('/users/sign_in?done=signed_out', 302);
  });
}

/** A fresh session ID at the moment of signing in, so a planted ID gains nothing. */
async function completeSignIn(
  codehost: Codehost,
  request: FastifyRequest,
  reply: FastifyReply,
  user: UserRow,
): Promise<FastifyReply> {
  const returnTo = safeReturnPath(request.session?.data.returnTo);
  await codehost.users.recordSignIn(user);
  // A password someone else chose (the first root password, a reset) is replaced
  // first; where the user was going waits until then.
  if (user.password_change_required === 1) {
    await codehost.sessions.start(
      reply,
      { userId: user.id, ...(returnTo ? { returnTo } : {}) },
      request.session,
    );
    return reply.redirect('/profile/password/edit', 302);
  }
  await codehost.sessions.start(reply, { userId: user.id }, request.session);
  return reply.redirect(returnTo ?? '/profile', 302);
}
