import type { FastifyReply } from 'fastify';
import type { HttpApp } from '../../platform/http/server.js';
import { html, type Markup, trusted } from '../../platform/web/html.js';
import { newTotpSecret, provisioningUri, qrCodeSvg } from '../accounts/two-factor.js';
import { hasTotp, isTwoFactorEnabled, type UserRow } from '../accounts/users.js';
import type { Codehost } from '../context.js';
import { copyable } from './copy.js';
import { csrfField, page } from './layout.js';
import type { Session } from './sessions.js';
import { accountOf, sessionOf } from './surface.js';
import { currentPasswordAccepted, doneNotice, field } from './web-context.js';

const SETTINGS_PATH = '/profile/two_factor_auth';
const TITLE = 'Two-factor authentication';

/** A base32 key in groups of four, as people copy it by hand from a screen. */
export function groupedKey(secret: string): string {
  return secret.replace(/(.{4})(?=.)/g, '$1 ');
}

/** The password field the account's own confirmations ask for. */
function passwordField(id: string) {
  return html`<label for="${id}">Current password</label>
  <input type="password" id="${id}" name="current_password" autocomplete="current-password" required>`;
}

/**
 * GitLab's two-factor settings: set-up with a QR code or a key typed by hand,
 * recovery codes shown once (to copy or download as a text file) and made anew
 * with the password, and turning it off with the password.
 */
/** Making new recovery codes, with the password. */
function codesSection(session: Session): Markup {
  return html`<h2>Recovery codes</h2>
<p>New codes replace every earlier one, used or not.</p>
<form method="post" action="/profile/two_factor_auth/codes">
  ${csrfField(session.data.csrf)}
  ${passwordField('codes_current_password')}
  <p><button type="submit">Regenerate recovery codes</button></p>
</form>`;
}

/** A page of this section; a refusal (an error notice) is a 422. */
function send(
  reply: FastifyReply,
  user: UserRow,
  session: Session,
  notice: { kind: 'ok' | 'error'; text: string } | undefined,
  content: Markup,
) {
  return reply
    .status(notice?.kind === 'error' ? 422 : 200)
    .type('text/html')
    .send(
      page(
        { title: TITLE, user, csrf: session.data.csrf, settings: SETTINGS_PATH, notice },
        content,
      ),
    );
}

/**
 * New recovery codes, shown this once (to copy or download as a text file):
 * after the authenticator app is set up, after the first passkey is added,
 * or when the user asks for new ones.
 */
export function recoveryCodesPage(
  reply: FastifyReply,
  user: UserRow,
  session: Session,
  codes: string[],
  news: string,
  otherSessions = 0,
) {
  const file = `data:text/plain;charset=utf-8,${encodeURIComponent(`${codes.join('\n')}\n`)}`;
  return send(
    reply,
    user,
    session,
    {
      kind: 'ok',
      text: `${news} Save these recovery codes now: they are shown only this once.`,
    },
    html`<p>Each code signs you in once if you lose your device or passkey. Keep them somewhere safe, apart from the device.</p>
<ul id="recovery-codes">${codes.map((code) => html`<li><code>${code}</code></li>`)}</ul>
<p><a id="download-codes" href="${file}" download="codehost-recovery-codes.txt">Download codes (text file)</a>
${copyable('recovery-codes-text', codes.join('\n'), { hidden: true, label: 'Copy codes' })}</p>
${
  otherSessions > 0
    ? html`<section id="password-only-sessions" aria-labelledby="password-only-heading">
<h2 id="password-only-heading">Other sessions</h2>
<p>${otherSessions === 1 ? 'One other session is' : `${String(otherSessions)} other sessions are`} still signed in with your password alone, from before two-factor authentication was on. If the password was ever known to someone else, end ${otherSessions === 1 ? 'it' : 'them'}: signing in again then needs a code.</p>
<form method="post" action="/profile/active_sessions/revoke_others">${csrfField(session.data.csrf)}<p><button type="submit" class="danger">End ${otherSessions === 1 ? 'the other session' : `the ${String(otherSessions)} other sessions`}</button> <a href="/profile/active_sessions">See them first</a></p></form>
</section>`
    : html``
}
<p><a href="${SETTINGS_PATH}">Done</a></p>`,
  );
}

