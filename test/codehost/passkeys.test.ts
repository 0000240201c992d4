/**
 * The passkey routes' refusals over HTTP (the ceremonies themselves run in
 * Chromium, in test/browser/codehost-passkeys.test.ts): answers that are
 * missing, malformed, unknown, replayed or too big; the wrong password; another
 * account's passkey. Nothing stored changes on a refusal.
 */
import { describe, expect, it } from 'vitest';
import { secretHash } from '../../src/platform/security/secrets.js';
import { DATABASE_KINDS } from '../harness.js';
import {
  apiToken,
  codehostForTests,
  createUser,
  startCodehost,
  tokenRequest,
  WebClient,
} from './helpers.js';

describe.each(DATABASE_KINDS)('passkey routes on %s', (kind) => {
  const service = codehostForTests(kind);

  async function signedIn() {
    const user = await createUser(service);
    const browser = new WebClient(service);
    await browser.signIn(user.username, user.password);
    await browser.get('/profile/passkeys');
    return { user, browser };
  }

  /** A passkey row as registration stores it, for the removal and two-factor rules. */
  async function storedPasskey(userId: number, credentialId: string) {
    const row = await service.db
      .insertInto('passkeys')
      .values({
        user_id: userId,
        name: 'Stored',
        credential_id: credentialId,
        public_key: 'pQECAyYgASFYIA',
        counter: 0,
        created_at: Date.now(),
      })
      .returning('id')
      .executeTakeFirstOrThrow();
    await service.db
      .updateTable('users')
      .set({ passkey_count: 1 })
      .where('id', '=', userId)
      .execute();
    return row.id;
  }

  const passkeyCount = async (userId: number) =>
    (
      await service.db
        .selectFrom('passkeys')
        .select((eb) => eb.fn.countAll().as('n'))
        .where('user_id', '=', userId)
        .executeTakeFirstOrThrow()
    ).n;

  it('refuses passkey sign-ins that prove nothing, once per offered challenge', async () => {
    const browser = new WebClient(service);
    await browser.get('/users/sign_in');
    const cases: [string, string][] = [
      ['', 'could not be read'],
      ['[1, 2]', 'could not be read'],
      ['{"id": 5}', 'could not be read'],
      [
        JSON.stringify({ id: 'dW5rbm93bg', rawId: 'dW5rbm93bg', type: 'public-key', response: {} }),
        'not registered',
      ],
      [`{"id": "${'x'.repeat(70_000)}"}`, 'could not be read'],
    ];
    for (const [credential, message] of cases) {
      // Each sign-in page offers a new challenge; an answer spends it.
      await browser.get('/users/sign_in');
      const refused = await browser.post('/users/sign_in/passkey', { credential });
      expect(refused.statusCode, credential.slice(0, 40)).toBe(422);
      expect(refused.body).toContain(message);
      expect(refused.headers['set-cookie']).toBeUndefined();
    }
    // The refusal's page offered a fresh challenge; answering it twice finds none the second time.
    await browser.post('/users/sign_in/passkey', { credential: '' });
    const replayed = await browser.post('/users/sign_in/passkey', { credential: '' });
    expect(replayed.body).toContain('could not be read');
    // A session that was offered no challenge (its data as before any sign-in page).
    const stale = new WebClient(service);
    await stale.get('/users/sign_in');
    await service.db
      .updateTable('sessions')
      .set({ data: JSON.stringify({ csrf: stale.csrf }) })
      .where('id_hash', '=', secretHash(stale.cookie as string))
      .execute();
    const expired = await stale.post('/users/sign_in/passkey', { credential: '{}' });
    expect(expired.statusCode).toBe(422);
    expect(expired.body).toContain('has expired');
  });

  it('sends the second step to sign in when no password was given first', async () => {
    const browser = new WebClient(service);
    await browser.get('/users/sign_in');
    const answer = await browser.post('/users/sign_in/two_factor/passkey', { credential: '{}' });
    expect(answer.statusCode).toBe(302);
    expect(answer.headers.location).toBe('/users/sign_in');
  });

  it('adds no passkey without the password, a name and a proven answer', async () => {
    const { user, browser } = await signedIn();
    const wrongPassword = await browser.post('/profile/passkeys', {
      name: 'Laptop',
      current_password: 'not it',
      credential: '{}',
    });
    expect(wrongPassword.statusCode).toBe(422);
    expect(wrongPassword.body).toContain('current password is not right');
    expect(wrongPassword.body).toContain('value="Laptop"');
    const noName = await browser.post('/profile/passkeys', {
      name: ' ',
      current_password: user.password,
      credential: '{}',
    });
    expect(noName.statusCode).toBe(422);
    expect(noName.body).toContain('Name the passkey');
    const garbage = await browser.post('/profile/passkeys', {
      name: 'Laptop',
      current_password: user.password,
      credential: '{"id": "abc", "response": {}}',
    });
    expect(garbage.statusCode).toBe(422);
    expect(garbage.body).toContain('was not accepted');
    expect(Number(await passkeyCount(user.id))).toBe(0);
    // A second passkey of the same name could not be told apart on the list.
    await storedPasskey(user.id, `named-${user.id}`);
    const sameName = await browser.post('/profile/passkeys', {
      name: 'Stored',
      current_password: user.password,
      credential: '{}',
    });
    expect(sameName.statusCode).toBe(422);
    expect(sameName.body).toContain('named “Stored” already');
    expect(Number(await passkeyCount(user.id))).toBe(1);
    await service.db.deleteFrom('passkeys').where('user_id', '=', user.id).execute();
    await service.db
      .updateTable('users')
      .set({ passkey_count: 0 })
      .where('id', '=', user.id)
      .execute();
    const me = await service.app.inject({
      url: '/api/v4/user',
      headers: { 'private-token': await apiToken(service, user.id) },
    });
    expect(me.json().two_factor_enabled).toBe(false);
  });

  it('removes a passkey only with the password, and only the account’s own', async () => {
    const { user, browser } = await signedIn();
    const other = await createUser(service);
    const mine = await storedPasskey(user.id, `mine-${user.id}`);
    const theirs = await storedPasskey(other.id, `theirs-${other.id}`);

    // A passkey is a second factor: the API says so and the password grant stops.
    const me = await service.app.inject({
      url: '/api/v4/user',
      headers: { 'private-token': await apiToken(service, user.id) },
    });
    expect(me.json().two_factor_enabled).toBe(true);
    const grant = await tokenRequest(service, {
      grant_type: 'password',
      username: user.username,
      password: user.password,
    });
    expect(grant.json().error).toBe('invalid_grant');

    await browser.get('/profile/passkeys');
    const foreign = await browser.post(`/profile/passkeys/${theirs}/delete`, {
      current_password: user.password,
    });
    expect(foreign.statusCode).toBe(404);
    const malformed = await browser.post('/profile/passkeys/abc/delete', {
      current_password: user.password,
    });
    expect(malformed.statusCode).toBe(404);
    const wrong = await browser.post(`/profile/passkeys/${mine}/delete`, {
      current_password: 'not it',
    });
    expect(wrong.statusCode).toBe(422);
    expect(Number(await passkeyCount(user.id))).toBe(1);
    expect(Number(await passkeyCount(other.id))).toBe(1);

    const removed = await browser.post(`/profile/passkeys/${mine}/delete`, {
      current_password: user.password,
    });
    expect(removed.statusCode).toBe(303);
    expect(Number(await passkeyCount(user.id))).toBe(0);
    const after = await service.db
      .selectFrom('users')
      .select('passkey_count')
      .where('id', '=', user.id)
      .executeTakeFirstOrThrow();
    expect(after.passkey_count).toBe(0);
  });

  it('serves the browser half of SimpleWebAuthn and the pages’ passkey script', async () => {
    const library = await service.app.inject({ url: '/assets/simplewebauthn-browser.js' });
    expect(library.statusCode).toBe(200);
    expect(library.headers['content-type']).toContain('javascript');
    expect(library.body).toContain('SimpleWebAuthnBrowser');
    const forms = await service.app.inject({ url: '/assets/codehost-passkeys.js' });
    expect(forms.body).toContain('startAuthentication');
    const signInPage = await service.app.inject({ url: '/users/sign_in' });
    expect(signInPage.body).toContain('src="/assets/simplewebauthn-browser.js"');
    expect(signInPage.body).toMatch(
      /data-passkey-options="\{[^"]*&quot;challenge&quot;:&quot;[A-Za-z0-9_-]{40,}&quot;/,
    );
  });
});

