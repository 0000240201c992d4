import { describe, expect, it } from 'vitest';
import { currentCode } from '../../src/codehost/accounts/two-factor.js';
import { DATABASE_KINDS } from '../harness.js';
import { codehostForTests, copyableValue, createUser, tokenRequest, WebClient } from './helpers.js';

describe.each(DATABASE_KINDS)('on %s', (kind) => {
  const service = codehostForTests(kind, {
    env: { SIGN_IN_FAILURES_PER_ACCOUNT: '3' },
  });

  describe('sign-in', () => {
    it('signs in by username or e-mail in any case, with a new session ID', async () => {
      const user = await createUser(service);
      const client = new WebClient(service);
      await client.get('/users/sign_in');
      const anonymous = client.cookie;
      const response = await client.post('/users/sign_in', {
        login: user.email.toUpperCase(),
        password: user.password,
      });
      expect(response.statusCode).toBe(302);
      expect(response.headers.location).toBe('/profile');
      expect(client.cookie).not.toBe(anonymous);
      const setCookie = String(response.headers['set-cookie']);
      expect(setCookie).toMatch(/HttpOnly/i);
      expect(setCookie).toMatch(/SameSite=Lax/i);
      const profile = await client.get('/profile');
      expect(profile.statusCode).toBe(200);
      expect(profile.body).toContain(user.username);
      // The session table holds hashes, never the cookie value.
      const rows = await service.db.selectFrom('sessions').select('id_hash').execute();
      expect(rows.map((row) => row.id_hash)).not.toContain(client.cookie);
    });

    it('gives one generic message for a wrong password and an unknown login', async () => {
      const user = await createUser(service);
      const client = new WebClient(service);
      const wrong = await client.signIn(user.username, 'wrong-password');
      const unknown = await client.signIn('no-such-user', 'wrong-password');
      expect(wrong.statusCode).toBe(422);
      expect(unknown.statusCode).toBe(422);
      expect(wrong.body).toContain('Invalid login or password.');
      expect(unknown.body).toContain('Invalid login or password.');
    });

    it('holds an account after too many failures, whatever the address, until the window ends', async () => {
      const user = await createUser(service);
      const client = new WebClient(service);
      for (let attempt = 0; attempt < 3; attempt += 1) {
        expect((await client.signIn(user.username, 'wrong-password')).statusCode).toBe(422);
      }
      const held = await client.signIn(user.username, user.password);
      expect(held.statusCode).toBe(429);
      expect(Number(held.headers['retry-after'])).toBeGreaterThan(0);
      // The password grant shares the count.
      const grant = await tokenRequest(service, {
        grant_type: 'password',
        username: user.username,
        password: user.password,
      });
      expect(grant.json().error_description).toMatch(/Too many failed/);
      await service.db.deleteFrom('rate_limit_counters').execute();
      expect((await client.signIn(user.username, user.password)).statusCode).toBe(302);
    });

    it("refuses a form without the session's token, and signs out", async () => {
      const user = await createUser(service);
      const client = new WebClient(service);
      await client.get('/users/sign_in');
      const forged = await client.post('/users/sign_in', {
        authenticity_token: '0'.repeat(64),
        login: user.username,
        password: user.password,
      });
      expect(forged.statusCode).toBe(422);
      expect(forged.headers['content-type']).toMatch(/^text\/html/);
      await client.signIn(user.username, user.password);
      await client.get('/profile');
      const out = await client.post('/users/sign_out', {});
      expect(out.statusCode).toBe(302);
      const after = await client.get('/profile');
      expect(after.statusCode).toBe(302);
      expect(after.headers.location).toBe('/users/sign_in');
    });

    it('tells a blocked user so only after the right password', async () => {
      const user = await createUser(service);
      await service.db
        .updateTable('users')
        .set({ state: 'blocked' })
        .where('id', '=', user.id)
        .execute();
      const client = new WebClient(service);
      expect((await client.signIn(user.username, 'wrong-password')).body).toContain(
        'Invalid login or password.',
      );
      const right = await client.signIn(user.username, user.password);
      expect(right.statusCode).toBe(403);
      expect(right.body).toContain('blocked');
    });
  });

  describe('two-factor authentication', () => {
    it('offers, once on, to end the sessions that signed in with the password alone', async () => {
      const user = await createUser(service);
      const here = new WebClient(service);
      const laptop = new WebClient(service);
      const phone = new WebClient(service);
      for (const client of [phone, laptop, here]) await client.signIn(user.username, user.password);
      const setup = await here.get('/profile/two_factor_auth');
      const enabled = await here.post('/profile/two_factor_auth', {
        current_password: user.password,
        pin_code: currentCode(copyableValue(setup.body, 'otp-secret') ?? ''),
      });
      expect(enabled.statusCode).toBe(200);
      expect(enabled.body).toContain(
        '2 other sessions are still signed in with your password alone',
      );
      const ended = await here.post('/profile/active_sessions/revoke_others', {});
      expect(ended.statusCode).toBe(303);
      for (const other of [laptop, phone]) {
        expect((await other.get('/profile')).headers.location).toBe('/users/sign_in');
      }
      expect((await here.get('/profile')).statusCode).toBe(200);
      // With no other session, nothing is offered.
      const alone = await createUser(service);
      const only = new WebClient(service);
      await only.signIn(alone.username, alone.password);
      const page = await only.get('/profile/two_factor_auth');
      const on = await only.post('/profile/two_factor_auth', {
        current_password: alone.password,
        pin_code: currentCode(copyableValue(page.body, 'otp-secret') ?? ''),
      });
      expect(on.body).not.toContain('password-only-sessions');
    });

    it('enables with a valid code, asks for a code at sign-in, accepts a recovery code once, disables with the password', async () => {
      const user = await createUser(service);
      const client = new WebClient(service);
      await client.signIn(user.username, user.password);
      const setup = await client.get('/profile/two_factor_auth');
      expect(setup.body).toContain('<svg');
      const secret = copyableValue(setup.body, 'otp-secret') ?? '';
      expect(secret).toMatch(/^[A-Z2-7]{32}$/);
      const rejected = await client.post('/profile/two_factor_auth', {
        current_password: user.password,
        pin_code: '000000' === currentCode(secret) ? '111111' : '000000',
      });
      expect(rejected.statusCode).toBe(422);
      const enabled = await client.post('/profile/two_factor_auth', {
        current_password: user.password,
        pin_code: currentCode(secret),
      });
      expect(enabled.statusCode).toBe(200);
      const codes = [...enabled.body.matchAll(/<li><code>([0-9a-f]{16})<\/code><\/li>/g)].map(
        (m) => m[1] as string,
      );
      expect(codes).toHaveLength(10);
      const stored = await service.db
        .selectFrom('recovery_codes')
        .select('code_hash')
        .where('user_id', '=', user.id)
        .execute();
      expect(stored.map((row) => row.code_hash)).not.toContain(codes[0]);

      // Sign-in now asks for the code; the password alone gives no session.
      const second = new WebClient(service);
      const asked = await second.signIn(user.username, user.password);
      expect(asked.statusCode).toBe(200);
      expect(asked.body).toContain('otp_attempt');
      expect((await second.get('/profile')).statusCode).toBe(302);
      expect(
        (await second.post('/users/sign_in/two_factor', { otp_attempt: '123' })).statusCode,
      ).toBe(422);
      const viaRecovery = await second.post('/users/sign_in/two_factor', {
        otp_attempt: codes[0] as string,
      });
      expect(viaRecovery.statusCode).toBe(302);
      expect((await second.get('/profile')).statusCode).toBe(200);

      // The recovery code is spent.
      const third = new WebClient(service);
      await third.signIn(user.username, user.password);
      expect(
        (await third.post('/users/sign_in/two_factor', { otp_attempt: codes[0] as string }))
          .statusCode,
      ).toBe(422);

      await client.get('/profile/two_factor_auth');
      expect(
        (
          await client.post('/profile/two_factor_auth/disable', {
            current_password: 'wrong-password',
          })
        ).statusCode,
      ).toBe(422);
      const disabled = await client.post('/profile/two_factor_auth/disable', {
        current_password: user.password,
      });
      expect(disabled.statusCode).toBe(303);
      const row = await service.db
        .selectFrom('users')
        .select('otp_secret')
        .where('id', '=', user.id)
        .executeTakeFirstOrThrow();
      expect(row.otp_secret).toBeNull();
    });
  });

  describe('applications', () => {
    it('registers an application, shows its secret once, edits, renews and deletes it', async () => {
      const user = await createUser(service);
      const client = new WebClient(service);
      await client.signIn(user.username, user.password);
      await client.get('/profile/applications');
      const invalid = await client.post('/profile/applications', {
        name: 'My app',
        redirect_uri: 'javascript:alert(1)',
        scopes: 'api',
      });
      expect(invalid.statusCode).toBe(422);
      const created = await client.submit('/profile/applications', {
        name: 'My <app>',
        redirect_uri: 'https://app.example/cb\nhttp://127.0.0.1:9999/cb',
        scopes: ['api', 'read_user'],
        confidential: '1',
      });
      expect(created.statusCode).toBe(200);
      expect(created.body).toContain('My &lt;app&gt;');
      const secret = copyableValue(created.body, 'application-secret');
      const uid = copyableValue(created.body, 'application-id');
      expect(secret).toBeDefined();
      const row = await service.db
        .selectFrom('oauth_applications')
        .selectAll()
        .where('uid', '=', uid ?? '')
        .executeTakeFirstOrThrow();
      expect(row.secret_hash).not.toBe(secret);
      expect(row.redirect_uri).toBe('https://app.example/cb\nhttp://127.0.0.1:9999/cb');

      const shown = await client.get(`/profile/applications/${row.id}`);
      expect(shown.body).not.toContain(secret);

      const edited = await client.post(`/profile/applications/${row.id}`, {
        name: 'Renamed',
        redirect_uri: 'https://app.example/cb',
        scopes: 'read_user',
      });
      expect(edited.statusCode).toBe(302);
      const renewed = await client.submit(`/profile/applications/${row.id}/renew_secret`, {});
      const newSecret = copyableValue(renewed.body, 'application-secret');
      expect(newSecret).toBeDefined();
      expect(newSecret).not.toBe(secret);

      // Someone else's application is not found, not forbidden.
      const stranger = await createUser(service);
      const other = new WebClient(service);
      await other.signIn(stranger.username, stranger.password);
      expect((await other.get(`/profile/applications/${row.id}`)).statusCode).toBe(404);
      await other.get('/profile/applications');
      expect((await other.post(`/profile/applications/${row.id}/delete`, {})).statusCode).toBe(404);

      expect((await client.post(`/profile/applications/${row.id}/delete`, {})).statusCode).toBe(
        302,
      );
      expect(
        await service.db
          .selectFrom('oauth_applications')
          .select('id')
          .where('id', '=', row.id)
          .execute(),
      ).toHaveLength(0);
    });

    it('answers a malformed application id with a 404 page, after sign-in when signed out', async () => {
      const user = await createUser(service);
      const client = new WebClient(service);
      const signedOut = await client.get('/profile/applications/abc');
      expect(signedOut.statusCode).toBe(302);
      expect(signedOut.headers.location).toBe('/users/sign_in');
      await client.signIn(user.username, user.password);
      const response = await client.get('/profile/applications/abc');
      expect(response.statusCode).toBe(404);
      expect(response.headers['content-type']).toMatch(/^text\/html/);
      expect(response.body).toContain('There is no page at this address.');
    });
  });

  describe('personal access tokens', () => {
    it('creates a token shown once, lists it, and revokes it', async () => {
      const user = await createUser(service);
      const client = new WebClient(service);
      await client.signIn(user.username, user.password);
      await client.get('/profile/personal_access_tokens');
      const bad = await client.post('/profile/personal_access_tokens', {
        name: 'ci',
        scopes: 'api',
        expires_at: '2001-01-01',
      });
      expect(bad.statusCode).toBe(422);
      const created = await client.submit('/profile/personal_access_tokens', {
        name: 'ci',
        scopes: 'api',
      });
      const token = copyableValue(created.body, 'created-personal-access-token') ?? '';
      expect(token).not.toBe('');
      expect(
        (await service.app.inject({ url: '/api/v4/user', headers: { 'private-token': token } }))
          .statusCode,
      ).toBe(200);
      const list = await client.get('/profile/personal_access_tokens');
      expect(list.body).not.toContain(token);
      const id = /href="\/profile\/personal_access_tokens\/(\d+)\/revoke"/.exec(list.body)?.[1];
      expect(
        (await client.post(`/profile/personal_access_tokens/${id}/revoke`, {})).statusCode,
      ).toBe(303);
      expect(
        (await service.app.inject({ url: '/api/v4/user', headers: { 'private-token': token } }))
          .statusCode,
      ).toBe(401);
    });
  });
});
