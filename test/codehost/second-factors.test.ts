/**
 * A passkey-only account keeps a way back: recovery codes with any second
 * factor, offered at the second step and regenerated with the password; and an
 * administrator's command that turns every second factor off, said on the
 * user's pages and in a mail through a real SMTP server.
 */
import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { accountCommands } from '../../src/codehost/accounts/commands.js';
import { TwoFactorStore } from '../../src/codehost/accounts/two-factor.js';
import { withServiceSettings } from '../../src/platform/config.js';
import { DATABASE_KINDS } from '../harness.js';
import { SmtpReceiver } from '../refdata/smtp-receiver.js';
import { codehostForTests, createUser, WebClient } from './helpers.js';

function captured() {
  let text = '';
  const stream = new Writable({
    write(chunk, _encoding, done) {
      text += String(chunk);
      done();
    },
  });
  return { stream, text: () => text };
}

describe.each(DATABASE_KINDS)('second factors and the way back on %s', (kind) => {
  const service = codehostForTests(kind);
  let smtp: SmtpReceiver;
  beforeAll(async () => {
    smtp = await SmtpReceiver.start();
  });
  afterAll(() => smtp.close());

  /** A user whose one second factor is a passkey, as its registration leaves them. */
  async function passkeyOnly() {
    const user = await createUser(service);
    await service.db
      .insertInto('passkeys')
      .values({
        user_id: user.id,
        name: 'Laptop',
        credential_id: `credential-${user.id}-${kind}`,
        public_key: 'pQECAyYgASFYIA',
        counter: 0,
        created_at: Date.now(),
      })
      .execute();
    await service.db
      .updateTable('users')
      .set({ passkey_count: 1 })
      .where('id', '=', user.id)
      .execute();
    // What adding the first passkey does (in Chromium: test/browser/codehost-passkeys.test.ts).
    const codes = await new TwoFactorStore(service.db).ensureRecoveryCodes(user.id);
    expect(codes).toHaveLength(10);
    return { user, codes: codes as string[] };
  }

  it('lets a passkey-only account in with a recovery code, once each, and regenerate them', async () => {
    const { user, codes } = await passkeyOnly();
    // A second call gives none: codes are made once, shown once.
    expect(await new TwoFactorStore(service.db).ensureRecoveryCodes(user.id)).toBeUndefined();
    const browser = new WebClient(service);
    const second = await browser.signIn(user.username, user.password);
    expect(second.body).toContain('Lost your passkey?');
    expect(second.body).toContain('id="otp_attempt"');
    const wrong = await browser.post('/users/sign_in/two_factor', {
      otp_attempt: '0123456789abcdef',
    });
    expect(wrong.statusCode).toBe(422);
    const signedIn = await browser.post('/users/sign_in/two_factor', {
      otp_attempt: codes[0] as string,
    });
    expect(signedIn.statusCode).toBe(302);
    expect((await browser.get('/profile')).statusCode).toBe(200);

    // The same code never works twice.
    const again = new WebClient(service);
    await again.signIn(user.username, user.password);
    expect(
      (await again.post('/users/sign_in/two_factor', { otp_attempt: codes[0] as string }))
        .statusCode,
    ).toBe(422);

    // The two-factor page says passkeys are on, and makes new codes with the password.
    const settings = await browser.get('/profile/two_factor_auth');
    expect(settings.body).toContain(
      'enabled</strong> with your <a href="/profile/passkeys">passkeys',
    );
    expect(settings.body).toContain('9 of 10 recovery codes are left');
    const refused = await browser.post('/profile/two_factor_auth/codes', {
      current_password: 'not it',
    });
    expect(refused.statusCode).toBe(422);
    const renewed = await browser.post('/profile/two_factor_auth/codes', {
      current_password: user.password,
    });
    expect(renewed.statusCode).toBe(200);
    const fresh = [...renewed.body.matchAll(/<li><code>([0-9a-f]{16})<\/code><\/li>/g)].map(
      (match) => match[1] as string,
    );
    expect(fresh).toHaveLength(10);
    const withNew = new WebClient(service);
    await withNew.signIn(user.username, user.password);
    expect(
      (await withNew.post('/users/sign_in/two_factor', { otp_attempt: codes[1] as string }))
        .statusCode,
    ).toBe(422);
    expect(
      (await withNew.post('/users/sign_in/two_factor', { otp_attempt: fresh[0] as string }))
        .statusCode,
    ).toBe(302);
  });

  it('drops the recovery codes with the last passkey of an account without an app', async () => {
    const { user, codes } = await passkeyOnly();
    const two = new TwoFactorStore(service.db);
    const [passkey] = await service.db
      .selectFrom('passkeys')
      .select('id')
      .where('user_id', '=', user.id)
      .execute();
    const browser = new WebClient(service);
    await browser.signIn(user.username, user.password);
    await browser.post('/users/sign_in/two_factor', { otp_attempt: codes[0] as string });
    expect(await two.remainingRecoveryCodes(user.id)).toBe(9);
    await browser.get('/profile/passkeys');
    const removed = await browser.post(`/profile/passkeys/${passkey?.id}/delete`, {
      current_password: user.password,
    });
    expect(removed.statusCode).toBe(303);
    expect(await two.remainingRecoveryCodes(user.id)).toBe(0);
  });

  it("turns a locked-out user's second factors off from the command line, saying so on their pages and in a mail", async () => {
    const { user } = await passkeyOnly();
    // The user has a session from before (signed in with a recovery code elsewhere, say).
    const before = new WebClient(service);
    await before.signIn(user.username, user.password);
    await before.post('/users/sign_in/two_factor', {
      otp_attempt: (
        await new TwoFactorStore(service.db).regenerateRecoveryCodes(user.id)
      )[0] as string,
    });
    expect((await before.get('/profile')).body).not.toContain('second-factors-removed');

    const command = accountCommands.find(
      (each) => each.name === 'codehost-user-disable-two-factor',
    );
    expect(command).toBeDefined();
    const stdout = captured();
    const stderr = captured();
    const config = withServiceSettings(service.config, 'codehost', {
      mail: {
        smtpUrl: `smtp://127.0.0.1:${smtp.port}`,
        from: 'codehost <codehost@example.org>',
        folder: '/nonexistent',
      },
    });
    const status = await command?.run([user.username], {
      config: () => config,
      stdout: stdout.stream,
      stderr: stderr.stream,
    });
    expect(stderr.text()).toBe('');
    expect(status).toBe(0);
    expect(stdout.text()).toContain(
      `Turned off two-factor authentication for ${user.username}: 1 passkey and the recovery codes were removed.`,
    );
    expect(stdout.text()).toContain('A mail telling them went to the SMTP server.');

    const stored = await service.db
      .selectFrom('users')
      .select(['otp_secret', 'passkey_count', 'second_factors_removed_at'])
      .where('id', '=', user.id)
      .executeTakeFirstOrThrow();
    expect(stored).toMatchObject({ otp_secret: null, passkey_count: 0 });
    expect(stored.second_factors_removed_at).not.toBeNull();
    expect(await new TwoFactorStore(service.db).remainingRecoveryCodes(user.id)).toBe(0);

    const mail = smtp.received.find((each) => each.to.includes(user.email));
    expect(mail?.subject).toBe('Your two-factor authentication was turned off');
    expect(mail?.text).toContain(`for your account ${user.username}`);
    expect(mail?.text).toContain('your passkey, your recovery codes were removed');
    expect(mail?.text).toContain(`${service.url}/profile/password/edit`);

    // The session from before says so on every page, until dismissed.
    for (const path of ['/profile', '/profile/applications']) {
      const shown = await before.get(path);
      expect(shown.body).toContain('id="second-factors-removed"');
      expect(shown.body).toContain(
        'An administrator removed your authenticator app, passkeys and recovery codes',
      );
    }
    // The password alone signs in now.
    const fresh = new WebClient(service);
    const direct = await fresh.signIn(user.username, user.password);
    expect(direct.statusCode).toBe(302);
    expect(direct.headers.location).not.toContain('two_factor');
    await before.get('/profile');
    const dismissed = await before.post('/profile/two_factor_auth/notice', {});
    expect(dismissed.statusCode).toBe(303);
    expect((await before.get('/profile')).body).not.toContain('second-factors-removed');

    // Run again, it changes nothing and says so.
    const again = captured();
    await command?.run([user.username], {
      config: () => config,
      stdout: again.stream,
      stderr: captured().stream,
    });
    expect(again.text()).toBe(`${user.username} has no second factor; nothing was changed.\n`);
  });
});