describe('passkeys at an address browsers refuse them for', () => {
  // Browsers take passkeys only for a domain name: at an IP address every ceremony fails
  // ("127.0.0.1 is an invalid domain"), so the pages and the start-up say so. (The service
  // still takes a ceremony from a client that runs one, as these tests' own do.)
  const service = codehostForTests('sqlite', {
    env: { CODEHOST_PUBLIC_URL: 'http://127.0.0.1:9080' },
  });

  it('says why on the sign-in and passkeys pages, and at start-up', async () => {
    const user = await createUser(service);
    const browser = new WebClient(service);
    const signIn = await browser.get('/users/sign_in');
    expect(signIn.statusCode).toBe(200);
    expect(signIn.body).toContain('id="passkeys-unavailable"');
    expect(signIn.body).toContain('open it at http://localhost:9080');

    await browser.signIn(user.username, user.password);
    const settings = await browser.get('/profile/passkeys');
    expect(settings.body).toContain('id="passkeys-unavailable"');

    const { codehost } = await import('../../src/codehost/app.js');
    const notice = await codehost.initialize?.({
      database: service.database,
      config: service.config.services.codehost,
      settings: service.config.settings.codehost,
      platform: service.config,
    } as never);
    expect(notice).toMatch(/codehost: Browsers refuse passkeys here: .*http:\/\/127\.0\.0\.1:9080/);
  });

  it('says nothing where the address is a name', async () => {
    const named = await startCodehost('sqlite', { publicHost: 'localhost' });
    try {
      const page = await new WebClient(named).get('/users/sign_in');
      expect(page.body).not.toContain('id="passkeys-unavailable"');
    } finally {
      await named.close();
    }
  });

  it('knows an address from a name', async () => {
    const { relyingPartyOf } = await import('../../src/codehost/accounts/passkeys.js');
    expect(relyingPartyOf('http://127.0.0.1:8080').byAddress).toBe(true);
    expect(relyingPartyOf('http://[::1]:8080').byAddress).toBe(true);
    expect(relyingPartyOf('http://localhost:8080').byAddress).toBe(false);
    expect(relyingPartyOf('https://code.example.org').byAddress).toBe(false);
  });
});
