import type { HttpApp } from '../../platform/http/server.js';
import { newTotpSecret, provisioningUri, qrCodeSvg } from '../accounts/two-factor.js';
import { isTwoFactorEnabled } from '../accounts/users.js';
import type { Codehost } from '../context.js';
import { html, trusted } from './html.js';
import { csrfField, page } from './layout.js';
import type { Session } from './sessions.js';
import { field, signedInUser, webRoute } from './web-context.js';

export function registerProfilePages(app: HttpApp, codehost: Codehost): void {
  app.get('/profile', webRoute(codehost), async (request, reply) => {
    const user = await signedInUser(codehost, request, reply);
    if (!user) return reply;
    const session = request.session as Session;
    const emails = await codehost.users.emailsOf(user);
    return reply.type('text/html').send(
      page(
        { title: 'Profile', user, csrf: session.data.csrf },
        html`<table>
  <tr><th>Username</th><td>${user.username}</td></tr>
  <tr><th>Name</th><td>${user.name}</td></tr>
  <tr><th>Emails</th><td>${emails.map((email, index) => html`<div>${email}${index === 0 ? ' (primary)' : ''}</div>`)}</td></tr>
  <tr><th>Two-factor authentication</th><td>${isTwoFactorEnabled(user) ? 'Enabled' : 'Disabled'}</td></tr>
</table>`,
      ),
    );
  });

  app.get('/profile/two_factor_auth', webRoute(codehost), async (request, reply) => {
    const user = await signedInUser(codehost, request, reply);
    if (!user) return reply;
    const session = request.session as Session;
    if (isTwoFactorEnabled(user)) {
      const remaining = await codehost.twoFactor.remainingRecoveryCodes(user.id);
      return reply.type('text/html').send(
        page(
          { title: 'Two-factor authentication', user, csrf: session.data.csrf },
          html`<p>Two-factor authentication is <strong>enabled</strong>. ${remaining} recovery codes are left.</p>
<form method="post" action="/profile/two_factor_auth/disable">
  ${csrfField(session.data.csrf)}
  <label for="current_password">Current password</label>
  <input type="password" id="current_password" name="current_password" autocomplete="current-password" required>
  <p><button type="submit">Disable two-factor authentication</button></p>
</form>`,
        ),
      );
    }
    // The secret on offer is kept in the session until a code proves the app has it.
    session.data.otpSetupSecret ??= newTotpSecret();
    await codehost.sessions.save(session);
    return reply.type('text/html').send(await setupPage(codehost, session, user.username));
  });

  app.post('/profile/two_factor_auth', webRoute(codehost), async (request, reply) => {
    const user = await signedInUser(codehost, request, reply);
    if (!user) return reply;
    const session = request.session as Session;
    const secret = session.data.otpSetupSecret;
    if (isTwoFactorEnabled(user) || secret === undefined) {
      return reply.redirect('/profile/two_factor_auth', 302);
    }
    const codes = await codehost.twoFactor.enable(user.id, secret, field(request.body, 'pin_code'));
    if (!codes) {
      return reply
        .status(422)
        .type('text/html')
        .send(await setupPage(codehost, session, user.username, 'Invalid pin code. Try again.'));
    }
    delete session.data.otpSetupSecret;
    await codehost.sessions.save(session);
    return reply.type('text/html').send(
      page(
        {
          title: 'Two-factor authentication',
          user,
          csrf: session.data.csrf,
          notice: { kind: 'ok', text: 'Two-factor authentication is now enabled.' },
        },
        html`<p>Keep these recovery codes somewhere safe. Each signs you in once if you lose your
device. They are shown only now.</p>
<ul id="recovery-codes">${codes.map((code) => html`<li><code>${code}</code></li>`)}</ul>
<p><a href="/profile">Proceed</a></p>`,
      ),
    );
  });

  app.post('/profile/two_factor_auth/disable', webRoute(codehost), async (request, reply) => {
    const user = await signedInUser(codehost, request, reply);
    if (!user) return reply;
    const session = request.session as Session;
    // Through the sign-in check, so guesses here count against the account too.
    const check = await codehost.signIn.check(
      user.username,
      field(request.body, 'current_password'),
    );
    if (check.outcome !== 'ok') {
      return reply
        .status(422)
        .type('text/html')
        .send(
          page(
            {
              title: 'Two-factor authentication',
              user,
              csrf: session.data.csrf,
              notice: { kind: 'error', text: 'The password is not correct.' },
            },
            html`<p><a href="/profile/two_factor_auth">Back</a></p>`,
          ),
        );
    }
    await codehost.twoFactor.disable(user.id);
    return reply.redirect('/profile/two_factor_auth', 302);
  });
}

async function setupPage(
  codehost: Codehost,
  session: Session,
  username: string,
  error?: string,
): Promise<string> {
  const secret = session.data.otpSetupSecret ?? '';
  const uri = provisioningUri(secret, username, new URL(codehost.config.publicUrl).host);
  return page(
    {
      title: 'Two-factor authentication',
      user: { username },
      csrf: session.data.csrf,
      notice: error ? { kind: 'error', text: error } : undefined,
    },
    html`<p>Scan this QR code with an authenticator app (FreeOTP, Google Authenticator, …), or enter the key by hand.</p>
<div id="qr-code" aria-label="QR code">${trusted(await qrCodeSvg(uri))}</div>
<p>Key: <code id="otp-secret">${secret}</code></p>
<form method="post" action="/profile/two_factor_auth">
  ${csrfField(session.data.csrf)}
  <label for="pin_code">Code from the app</label>
  <input type="text" id="pin_code" name="pin_code" inputmode="numeric" autocomplete="one-time-code" required>
  <p><button type="submit">Register with two-factor app</button></p>
</form>`,
  );
}
