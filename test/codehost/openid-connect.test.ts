/**
 * codehost as an OpenID Connect provider, driven by openid-client configured only
 * from our discovery document, over real HTTP; ID tokens are also checked with
 * jose against the published key set, as any relying party would.
 */
import { createRemoteJWKSet, decodeProtectedHeader, jwtVerify, SignJWT } from 'jose';
import * as client from 'openid-client';
import { describe, expect, it } from 'vitest';
import { accessTokenHash } from '../../src/codehost/oidc/id-token.js';
import { SigningKeyStore } from '../../src/codehost/oidc/signing-keys.js';
import { DATABASE_KINDS } from '../harness.js';
import {
  approveInBrowser,
  authorizeAndApprove,
  codehostForTests,
  createApplication,
  createGroup,
  createUser,
  WebClient,
} from './helpers.js';

const REDIRECT_URI = 'http://127.0.0.1:9/callback';
const LOGOUT_URI = 'http://127.0.0.1:9/signed-out';

describe.each(DATABASE_KINDS)('OpenID Connect provider on %s', (kind) => {
  const service = codehostForTests(kind, { listen: true });

  async function discover(clientId: string, secret: string): Promise<client.Configuration> {
    return client.discovery(
      new URL(service.url),
      clientId,
      undefined,
      client.ClientSecretBasic(secret),
      {
        execute: [client.allowInsecureRequests],
      },
    );
  }

  /** A user with an application allowed openid, profile and email, and the RP's configuration. */
  async function relyingParty() {
    const user = await createUser(service);
    const app = await createApplication(service, user.id, {
      redirectUris: REDIRECT_URI,
      postLogoutRedirectUris: LOGOUT_URI,
      scopes: ['openid', 'profile', 'email', 'read_user'],
    });
    return { user, app, config: await discover(app.clientId, app.secret) };
  }

  const approve = (url: URL, login: string, password: string) =>
    approveInBrowser(service, url, login, password);

  async function signIn(scope = 'openid profile email') {
    const party = await relyingParty();
    const verifier = client.randomPKCECodeVerifier();
    // A plain OAuth request (no openid) has no nonce, and gets no ID token.
    const nonce = scope.split(' ').includes('openid') ? client.randomNonce() : undefined;
    const state = client.randomState();
    const url = client.buildAuthorizationUrl(party.config, {
      redirect_uri: REDIRECT_URI,
      scope,
      state,
      ...(nonce ? { nonce } : {}),
      code_challenge: await client.calculatePKCECodeChallenge(verifier),
      code_challenge_method: 'S256',
    });
    const callback = await approve(url, party.user.username, party.user.password);
    const tokens = await client.authorizationCodeGrant(party.config, callback, {
      pkceCodeVerifier: verifier,
      ...(nonce ? { expectedNonce: nonce } : {}),
      expectedState: state,
    });
    return { ...party, tokens, nonce };
  }

  const keySet = () => createRemoteJWKSet(new URL('/oauth/discovery/keys', service.url));

  it('publishes a discovery document and a key set that openid-client accepts', async () => {
    const { config } = await relyingParty();
    const metadata = config.serverMetadata();
    expect(metadata).toMatchObject({
      issuer: service.url,
      jwks_uri: `${service.url}/oauth/discovery/keys`,
      userinfo_endpoint: `${service.url}/oauth/userinfo`,
      response_types_supported: ['code'],
      subject_types_supported: ['public'],
      id_token_signing_alg_values_supported: ['RS256', 'ES256'],
    });
    expect(metadata.scopes_supported).toEqual(
      expect.arrayContaining(['openid', 'profile', 'email']),
    );
    const keys = await service.app.inject({ url: '/oauth/discovery/keys' });
    expect(keys.headers['content-type']).toMatch(/^application\/jwk-set\+json/);
    for (const key of keys.json().keys) {
      expect(key).toMatchObject({ kty: 'RSA', alg: 'RS256', use: 'sig' });
      expect(key).not.toHaveProperty('d');
      expect(key).not.toHaveProperty('p');
    }
  });

  it('signs the user in: an ID token with nonce, at_hash and GitLab claims, then userinfo', async () => {
    const { user, app, config, tokens, nonce } = await signIn();
    const idToken = tokens.id_token as string;
    expect(decodeProtectedHeader(idToken)).toMatchObject({ alg: 'RS256', typ: 'JWT' });
    const { payload } = await jwtVerify(idToken, keySet(), {
      issuer: service.url,
      audience: app.clientId,
    });
    expect(payload).toMatchObject({
      sub: String(user.id),
      nonce,
      at_hash: accessTokenHash(tokens.access_token),
      name: user.name,
      nickname: user.username,
      preferred_username: user.username,
      email: user.email,
      profile: `${service.url}/${user.username}`,
      groups_direct: [],
    });
    expect(payload.exp).toBe((payload.iat as number) + 120);
    expect(typeof payload.auth_time).toBe('number');
    expect(tokens.claims()?.sub).toBe(String(user.id));

    // Groups: a direct membership (owner, as its creator) and a subgroup inherited through it.
    const group = await createGroup(service, user.id, { path: `eng-${user.id}` });
    const other = await createUser(service);
    const subgroup = await createGroup(service, other.id, { path: 'tools', parent: group });
    const info = await client.fetchUserInfo(config, tokens.access_token, String(user.id));
    expect(info).toMatchObject({
      sub: String(user.id),
      name: user.name,
      preferred_username: user.username,
      email: user.email,
      groups: [group.full_path, subgroup.full_path],
      'https://gitlab.org/claims/groups/owner': [group.full_path],
    });
    // groups_direct is the ID token's, groups userinfo's, as in GitLab.
    expect(info).not.toHaveProperty('groups_direct');
    const refreshed = await client.refreshTokenGrant(config, tokens.refresh_token as string);
    expect(refreshed.claims()?.groups_direct).toEqual([group.full_path]);
    const post = await service.app.inject({
      method: 'POST',
      url: '/oauth/userinfo',
      payload: { access_token: refreshed.access_token },
    });
    expect(post.statusCode).toBe(200);
    expect(post.json().sub).toBe(String(user.id));
  });

  it('releases the e-mail only with the email scope', async () => {
    const { tokens, config, user } = await signIn('openid');
    expect(tokens.claims()).not.toHaveProperty('email');
    const info = await client.fetchUserInfo(config, tokens.access_token, String(user.id));
    expect(info).not.toHaveProperty('email');
    expect(info.preferred_username).toBe(user.username);
  });

  it('issues a fresh ID token on refresh, with the original auth_time and no nonce', async () => {
    const { tokens, config, app } = await signIn();
    const first = tokens.claims() as Record<string, unknown>;
    const refreshed = await client.refreshTokenGrant(config, tokens.refresh_token as string);
    const { payload } = await jwtVerify(refreshed.id_token as string, keySet(), {
      issuer: service.url,
      audience: app.clientId,
    });
    expect(payload.sub).toBe(first.sub);
    expect(payload.auth_time).toBe(first.auth_time);
    expect(payload).not.toHaveProperty('nonce');
    expect(payload.at_hash).toBe(accessTokenHash(refreshed.access_token));
  });

  it('keeps tokens signed before a rotation valid, and drops those of a removed key', async () => {
    const { tokens, app } = await signIn();
    const before = tokens.id_token as string;
    const keys = new SigningKeyStore(service.db);
    const oldKid = decodeProtectedHeader(before).kid as string;
    // Published at once and signing at once (an emergency rotation), as ES256.
    const rotated = await keys.rotate('ES256', 0);
    const { tokens: after } = await signIn();
    expect(decodeProtectedHeader(after.id_token as string)).toMatchObject({
      alg: 'ES256',
      kid: rotated.kid,
    });
    const verify = (token: string) =>
      jwtVerify(token, createRemoteJWKSet(new URL('/oauth/discovery/keys', service.url)), {
        issuer: service.url,
        audience: [app.clientId, after.claims()?.aud as string].flat(),
      });
    await expect(verify(before)).resolves.toBeTruthy();
    await expect(verify(after.id_token as string)).resolves.toBeTruthy();
    expect(await keys.remove(oldKid)).toBe(true);
    await expect(verify(before)).rejects.toThrow();
    // The key that signs cannot be removed.
    expect(await keys.remove(rotated.kid)).toBe(false);
  });

  it('refuses userinfo without a token, with a token lacking openid, and with a bad one', async () => {
    const none = await service.app.inject({ url: '/oauth/userinfo' });
    expect(none.statusCode).toBe(401);
    expect(none.headers['www-authenticate']).toMatch(/^Bearer realm="codehost"/);
    const bad = await service.app.inject({
      url: '/oauth/userinfo',
      headers: { authorization: 'Bearer nonsense' },
    });
    expect(bad.statusCode).toBe(401);
    expect(bad.json().error).toBe('invalid_token');
    const { tokens } = await signIn('read_user');
    const withoutOpenid = await service.app.inject({
      url: '/oauth/userinfo',
      headers: { authorization: `Bearer ${tokens.access_token}` },
    });
    expect(withoutOpenid.statusCode).toBe(403);
    expect(withoutOpenid.json().error).toBe('insufficient_scope');
    expect(tokens.id_token).toBeUndefined();

    const { tokens: good } = await signIn();
    const twice = await service.app.inject({
      method: 'POST',
      url: '/oauth/userinfo',
      headers: { authorization: `Bearer ${good.access_token}` },
      payload: { access_token: good.access_token },
    });
    expect(twice.statusCode).toBe(400);
    expect(twice.json().error).toBe('invalid_request');
    const wrongType = await service.app.inject({
      method: 'POST',
      url: '/oauth/userinfo',
      payload: { access_token: 42 },
    });
    expect(wrongType.statusCode).toBe(401);
    const plainText = await service.app.inject({
      method: 'POST',
      url: '/oauth/userinfo',
      headers: { 'content-type': 'text/plain' },
      payload: 'access_token=x',
    });
    expect(plainText.statusCode).toBe(415);
    for (const url of ['/.well-known/openid-configuration', '/oauth/discovery/keys']) {
      expect((await service.app.inject({ method: 'POST', url })).statusCode, url).toBe(405);
    }
  });

  it('shows an error page, never a redirect, for a repeated nonce', async () => {
    const { user, app } = await relyingParty();
    const browser = new WebClient(service);
    await browser.signIn(user.username, user.password);
    const repeated = await browser.get(
      `/oauth/authorize?client_id=${app.clientId}&redirect_uri=${encodeURIComponent(REDIRECT_URI)}&response_type=code&scope=openid&nonce=a&nonce=b`,
    );
    expect(repeated.statusCode).toBe(400);
    expect(repeated.headers.location).toBeUndefined();
    expect(repeated.body).toContain('nonce is repeated');
  });

  it('gives discovery and the key set validators, answers a client that holds them 304, and advertises only claims it sends', async () => {
    for (const url of [
      '/.well-known/openid-configuration',
      '/.well-known/oauth-authorization-server',
      '/oauth/discovery/keys',
    ]) {
      const first = await service.app.inject({ url });
      expect(first.statusCode, url).toBe(200);
      const etag = first.headers.etag as string;
      expect(etag, url).toMatch(/^"[A-Za-z0-9_-]{27}"$/);
      const same = await service.app.inject({ url, headers: { 'if-none-match': etag } });
      expect(same.statusCode, url).toBe(304);
      expect(same.body).toBe('');
      // Discovery is dated; the key set only tagged (a removed key leaves nothing to date).
      const lastModified = first.headers['last-modified'] as string | undefined;
      if (url === '/oauth/discovery/keys') {
        expect(lastModified).toBeUndefined();
      } else {
        expect(Date.parse(lastModified ?? ''), url).not.toBeNaN();
        const dated = await service.app.inject({
          url,
          headers: { 'if-modified-since': lastModified ?? '' },
        });
        expect(dated.statusCode, url).toBe(304);
      }
      const other = await service.app.inject({ url, headers: { 'if-none-match': '"other"' } });
      expect(other.statusCode, url).toBe(200);
    }
    const before = await service.app.inject({ url: '/oauth/discovery/keys' });
    const added = await new SigningKeyStore(service.db).rotate('ES256', 600_000);
    const after = await service.app.inject({
      url: '/oauth/discovery/keys',
      headers: { 'if-none-match': before.headers.etag as string },
    });
    expect(after.statusCode).toBe(200);
    expect(after.json().keys).toHaveLength(before.json().keys.length + 1);
    // A withdrawn key changes the tag too, so no cache keeps trusting it.
    expect(await new SigningKeyStore(service.db).remove(added.kid)).toBe(true);
    const withdrawn = await service.app.inject({
      url: '/oauth/discovery/keys',
      headers: { 'if-none-match': after.headers.etag as string },
    });
    expect(withdrawn.statusCode).toBe(200);
    expect(withdrawn.json().keys).toHaveLength(before.json().keys.length);
    // Every claim discovery names is one a token or userinfo can carry.
    const discovery = (
      await service.app.inject({ url: '/.well-known/openid-configuration' })
    ).json();
    expect(discovery.claims_supported).not.toContain('picture');
  });

  describe('prompt, max_age and login_hint', () => {
    /** A signed-in browser and an application it has or has not authorized. */
    async function browserWith(authorized: boolean) {
      const { user, app } = await relyingParty();
      const browser = new WebClient(service);
      await browser.signIn(user.username, user.password);
      const query = (extra: Record<string, string> = {}) =>
        `/oauth/authorize?${new URLSearchParams({
          client_id: app.clientId,
          redirect_uri: REDIRECT_URI,
          response_type: 'code',
          scope: 'openid',
          state: 'st',
          ...extra,
        })}`;
      if (authorized) {
        const answer = await authorizeAndApprove(
          browser,
          Object.fromEntries(new URL(query(), service.url).searchParams),
        );
        await service.app.inject({
          method: 'POST',
          url: '/oauth/token',
          payload: {
            grant_type: 'authorization_code',
            code: answer.get('code') ?? '',
            redirect_uri: REDIRECT_URI,
            client_id: app.clientId,
            client_secret: app.secret,
          },
        });
      }
      return { user, app, browser, query };
    }
    const errorOf = (response: { statusCode: number; headers: Record<string, unknown> }) => {
      expect(response.statusCode).toBe(302);
      const target = new URL(response.headers.location as string);
      expect(target.origin + target.pathname).toBe(REDIRECT_URI);
      return Object.fromEntries(target.searchParams);
    };

    it('prompt=none: login_required when signed out, consent_required before consent, a code after', async () => {
      const { browser, query } = await browserWith(false);
      const anonymous = new WebClient(service);
      expect(errorOf(await anonymous.get(query({ prompt: 'none' })))).toMatchObject({
        error: 'login_required',
        state: 'st',
        iss: service.url,
      });
      expect(errorOf(await browser.get(query({ prompt: 'none' }))).error).toBe('consent_required');
      const authorized = await browserWith(true);
      const code = errorOf(await authorized.browser.get(authorized.query({ prompt: 'none' })));
      expect(code.code).toMatch(/^[0-9a-f]{64}$/);
    });

    it('prompt=login asks for the password again, ends nothing until it is given, then continues without asking again', async () => {
      const { user, browser, query } = await browserWith(true);
      const again = await browser.get(query({ prompt: 'login' }));
      expect(again.statusCode).toBe(302);
      expect(again.headers.location).toBe('/users/sign_in');
      // A link any site can place must not sign the user out: still signed in.
      expect((await browser.get('/profile')).statusCode).toBe(200);
      // The sign-in page shows its form (not a redirect), with the login filled in.
      const form = await browser.get('/users/sign_in');
      expect(form.statusCode).toBe(200);
      expect(form.body).toContain(`name="login" value="${user.username}"`);
      expect(form.body).toContain('You stay signed in until you do');
      // A wrong password changes nothing either.
      const wrong = await browser.signIn(user.username, 'not the password');
      expect(wrong.statusCode).toBe(422);
      expect((await browser.get('/profile')).statusCode).toBe(200);
      const signedIn = await browser.signIn(user.username, user.password);
      const back = new URL(signedIn.headers.location as string, service.url);
      expect(back.pathname).toBe('/oauth/authorize');
      expect(back.searchParams.has('prompt')).toBe(false);
      const code = errorOf(await browser.get(`${back.pathname}${back.search}`));
      expect(code.code).toMatch(/^[0-9a-f]{64}$/);
      // Done: the sign-in page sends a signed-in user on again.
      expect((await browser.get('/users/sign_in')).statusCode).toBe(302);
    });

    it('forgets an abandoned prompt=login: no later form leads to the client, and its time runs out', async () => {
      const { user, browser, query } = await browserWith(true);
      await browser.get(query({ prompt: 'login' }));
      // The user walks away and changes their password instead: they stay here.
      await browser.get('/profile/password/edit');
      const changed = await browser.post('/profile/password', {
        current_password: user.password,
        new_password: 'another good password',
        password_confirmation: 'another good password',
      });
      expect(changed.statusCode).toBe(200);
      expect(changed.headers.location).toBeUndefined();
      // Once its time is past, the request is gone: the sign-in page sends them on.
      await browser.get(query({ prompt: 'login' }));
      const rows = await service.db
        .selectFrom('sessions')
        .select(['id_hash', 'data'])
        .where('user_id', '=', user.id)
        .execute();
      for (const row of rows) {
        const data = JSON.parse(row.data) as Record<string, unknown>;
        if (data.reauthenticateUntil === undefined) continue;
        data.reauthenticateUntil = Date.now() - 1;
        await service.db
          .updateTable('sessions')
          .set({ data: JSON.stringify(data) })
          .where('id_hash', '=', row.id_hash)
          .execute();
      }
      const page = await browser.get('/profile');
      expect(page.statusCode).toBe(200);
      expect(page.headers['content-security-policy']).not.toContain(new URL(REDIRECT_URI).origin);
      const signIn = await browser.get('/users/sign_in');
      expect(signIn.statusCode).toBe(302);
      expect(signIn.headers.location).toBe('/profile');
    });

    it('accepts response_mode=query', async () => {
      const { browser, query } = await browserWith(true);
      expect(errorOf(await browser.get(query({ response_mode: 'query' }))).code).toBeTruthy();
    });

    it('prompt=consent asks again even when authorized', async () => {
      const { browser, query } = await browserWith(true);
      const page = await browser.get(query({ prompt: 'consent' }));
      expect(page.statusCode).toBe(200);
      expect(page.body).toContain('Authorization required');
    });

    it('max_age: a sign-in older than it is repeated, or login_required with prompt=none', async () => {
      const { user, app, browser, query } = await browserWith(true);
      expect(errorOf(await browser.get(query({ max_age: '3600' }))).code).toBeTruthy();
      // This browser's sign-in, two minutes ago: its session says when it signed in.
      const sessions = await service.db
        .selectFrom('sessions')
        .select(['id_hash', 'data'])
        .where('user_id', '=', user.id)
        .execute();
      for (const row of sessions) {
        const data = JSON.parse(row.data) as { authTime?: number };
        if (data.authTime !== undefined) data.authTime -= 120_000;
        await service.db
          .updateTable('sessions')
          .set({ data: JSON.stringify(data) })
          .where('id_hash', '=', row.id_hash)
          .execute();
      }
      // A sign-in elsewhere since does not make this browser's any younger.
      await service.db
        .updateTable('users')
        .set({ current_sign_in_at: Date.now() })
        .where('id', '=', user.id)
        .execute();
      expect(errorOf(await browser.get(query({ max_age: '60', prompt: 'none' }))).error).toBe(
        'login_required',
      );
      const old = await browser.get(query({ max_age: '60' }));
      expect(old.headers.location).toBe('/users/sign_in');
      expect((await browser.get('/profile')).statusCode).toBe(200);
      await browser.signIn(user.username, user.password);
      const code = errorOf(await browser.get(query({ max_age: '60' }))).code as string;
      const exchanged = await service.app.inject({
        method: 'POST',
        url: '/oauth/token',
        payload: {
          grant_type: 'authorization_code',
          code,
          redirect_uri: REDIRECT_URI,
          client_id: app.clientId,
          client_secret: app.secret,
        },
      });
      const { payload } = await jwtVerify(exchanged.json().id_token, keySet(), {
        issuer: service.url,
        audience: app.clientId,
      });
      // The fresh sign-in is what auth_time says.
      expect(Date.now() / 1000 - (payload.auth_time as number)).toBeLessThan(60);
    });

    it('login_hint fills in the sign-in form', async () => {
      const { user, app } = await relyingParty();
      const browser = new WebClient(service);
      const answer = await browser.get(
        `/oauth/authorize?${new URLSearchParams({
          client_id: app.clientId,
          redirect_uri: REDIRECT_URI,
          response_type: 'code',
          scope: 'openid',
          login_hint: user.email,
        })}`,
      );
      expect(answer.headers.location).toBe('/users/sign_in');
      const form = await browser.get('/users/sign_in');
      expect(form.body).toContain(`value="${user.email}"`);
    });

    it.each([
      [{ prompt: 'sometimes' }, /unknown value/],
      [{ prompt: 'none login' }, /cannot be combined/],
      [{ max_age: '-1' }, /max_age/],
      [{ max_age: 'soon' }, /max_age/],
      [{ login_hint: 'x'.repeat(256) }, /login_hint/],
      [{ nonce: 'n'.repeat(513) }, /nonce/],
      [{ response_mode: 'form_post' }, /response_mode/],
    ])('refuses %o with invalid_request at the client', async (extra, description) => {
      const { browser, query } = await browserWith(false);
      const answer = errorOf(await browser.get(query(extra as Record<string, string>)));
      expect(answer.error).toBe('invalid_request');
      expect(answer.error_description).toMatch(description);
      expect(answer.state).toBe('st');
    });
  });

  describe('RP-initiated logout', () => {
    /** A user signed in at codehost through a relying party, with its ID token. */
    async function signedInThroughParty() {
      const party = await relyingParty();
      const browser = new WebClient(service);
      await browser.signIn(party.user.username, party.user.password);
      const answer = await authorizeAndApprove(browser, {
        client_id: party.app.clientId,
        redirect_uri: REDIRECT_URI,
        response_type: 'code',
        scope: 'openid',
      });
      const tokens = await client.authorizationCodeGrant(
        party.config,
        new URL(`${REDIRECT_URI}?${answer}`),
      );
      return { ...party, browser, idToken: tokens.id_token as string };
    }

    it('asks the signed-in user, ends the session and returns to the registered URI with state', async () => {
      const { config, browser, idToken } = await signedInThroughParty();
      expect(config.serverMetadata().end_session_endpoint).toBe(`${service.url}/oauth/logout`);
      const url = client.buildEndSessionUrl(config, {
        id_token_hint: idToken,
        post_logout_redirect_uri: LOGOUT_URI,
        state: 'bye',
      });
      const ask = await browser.get(`${url.pathname}${url.search}`);
      expect(ask.statusCode).toBe(200);
      expect(ask.body).toContain('asks to sign you out');
      const fields = Object.fromEntries(
        [...ask.body.matchAll(/<input type="hidden" name="([a-z_]+)" value="([^"]*)">/g)].map(
          (match) => [match[1] as string, match[2] as string],
        ),
      );
      const done = await browser.post('/oauth/logout/confirm', fields);
      expect(done.statusCode).toBe(303);
      expect(done.headers.location).toBe(`${LOGOUT_URI}?state=bye`);
      expect((await browser.get('/users/sign_in')).statusCode).toBe(200);
    });

    it('goes straight back when nobody is signed in, and accepts an expired ID token as hint', async () => {
      const { app } = await relyingParty();
      const keys = new SigningKeyStore(service.db);
      const key = await keys.signingKey();
      const expired = await new SignJWT({})
        .setProtectedHeader({ alg: key.alg, kid: key.kid })
        .setIssuer(service.url)
        .setAudience(app.clientId)
        .setSubject('1')
        .setIssuedAt(Math.floor(Date.now() / 1000) - 7200)
        .setExpirationTime(Math.floor(Date.now() / 1000) - 3600)
        .sign(await keys.privateKey(key));
      const answer = await service.app.inject({
        url: `/oauth/logout?${new URLSearchParams({ id_token_hint: expired, post_logout_redirect_uri: LOGOUT_URI })}`,
      });
      expect(answer.statusCode).toBe(303);
      expect(answer.headers.location).toBe(LOGOUT_URI);
      const plain = await service.app.inject({ method: 'POST', url: '/oauth/logout', payload: {} });
      expect(plain.statusCode).toBe(200);
      expect(plain.body).toContain('You are signed out');
    });

    it.each([
      [
        'an unregistered post_logout_redirect_uri',
        (id: string) => ({ client_id: id, post_logout_redirect_uri: 'https://evil.example/' }),
      ],
      [
        'a post_logout_redirect_uri without a client',
        () => ({ post_logout_redirect_uri: LOGOUT_URI }),
      ],
      ['an id_token_hint that is not ours', () => ({ id_token_hint: 'eyJhbGciOiJub25lIn0.e30.' })],
      [
        'a client_id the hint was not issued to',
        (_id: string, hint: string) => ({ id_token_hint: hint, client_id: 'f'.repeat(64) }),
      ],
      ['an unknown client', () => ({ client_id: 'f'.repeat(64) })],
    ])('shows an error page, never a redirect, for %s', async (_label, parameters) => {
      const { app, idToken } = await signedInThroughParty();
      const answer = await service.app.inject({
        url: `/oauth/logout?${new URLSearchParams(parameters(app.clientId, idToken) as Record<string, string>)}`,
      });
      expect(answer.statusCode).toBe(400);
      expect(answer.headers.location).toBeUndefined();
      expect(answer.headers['content-type']).toMatch(/^text\/html/);
    });

    it('refuses a repeated parameter and a confirmation without the form token', async () => {
      const repeated = await service.app.inject({
        url: `/oauth/logout?state=a&state=b`,
      });
      expect(repeated.statusCode).toBe(400);
      const forged = await service.app.inject({
        method: 'POST',
        url: '/oauth/logout/confirm',
        payload: { state: 'x' },
      });
      expect(forged.statusCode).toBe(422);
    });
  });
});