export function registerTwoFactorPages(app: HttpApp, codehost: Codehost): void {
  const enabledPage = async (
    reply: FastifyReply,
    user: UserRow,
    session: Session,
    error?: string,
  ) => {
    const remaining = await codehost.twoFactor.remainingRecoveryCodes(user.id);
    return send(
      reply,
      user,
      session,
      error ? { kind: 'error', text: error } : undefined,
      html`<p>Two-factor authentication is <strong>enabled</strong>. ${remaining} of 10 recovery codes are left.</p>
${codesSection(session)}
<h2>Turn off</h2>
<form method="post" action="/profile/two_factor_auth/disable">
  ${csrfField(session.data.csrf)}
  ${passwordField('current_password')}
  <p><button type="submit" class="danger">Disable two-factor authentication</button></p>
</form>`,
    );
  };

  const setupPage = async (
    reply: FastifyReply,
    user: UserRow,
    session: Session,
    notice?: { kind: 'ok' | 'error'; text: string },
  ) => {
    const secret = session.data.otpSetupSecret ?? '';
    const uri = provisioningUri(secret, user.username, new URL(codehost.config.publicUrl).host);
    // Passkeys alone turn two-factor on: their recovery codes are kept here too.
    const passkeysOnly =
      user.passkey_count > 0
        ? html`<p>Two-factor authentication is <strong>enabled</strong> with your <a href="/profile/passkeys">passkeys</a>. ${await codehost.twoFactor.remainingRecoveryCodes(user.id)} of 10 recovery codes are left.</p>
${codesSection(session)}
<h2>Add an authenticator app</h2>`
        : html``;
    return send(
      reply,
      user,
      session,
      notice,
      html`${passkeysOnly}<p>Scan this QR code with an authenticator app (FreeOTP, Google Authenticator, …), or enter the key by hand.</p>
<figure id="qr-code"><div role="img" aria-label="QR code of the key below">${trusted(await qrCodeSvg(uri))}</div></figure>
<p>Key: ${copyable('otp-secret', secret, { shown: groupedKey(secret) })}</p>
<form method="post" action="${SETTINGS_PATH}">
  ${csrfField(session.data.csrf)}
  ${passwordField('current_password')}
  <label for="pin_code">Code from the app</label>
  <input type="text" id="pin_code" name="pin_code" inputmode="numeric" autocomplete="one-time-code" required>
  <p><button type="submit">Register with two-factor app</button></p>
</form>`,
    );
  };

  app.get(SETTINGS_PATH, { config: { signedIn: true } }, async (request, reply) => {
    const user = accountOf(request);
    const session = sessionOf(request);
    if (hasTotp(user)) return enabledPage(reply, user, session);
    // The secret on offer is kept in the session until a code proves the app has it.
    session.data.otpSetupSecret ??= newTotpSecret();
    await codehost.sessions.save(session);
    return setupPage(
      reply,
      user,
      session,
      doneNotice(request, { disabled: 'The authenticator app was turned off.' }),
    );
  });

  app.post(SETTINGS_PATH, { config: { signedIn: true } }, async (request, reply) => {
    const user = accountOf(request);
    const session = sessionOf(request);
    const secret = session.data.otpSetupSecret;
    if (hasTotp(user) || secret === undefined) {
      return reply.redirect(SETTINGS_PATH, 302);
    }
    // As GitLab asks: someone at an unattended, signed-in browser cannot lock the owner out.
    if (!(await currentPasswordAccepted(codehost, user, request.body))) {
      return setupPage(reply, user, session, {
        kind: 'error',
        text: 'The password is not correct.',
      });
    }
    const codes = await codehost.twoFactor.enable(user.id, secret, field(request.body, 'pin_code'));
    if (!codes) {
      return setupPage(reply, user, session, {
        kind: 'error',
        text: 'Invalid pin code. Try again.',
      });
    }
    delete session.data.otpSetupSecret;
    await codehost.sessions.save(session);
    // Every other session signed in before two-factor was on: with the password alone.
    const others = (await codehost.sessions.activeFor(user.id)).length - 1;
    return recoveryCodesPage(
      reply,
      user,
      session,
      codes,
      'Two-factor authentication is now enabled.',
      others,
    );
  });

  /** An action on a second factor that is on (`applies`): it asks for the current password first. */
  const withPassword = (
    path: string,
    applies: (user: UserRow) => boolean,
    act: (user: UserRow, session: Session, reply: FastifyReply) => Promise<FastifyReply>,
  ) =>
    app.post(path, { config: { signedIn: true } }, async (request, reply) => {
      const user = accountOf(request);
      const session = sessionOf(request);
      if (!applies(user)) return reply.redirect(SETTINGS_PATH, 302);
      if (!(await currentPasswordAccepted(codehost, user, request.body))) {
        const error = 'The password is not correct.';
        return hasTotp(user)
          ? enabledPage(reply, user, session, error)
          : setupPage(reply, user, session, { kind: 'error', text: error });
      }
      return act(user, session, reply);
    });

  // The notice that an administrator turned the second factors off, read.
  app.post(`${SETTINGS_PATH}/notice`, { config: { signedIn: true } }, async (request, reply) => {
    await codehost.twoFactor.dismissRemovalNotice(accountOf(request).id);
    return reply.redirect(SETTINGS_PATH, 303);
  });

  withPassword(
    '/profile/two_factor_auth/codes',
    isTwoFactorEnabled,
    async (user, session, reply) => {
      const codes = await codehost.twoFactor.regenerateRecoveryCodes(user.id);
      return recoveryCodesPage(reply, user, session, codes, 'New codes replace the earlier ones.');
    },
  );

  withPassword('/profile/two_factor_auth/disable', hasTotp, async (user, _session, reply) => {
    await codehost.twoFactor.disable(user.id);
    return reply.redirect(`${SETTINGS_PATH}?done=disabled`, 303);
  });
}
