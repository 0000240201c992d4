import type { PublicKeyCredentialRequestOptionsJSON } from '@simplewebauthn/server';
import type { HttpApp } from '../../platform/http/server.js';
import { html } from '../../platform/web/html.js';
import { safeReturnPath } from '../../platform/web/return-path.js';
import { PasskeyRefused, passkeysNeedADomain } from '../accounts/passkeys.js';
import { hasTotp, isTwoFactorEnabled, type UserRow } from '../accounts/users.js';
import type { Codehost } from '../context.js';
import { AMR, completeSignIn, passkeyAmr } from './complete-sign-in.js';
import { csrfField, page } from './layout.js';
import {
  MAX_CEREMONY_ANSWER,
  offerSignIn,
  PASSKEY_SCRIPTS,
  passkeyForm,
  takeChallenge,
} from './passkey-forms.js';
import type { Session } from './sessions.js';
import { sessionOf } from './surface.js';
import { doneNotice, ensureSession, field } from './web-context.js';

/** How long a correct password waits for its two-factor code. */
const PENDING_TWO_FACTOR_MS = 5 * 60 * 1000;

function signInForm(
  csrf: string,
  passkey: PublicKeyCredentialRequestOptionsJSON,
  /** Why browsers will refuse passkeys at this address, when they will. */
  unavailable: string | undefined,
  error?: string,
  login = '',
  done?: { kind: 'ok'; text: string },
): string {
  return page(
    {
      title: 'Sign in',
      notice: error ? { kind: 'error', text: error } : done,
      scripts: PASSKEY_SCRIPTS,
    },
    html`<form method="post" action="/users/sign_in">
  ${csrfField(csrf)}
  <label for="login">Username or email</label>
  <input type="text" id="login" name="login" value="${login}" autocomplete="username" required autofocus>
  <label for="password">Password</label>
  <input type="password" id="password" name="password" autocomplete="current-password" required>
  <p><button type="submit">Sign in</button></p>
</form>
<section data-passkey-section hidden aria-labelledby="passkey-heading">
<h2 id="passkey-heading">Or use a passkey</h2>
${passkeyForm({ id: 'passkey-sign-in', action: '/users/sign_in/passkey', csrf, kind: 'authenticate', ceremony: passkey, button: 'Sign in with a passkey' })}
</section>
${unavailable ? html`<p class="hint" id="passkeys-unavailable">${unavailable}</p>` : html``}`,
  );
}

/** The second step after a right password: a code, a passkey, or either. */
function twoFactorForm(
  csrf: string,
  user: UserRow,
  passkey: PublicKeyCredentialRequestOptionsJSON | undefined,
  error?: string,
): string {
  return page(
    {
      title: 'Two-factor authentication',
      notice: error ? { kind: 'error', text: error } : undefined,
      scripts: PASSKEY_SCRIPTS,
    },
    html`${
      passkey
        ? html`<section data-passkey-section hidden aria-labelledby="passkey-heading">
<h2 id="passkey-heading">Use a passkey</h2>
<p>Your password was right. Finish signing in with one of your passkeys.</p>
${passkeyForm({ id: 'passkey-second-factor', action: '/users/sign_in/two_factor/passkey', csrf, kind: 'authenticate', ceremony: passkey, button: 'Use a passkey' })}
</section>${hasTotp(user) ? html`` : html`<p data-passkey-unsupported>This account's second factor is a passkey, and this browser cannot use one (it needs JavaScript and WebAuthn). Sign in from a browser that can, or with a recovery code.</p>`}`
        : html``
    }<form method="post" action="/users/sign_in/two_factor">
  ${csrfField(csrf)}
  ${
    hasTotp(user)
      ? html`<label for="otp_attempt">Enter the code from your authenticator app, or one of your recovery codes</label>`
      : html`<h2>Lost your passkey?</h2>
  <label for="otp_attempt">Enter one of your recovery codes</label>`
  }
  <input type="text" id="otp_attempt" name="otp_attempt" autocomplete="one-time-code" autocapitalize="none" spellcheck="false" required${hasTotp(user) ? html` autofocus` : html``}>
  <p><button type="submit">Verify code</button></p>
</form>`,
  );
}

