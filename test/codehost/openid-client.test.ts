/**
 * An independent, widely used OAuth client (openid-client, certified by the
 * OpenID Foundation) configured only from our RFC 8414 metadata, over real HTTP.
 * If it accepts our answers, so will the clients built on it.
 */
import * as client from 'openid-client';
import { describe, expect, it } from 'vitest';
import {
  currentCode,
  newTotpSecret,
  TwoFactorStore,
} from '../../src/codehost/accounts/two-factor.js';
import { DATABASE_KINDS } from '../harness.js';
import {
  ageRefreshRotation,
  approveInBrowser,
  codehostForTests,
  createApplication,
  createUser,
} from './helpers.js';

const REDIRECT_URI = 'http://127.0.0.1:9/callback';

describe.each(DATABASE_KINDS)('openid-client against codehost on %s', (kind) => {
  const service = codehostForTests(kind, { listen: true });

  async function discover(
    clientId: string,
    authentication: client.ClientAuth,
  ): Promise<client.Configuration> {
    return client.discovery(new URL(service.url), clientId, undefined, authentication, {
      algorithm: 'oauth2',
      // Plain http only because the test server listens on loopback.
      execute: [client.allowInsecureRequests],
    });
  }

  async function apiUser(config: client.Configuration, accessToken: string) {
    const response = await client.fetchProtectedResource(
      config,
      accessToken,
      new URL('/api/v3/user', service.url),
      'GET',
    );
    expect(response.status).toBe(200);
    return (await response.json()) as { id: number; username: string };
  }

  const approve = (url: URL, login: string, password: string) =>
    approveInBrowser(service, url, login, password);

  it('discovers the server from its RFC 8414 metadata', async () => {
    const user = await createUser(service);
    const app = await createApplication(service, user.id, { redirectUris: REDIRECT_URI });
    const config = await discover(app.clientId, client.ClientSecretBasic(app.secret));
    const metadata = config.serverMetadata();
    expect(metadata.issuer).toBe(service.url);
    expect(metadata.token_endpoint).toBe(`${service.url}/oauth/token`);
    expect(metadata.code_challenge_methods_supported).toEqual(['S256']);
  });

  it('completes the code flow with PKCE and state for a confidential client, then refreshes and revokes', async () => {
    const user = await createUser(service);
    const app = await createApplication(service, user.id, { redirectUris: REDIRECT_URI });
    const config = await discover(app.clientId, client.ClientSecretBasic(app.secret));

    const verifier = client.randomPKCECodeVerifier();
    const state = client.randomState();
    const authorizationUrl = client.buildAuthorizationUrl(config, {
      redirect_uri: REDIRECT_URI,
      scope: 'api read_user',
      state,
      code_challenge: await client.calculatePKCECodeChallenge(verifier),
      code_challenge_method: 'S256',
    });
    expect(authorizationUrl.href.startsWith(`${service.url}/oauth/authorize?`)).toBe(true);
    const callback = await approve(authorizationUrl, user.username, user.password);

    const tokens = await client.authorizationCodeGrant(config, callback, {
      pkceCodeVerifier: verifier,
      expectedState: state,
    });
    expect(tokens.token_type.toLowerCase()).toBe('bearer');
    expect(tokens.expires_in).toBe(7200);
    expect(tokens.scope).toBe('api read_user');
    expect(tokens.refresh_token).toBeTruthy();
    expect((await apiUser(config, tokens.access_token)).username).toBe(user.username);

    const refreshed = await client.refreshTokenGrant(config, tokens.refresh_token as string);
    expect(refreshed.access_token).not.toBe(tokens.access_token);
    expect(refreshed.refresh_token).not.toBe(tokens.refresh_token);
    expect((await client.tokenIntrospection(config, tokens.access_token)).active).toBe(false);
    const introspection = await client.tokenIntrospection(config, refreshed.access_token);
    expect(introspection.active).toBe(true);
    expect(introspection.client_id).toBe(app.clientId);
    expect(introspection.scope).toBe('api read_user');

    // Rotation: the first refresh token is spent. Presenting it again after the
    // grace window for retries is taken as theft, which ends the whole chain
    // (RFC 9700 section 4.14.2). The window is moved into the past here.
    await ageRefreshRotation(service, tokens.refresh_token as string);
    await expect(
      client.refreshTokenGrant(config, tokens.refresh_token as string),
    ).rejects.toMatchObject({ error: 'invalid_grant' });
    expect((await client.tokenIntrospection(config, refreshed.access_token)).active).toBe(false);
  });

  it('revokes an access token through RFC 7009', async () => {
    const owner = await createUser(service);
    const app = await createApplication(service, owner.id, { redirectUris: REDIRECT_URI });
    const config = await discover(app.clientId, client.ClientSecretPost(app.secret));
    const user = await createUser(service);
    const tokens = await client.genericGrantRequest(config, 'password', {
      username: user.username,
      password: user.password,
    });
    expect((await client.tokenIntrospection(config, tokens.access_token)).active).toBe(true);
    await client.tokenRevocation(config, tokens.access_token);
    expect((await client.tokenIntrospection(config, tokens.access_token)).active).toBe(false);
    // The client reads our RFC 6750 challenge and reports why the token failed.
    await expect(
      client.fetchProtectedResource(
        config,
        tokens.access_token,
        new URL('/api/v3/user', service.url),
        'GET',
      ),
    ).rejects.toMatchObject({
      status: 401,
      cause: [{ scheme: 'bearer', parameters: { error: 'invalid_token' } }],
    });
  });

  it('completes the code flow for a public client with PKCE and no secret', async () => {
    const user = await createUser(service);
    const app = await createApplication(service, user.id, {
      redirectUris: REDIRECT_URI,
      confidential: false,
    });
    const config = await discover(app.clientId, client.None());
    const verifier = client.randomPKCECodeVerifier();
    const authorizationUrl = client.buildAuthorizationUrl(config, {
      redirect_uri: REDIRECT_URI,
      scope: 'read_user',
      code_challenge: await client.calculatePKCECodeChallenge(verifier),
      code_challenge_method: 'S256',
    });
    const callback = await approve(authorizationUrl, user.email, user.password);
    const tokens = await client.authorizationCodeGrant(config, callback, {
      pkceCodeVerifier: verifier,
      idTokenExpected: false,
    });
    expect(tokens.scope).toBe('read_user');
    expect((await apiUser(config, tokens.access_token)).username).toBe(user.username);
  });

  it('sees a wrong PKCE verifier refused with invalid_grant', async () => {
    const user = await createUser(service);
    const app = await createApplication(service, user.id, { redirectUris: REDIRECT_URI });
    const config = await discover(app.clientId, client.ClientSecretPost(app.secret));
    const authorizationUrl = client.buildAuthorizationUrl(config, {
      redirect_uri: REDIRECT_URI,
      scope: 'api',
      code_challenge: await client.calculatePKCECodeChallenge(client.randomPKCECodeVerifier()),
      code_challenge_method: 'S256',
    });
    const callback = await approve(authorizationUrl, user.username, user.password);
    await expect(
      client.authorizationCodeGrant(config, callback, {
        pkceCodeVerifier: client.randomPKCECodeVerifier(),
      }),
    ).rejects.toMatchObject({ error: 'invalid_grant', status: 400 });
  });

  it('uses the password grant, which the server refuses for a two-factor user', async () => {
    const owner = await createUser(service);
    const app = await createApplication(service, owner.id, { redirectUris: REDIRECT_URI });
    const config = await discover(app.clientId, client.ClientSecretBasic(app.secret));

    const user = await createUser(service);
    const tokens = await client.genericGrantRequest(config, 'password', {
      username: user.username,
      password: user.password,
      scope: 'api',
    });
    expect(tokens.expires_in).toBe(7200);
    // GitLab 8.12 issues no refresh token for the password grant.
    expect(tokens.refresh_token).toBeUndefined();
    expect((await apiUser(config, tokens.access_token)).username).toBe(user.username);

    await expect(
      client.genericGrantRequest(config, 'password', {
        username: user.username,
        password: 'not the password',
      }),
    ).rejects.toMatchObject({ error: 'invalid_grant' });

    const secret = newTotpSecret();
    await new TwoFactorStore(service.db).enable(user.id, secret, currentCode(secret));
    await expect(
      client.genericGrantRequest(config, 'password', {
        username: user.username,
        password: user.password,
      }),
    ).rejects.toMatchObject({ error: 'invalid_grant' });
  });
});
