/**
 * codehost as an OpenID Connect provider, driven by openid-client configured only
 * from our discovery document, over real HTTP; ID tokens are also checked with
 * jose against the published key set, as any relying party would.
 */
import { createRemoteJWKSet, decodeProtectedHeader, jwtVerify } from 'jose';
import * as client from 'openid-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { accessTokenHash } from '../../src/codehost/oidc/id-token.js';
import { SigningKeyStore } from '../../src/codehost/oidc/signing-keys.js';
import { DATABASE_KINDS } from '../harness.js';
import {
  authorizeAndApprove,
  type Codehost,
  createApplication,
  createGroup,
  createUser,
  startCodehost,
  WebClient,
} from './helpers.js';

const REDIRECT_URI = 'http://127.0.0.1:9/callback';

describe.each(DATABASE_KINDS)('OpenID Connect provider on %s', (kind) => {
  let service: Codehost;
  beforeAll(async () => {
    service = await startCodehost(kind, { listen: true });
  });
  afterAll(async () => service?.close());

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
      scopes: ['openid', 'profile', 'email', 'read_user'],
    });
    return { user, app, config: await discover(app.clientId, app.secret) };
  }

  /** The user-agent's part: sign in and approve; returns the callback URL. */
  async function approve(authorizationUrl: URL, login: string, password: string): Promise<URL> {
    const browser = new WebClient(service);
    await browser.signIn(login, password);
    const answer = await authorizeAndApprove(
      browser,
      Object.fromEntries(authorizationUrl.searchParams),
    );
    const callback = new URL(REDIRECT_URI);
    callback.search = answer.toString();
    return callback;
  }

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
  });

  it('refuses a nonce longer than 512 characters at the client', async () => {
    const { user, app } = await relyingParty();
    const browser = new WebClient(service);
    await browser.signIn(user.username, user.password);
    const answer = await browser.get(
      `/oauth/authorize?${new URLSearchParams({
        client_id: app.clientId,
        redirect_uri: REDIRECT_URI,
        response_type: 'code',
        scope: 'openid',
        nonce: 'n'.repeat(513),
        state: 's',
      })}`,
    );
    expect(answer.statusCode).toBe(302);
    const target = new URL(answer.headers.location as string);
    expect(target.searchParams.get('error')).toBe('invalid_request');
    expect(target.searchParams.get('state')).toBe('s');
  });
});
