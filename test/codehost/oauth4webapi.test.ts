/**
 * A second, independent relying-party library (oauth4webapi, the low-level
 * client under openid-client, used directly by many frameworks) signs in
 * against codehost listening on a real port: discovery, RFC 9207 `iss` check,
 * code flow with PKCE and nonce, ID token claims, userinfo, refresh.
 */
import { createRemoteJWKSet, jwtVerify } from 'jose';
import * as oauth from 'oauth4webapi';
import { describe, expect, it } from 'vitest';
import { DATABASE_KINDS } from '../harness.js';
import {
  authorizeAndApprove,
  codehostForTests,
  createApplication,
  createUser,
  WebClient,
} from './helpers.js';

const REDIRECT_URI = 'http://127.0.0.1:9/oauth4webapi/callback';
// Plain http only because the test server listens on loopback.
const INSECURE = { [oauth.allowInsecureRequests]: true };

describe.each(DATABASE_KINDS)('oauth4webapi against codehost on %s', (kind) => {
  const service = codehostForTests(kind, { listen: true });

  it('signs in with PKCE and nonce, reads userinfo and refreshes', async () => {
    const user = await createUser(service);
    const app = await createApplication(service, user.id, {
      redirectUris: REDIRECT_URI,
      scopes: ['openid', 'profile', 'email'],
    });
    const issuer = new URL(service.url);
    const as = await oauth.processDiscoveryResponse(
      issuer,
      await oauth.discoveryRequest(issuer, { algorithm: 'oidc', ...INSECURE }),
    );
    const client: oauth.Client = { client_id: app.clientId };
    const clientAuth = oauth.ClientSecretPost(app.secret);

    const verifier = oauth.generateRandomCodeVerifier();
    const nonce = oauth.generateRandomNonce();
    const state = oauth.generateRandomState();
    const browser = new WebClient(service);
    await browser.signIn(user.username, user.password);
    const answer = await authorizeAndApprove(browser, {
      client_id: app.clientId,
      redirect_uri: REDIRECT_URI,
      response_type: 'code',
      scope: 'openid profile email',
      state,
      nonce,
      code_challenge: await oauth.calculatePKCECodeChallenge(verifier),
      code_challenge_method: 'S256',
    });
    // Checks state, and iss against the metadata (RFC 9207), as the library does by itself.
    const parameters = oauth.validateAuthResponse(as, client, answer, state);
    const response = await oauth.authorizationCodeGrantRequest(
      as,
      client,
      clientAuth,
      parameters,
      REDIRECT_URI,
      verifier,
      INSECURE,
    );
    const result = await oauth.processAuthorizationCodeResponse(as, client, response, {
      expectedNonce: nonce,
      requireIdToken: true,
    });
    const claims = oauth.getValidatedIdTokenClaims(result);
    expect(claims).toMatchObject({
      iss: service.url,
      aud: app.clientId,
      sub: String(user.id),
      nonce,
      preferred_username: user.username,
      email: user.email,
    });
    await jwtVerify(result.id_token as string, createRemoteJWKSet(new URL(as.jwks_uri as string)), {
      issuer: service.url,
      audience: app.clientId,
    });

    const info = await oauth.processUserInfoResponse(
      as,
      client,
      String(user.id),
      await oauth.userInfoRequest(as, client, result.access_token, INSECURE),
    );
    expect(info).toMatchObject({ sub: String(user.id), name: user.name, email: user.email });

    const refreshed = await oauth.processRefreshTokenResponse(
      as,
      client,
      await oauth.refreshTokenGrantRequest(
        as,
        client,
        clientAuth,
        result.refresh_token as string,
        INSECURE,
      ),
    );
    expect(oauth.getValidatedIdTokenClaims(refreshed)?.sub).toBe(String(user.id));
  });

  it('notices an authorization response from another issuer (mix-up)', async () => {
    const issuer = new URL(service.url);
    const as = await oauth.processDiscoveryResponse(
      issuer,
      await oauth.discoveryRequest(issuer, { algorithm: 'oidc', ...INSECURE }),
    );
    const forged = new URLSearchParams({ code: 'x', iss: 'https://elsewhere.example' });
    expect(() =>
      oauth.validateAuthResponse(as, { client_id: 'c' }, forged, oauth.expectNoState),
    ).toThrow();
  });
});