export function registerSignInPages(app: HttpApp, codehost: Codehost): void {
  const rateLimit = {
    max: codehost.platform.security.credentialRequestsPerMinute,
    timeWindow: 60_000,
  };

  /** The sign-in page, with a new passkey challenge in the session for its passkey form. */
  const signInPage = async (
    session: Session,
    error?: string,
    login = '',
    done?: { kind: 'ok'; text: string },
  ) =>
    signInForm(
      session.data.csrf,
      await offerSignIn(codehost, session),
      codehost.passkeys.party.byAddress
        ? passkeysNeedADomain(codehost.passkeys.party, 'person')
        : undefined,
      error,
      login,
      done,
    );

  /** The second step for `user`, offering their passkeys when they have any. */
  const twoFactorPage = async (session: Session, user: UserRow, error?: string) =>
    twoFactorForm(
      session.data.csrf,
      user,
      user.passkey_count > 0 ? await offerSignIn(codehost, session, user) : undefined,
      error,
    );

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
      await signInPage(
        session,
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
    const session = sessionOf(request);
    const login = field(request.body, 'login');
    const password = field(request.body, 'password');
    if (!login || !password) {
      return reply
        .status(422)
        .type('text/html')
        .send(await signInPage(session, 'Enter your username or email and your password.', login));
    }
    const check = await codehost.signIn.check(login, password);
    if (check.outcome === 'invalid') {
      return reply
        .status(422)
        .type('text/html')
        .send(await signInPage(session, 'Invalid login or password.', login));
    }
    if (check.outcome === 'locked') {
      return reply
        .status(429)
        .header('retry-after', String(check.retryAfterSeconds))
        .type('text/html')
        .send(
          await signInPage(
            session,
            `Too many failed sign-in attempts. Try again in ${Math.ceil(check.retryAfterSeconds / 60)} minutes.`,
            login,
          ),
        );
    }
    if (check.outcome === 'blocked') {
      return reply
        .status(403)
        .type('text/html')
        .send(await signInPage(session, 'Your account has been blocked.'));
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
      return reply.type('text/html').send(await twoFactorPage(pending, check.user));
    }
    return completeSignIn(codehost, request, reply, check.user, AMR.password);
  });

  /** The user whose password was right a moment ago and whose second factor is due. */
  const pendingUser = async (session: Session) => {
    const { pendingUserId, pendingSince } = session.data;
    if (
      pendingUserId === undefined ||
      pendingSince === undefined ||
      Date.now() - pendingSince > PENDING_TWO_FACTOR_MS
    ) {
      return undefined;
    }
    const user = await codehost.users.findById(pendingUserId);
    return user?.state === 'active' && isTwoFactorEnabled(user) ? user : undefined;
  };

  /** The passkey a ceremony answer proves, or the reason it does not. */
  const provenPasskey = async (session: Session, body: unknown) => {
    const challenge = await takeChallenge(codehost, session);
    if (challenge === undefined) {
      return new PasskeyRefused('The passkey request has expired. Try again.');
    }
    try {
      return await codehost.passkeys.authenticate({
        responseText: field(body, 'credential').slice(0, MAX_CEREMONY_ANSWER),
        expectedChallenge: challenge,
      });
    } catch (error) {
      if (error instanceof PasskeyRefused) return error;
      throw error;
    }
  };

  // Signing in with a passkey alone: the passkey names its account, and counts
  // as two factors (something held, unlocked by the device's PIN or biometrics).
  app.post('/users/sign_in/passkey', { config: { rateLimit } }, async (request, reply) => {
    const session = sessionOf(request);
    const proven = await provenPasskey(session, request.body);
    if (proven instanceof PasskeyRefused) {
      return reply
        .status(422)
        .type('text/html')
        .send(await signInPage(session, proven.message));
    }
    const user = await codehost.users.findById(proven.user_id);
    if (user?.state !== 'active') {
      return reply
        .status(403)
        .type('text/html')
        .send(await signInPage(session, 'Your account has been blocked.'));
    }
    return completeSignIn(
      codehost,
      request,
      reply,
      user,
      passkeyAmr(proven.backed_up === 1, false),
    );
  });

  app.post(
    '/users/sign_in/two_factor/passkey',
    { config: { rateLimit } },
    async (request, reply) => {
      const session = sessionOf(request);
      const user = await pendingUser(session);
      if (!user) return reply.redirect('/users/sign_in', 302);
      const proven = await provenPasskey(session, request.body);
      const refusal =
        proven instanceof PasskeyRefused
          ? proven.message
          : proven.user_id !== user.id
            ? 'That passkey belongs to another account.'
            : undefined;
      if (refusal !== undefined || proven instanceof PasskeyRefused) {
        return reply
          .status(422)
          .type('text/html')
          .send(await twoFactorPage(session, user, refusal));
      }
      return completeSignIn(
        codehost,
        request,
        reply,
        user,
        passkeyAmr(proven.backed_up === 1, true),
      );
    },
  );

  app.post('/users/sign_in/two_factor', { config: { rateLimit } }, async (request, reply) => {
    const session = sessionOf(request);
    const user = await pendingUser(session);
    if (!user) return reply.redirect('/users/sign_in', 302);
    const key = `otp-failures:${user.id}`;
    const windowMs = codehost.platform.security.signInFailureWindowSeconds * 1000;
    const failures = await codehost.counters.peek(key, windowMs);
    if (failures.count >= codehost.platform.security.signInFailuresPerAccount) {
      return reply
        .status(429)
        .header('retry-after', String(Math.ceil(failures.resetsInMs / 1000)))
        .type('text/html')
        .send(await twoFactorPage(session, user, 'Too many wrong codes. Try again later.'));
    }
    if (!(await codehost.twoFactor.verify(user, field(request.body, 'otp_attempt')))) {
      await codehost.counters.hit(key, windowMs);
      return reply
        .status(422)
        .type('text/html')
        .send(await twoFactorPage(session, user, 'Invalid two-factor code.'));
    }
    await codehost.counters.reset(key);
    return completeSignIn(codehost, request, reply, user, AMR.passwordAndCode);
  });

  app.post('/users/sign_out', async (request, reply) => {
    await codehost.sessions.end(reply, request.session);
    codehost.backchannelLogout.nudge();
    return reply.redirect('/users/sign_in?done=signed_out', 302);
  });
}
