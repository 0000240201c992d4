import { describe, expect, it } from 'vitest';
import {
  currentCode,
  newTotpSecret,
  TwoFactorStore,
} from '../../src/codehost/accounts/two-factor.js';
import { pkceChallenge } from '../../src/codehost/oauth/tokens.js';
import { DATABASE_KINDS } from '../harness.js';
import {
  ageRefreshRotation,
  authorizeAndApprove,
  basicAuth,
  codehostForTests,
  createApplication,
  createUser,
  tokenRequest,
  WebClient,
} from './helpers.js';

const VERIFIER = `${'a'.repeat(20)}-._~${'B'.repeat(30)}`;

describe.each(DATABASE_KINDS)('on %s', (kind) => {
  const service = codehostForTests(kind);

  async function signedInClient() {
    const user = await createUser(service);
    const client = new WebClient(service);
    const response = await client.signIn(user.username, user.password);
    expect(response.statusCode).toBe(302);
    return { user, client };
  }

  async function codeFor(options: { confidential?: boolean; pkce?: boolean; scope?: string } = {}) {
    const { user, client } = await signedInClient();
    const app = await createApplication(service, user.id, {
      confidential: options.confidential ?? true,
    });
    const parameters: Record<string, string> = {
      client_id: app.clientId,
      redirect_uri: app.redirectUri,
      response_type: 'code',
      state: 'xyz-state',
      scope: options.scope ?? 'api',
    };
    if (options.pkce) {
      parameters.code_challenge = pkceChallenge(VERIFIER);
      parameters.code_challenge_method = 'S256';
    }
    const redirect = await authorizeAndApprove(client, parameters);
    return { user, client, app, code: redirect.get('code') ?? '', redirect };
  }

  /** Exchanges a code as the confidential client it was issued to. */
  async function exchange(
    app: { clientId: string; secret: string; redirectUri: string },
    code: string,
  ) {
    const response = await tokenRequest(service, {
      grant_type: 'authorization_code',
      code,
      redirect_uri: app.redirectUri,
      client_id: app.clientId,
      client_secret: app.secret,
    });
    expect(response.statusCode).toBe(200);
    return response.json();
  }

  describe('authorization code flow', () => {
    it('approves, redirects with code and state, and exchanges the code once', async () => {
      const { app, code, redirect, user } = await codeFor({ pkce: true });
      expect(redirect.get('state')).toBe('xyz-state');
      expect(code).toMatch(/^[0-9a-f]{64}$/);

      const response = await tokenRequest(service, {
        grant_type: 'authorization_code',
        code,
        redirect_uri: app.redirectUri,
        client_id: app.clientId,
        client_secret: app.secret,
        code_verifier: VERIFIER,
      });
      expect(response.statusCode).toBe(200);
      expect(response.headers['cache-control']).toBe('no-store');
      const token = response.json();
      expect(Object.keys(token).sort()).toEqual(
        ['access_token', 'created_at', 'expires_in', 'refresh_token', 'scope', 'token_type'].sort(),
      );
      expect(token).toMatchObject({ token_type: 'bearer', expires_in: 7200, scope: 'api' });

      const me = await service.app.inject({
        url: '/api/v3/user',
        headers: { authorization: `Bearer ${token.access_token}` },
      });
      expect(me.statusCode).toBe(200);
      expect(me.json()).toMatchObject({ id: user.id, username: user.username });
    });

    it('accepts HTTP Basic client authentication', async () => {
      const { app, code } = await codeFor();
      const response = await tokenRequest(
        service,
        { grant_type: 'authorization_code', code, redirect_uri: app.redirectUri },
        { authorization: basicAuth(app.clientId, app.secret) },
      );
      expect(response.statusCode).toBe(200);
    });

    it('revokes what a code issued when the code is replayed', async () => {
      const { app, code } = await codeFor();
      const fields = {
        grant_type: 'authorization_code',
        code,
        redirect_uri: app.redirectUri,
        client_id: app.clientId,
        client_secret: app.secret,
      };
      const first = await tokenRequest(service, fields);
      expect(first.statusCode).toBe(200);
      const { access_token: accessToken, refresh_token: refreshToken } = first.json();

      const replay = await tokenRequest(service, fields);
      expect(replay.statusCode).toBe(400);
      expect(replay.json()).toMatchObject({ error: 'invalid_grant' });

      const api = await service.app.inject({
        url: '/api/v3/user',
        headers: { authorization: `Bearer ${accessToken}` },
      });
      expect(api.statusCode).toBe(401);
      expect(api.json()).toMatchObject({ error: 'invalid_token' });
      const refreshed = await tokenRequest(service, {
        grant_type: 'refresh_token',
        refresh_token: refreshToken,
        client_id: app.clientId,
        client_secret: app.secret,
      });
      expect(refreshed.statusCode).toBe(400);
    });

    it('refuses wrong, missing, foreign and mismatched codes in Doorkeeper order', async () => {
      const { app, code } = await codeFor();
      const base = {
        grant_type: 'authorization_code',
        client_id: app.clientId,
        client_secret: app.secret,
      };
      const missingRedirect = await tokenRequest(service, { ...base, code });
      expect(missingRedirect.statusCode).toBe(400);
      expect(missingRedirect.json().error).toBe('invalid_request');

      const badClient = await tokenRequest(service, {
        ...base,
        code,
        redirect_uri: app.redirectUri,
        client_secret: 'wrong',
      });
      expect(badClient.statusCode).toBe(401);
      expect(badClient.headers['www-authenticate']).toMatch(/^Basic /);
      expect(badClient.json().error).toBe('invalid_client');

      const missingCode = await tokenRequest(service, { ...base, redirect_uri: app.redirectUri });
      expect(missingCode.json().error).toBe('invalid_request');

      const wrongCode = await tokenRequest(service, {
        ...base,
        code: 'f'.repeat(64),
        redirect_uri: app.redirectUri,
      });
      expect(wrongCode.statusCode).toBe(400);
      expect(wrongCode.json().error).toBe('invalid_grant');

      const other = await createApplication(service, (await createUser(service)).id);
      const foreign = await tokenRequest(service, {
        grant_type: 'authorization_code',
        code,
        redirect_uri: other.redirectUri,
        client_id: other.clientId,
        client_secret: other.secret,
      });
      expect(foreign.json().error).toBe('invalid_grant');

      const mismatch = await tokenRequest(service, {
        ...base,
        code,
        redirect_uri: 'https://client.example/other',
      });
      expect(mismatch.json()).toMatchObject({ error: 'invalid_grant' });
      expect(mismatch.json().error_description).toMatch(/redirect URI/);

      // None of those spent the code.
      const good = await tokenRequest(service, { ...base, code, redirect_uri: app.redirectUri });
      expect(good.statusCode).toBe(200);
    });

    it('spends a code and issues its token together: a refused exchange stores nothing', async () => {
      const { app, code, user } = await codeFor();
      await service.db
        .updateTable('users')
        .set({ state: 'blocked' })
        .where('id', '=', user.id)
        .execute();
      const refused = await tokenRequest(service, {
        grant_type: 'authorization_code',
        code,
        redirect_uri: app.redirectUri,
        client_id: app.clientId,
        client_secret: app.secret,
      });
      expect(refused.json().error).toBe('invalid_grant');
      const grants = await service.db
        .selectFrom('oauth_access_grants')
        .select(['id', 'used_at'])
        .where(
          'application_id',
          '=',
          (
            await service.db
              .selectFrom('oauth_applications')
              .select('id')
              .where('uid', '=', app.clientId)
              .executeTakeFirstOrThrow()
          ).id,
        )
        .execute();
      expect(grants.map((grant) => grant.used_at)).toEqual([null]);
      const tokens = await service.db
        .selectFrom('oauth_access_tokens')
        .select('id')
        .where('resource_owner_id', '=', user.id)
        .execute();
      expect(tokens).toEqual([]);
      // Unblocked within the code's lifetime, the same code still works once.
      await service.db
        .updateTable('users')
        .set({ state: 'active' })
        .where('id', '=', user.id)
        .execute();
      expect((await exchange(app, code)).access_token).toMatch(/^[0-9a-f]{64}$/);
    });

    it('refuses an expired code', async () => {
      const { app, code } = await codeFor();
      await service.db
        .updateTable('oauth_access_grants')
        .set({ expires_at: Date.now() - 1 })
        .execute();
      const response = await tokenRequest(service, {
        grant_type: 'authorization_code',
        code,
        redirect_uri: app.redirectUri,
        client_id: app.clientId,
        client_secret: app.secret,
      });
      expect(response.json()).toMatchObject({ error: 'invalid_grant' });
      expect(response.json().error_description).toMatch(/expired/);
    });

    it('checks the PKCE verifier, and requires PKCE of public clients', async () => {
      const { app, code } = await codeFor({ pkce: true });
      const fields = {
        grant_type: 'authorization_code',
        code,
        redirect_uri: app.redirectUri,
        client_id: app.clientId,
        client_secret: app.secret,
      };
      expect((await tokenRequest(service, fields)).json().error).toBe('invalid_grant');
      const wrong = await tokenRequest(service, { ...fields, code_verifier: 'x'.repeat(43) });
      expect(wrong.json().error).toBe('invalid_grant');
      expect((await tokenRequest(service, { ...fields, code_verifier: VERIFIER })).statusCode).toBe(
        200,
      );

      // A public client without a challenge hears about it at its redirect URI.
      const { user, client } = await signedInClient();
      const publicApp = await createApplication(service, user.id, { confidential: false });
      const refused = await client.get(
        `/oauth/authorize?${new URLSearchParams({
          client_id: publicApp.clientId,
          redirect_uri: publicApp.redirectUri,
          response_type: 'code',
          state: 's1',
        })}`,
      );
      expect(refused.statusCode).toBe(302);
      const location = new URL(refused.headers.location as string);
      expect(location.origin + location.pathname).toBe(publicApp.redirectUri);
      expect(location.searchParams.get('error')).toBe('invalid_request');
      expect(location.searchParams.get('state')).toBe('s1');

      // With PKCE it works, without a secret.
      const redirect = await authorizeAndApprove(client, {
        client_id: publicApp.clientId,
        redirect_uri: publicApp.redirectUri,
        response_type: 'code',
        code_challenge: pkceChallenge(VERIFIER),
        code_challenge_method: 'S256',
      });
      const exchanged = await tokenRequest(service, {
        grant_type: 'authorization_code',
        code: redirect.get('code') ?? '',
        redirect_uri: publicApp.redirectUri,
        client_id: publicApp.clientId,
        code_verifier: VERIFIER,
      });
      expect(exchanged.statusCode).toBe(200);
    });

    it('a verifier without a challenge is refused (PKCE downgrade)', async () => {
      const { app, code } = await codeFor();
      const response = await tokenRequest(service, {
        grant_type: 'authorization_code',
        code,
        redirect_uri: app.redirectUri,
        client_id: app.clientId,
        client_secret: app.secret,
        code_verifier: VERIFIER,
      });
      expect(response.json().error).toBe('invalid_grant');
    });
  });

  describe('/oauth/authorize errors', () => {
    it('shows an error page, never a redirect, for an unknown client or unregistered redirect URI', async () => {
      const { user, client } = await signedInClient();
      const app = await createApplication(service, user.id);
      for (const query of [
        { client_id: 'f'.repeat(64), redirect_uri: app.redirectUri, response_type: 'code' },
        {
          client_id: app.clientId,
          redirect_uri: 'https://evil.example/callback',
          response_type: 'code',
        },
        {
          client_id: app.clientId,
          redirect_uri: `${app.redirectUri}/extra`,
          response_type: 'code',
        },
        { client_id: app.clientId, response_type: 'code' },
      ] as Record<string, string>[]) {
        const response = await client.get(`/oauth/authorize?${new URLSearchParams(query)}`);
        expect(response.statusCode).toBe(400);
        expect(response.headers.location).toBeUndefined();
        expect(response.headers['content-type']).toMatch(/^text\/html/);
        // Words a person can act on: what went wrong, that nothing was shared, what to do.
        expect(response.body).toMatch(/not registered|has not registered/);
        expect(response.body).toContain('Applications page');
      }
    });

    it('redirects unsupported_response_type for the implicit grant, invalid_scope, and access_denied', async () => {
      const { user, client } = await signedInClient();
      const app = await createApplication(service, user.id, { scopes: ['read_user'] });
      const base = { client_id: app.clientId, redirect_uri: app.redirectUri, state: 'st' };
      const implicit = await client.get(
        `/oauth/authorize?${new URLSearchParams({ ...base, response_type: 'token' })}`,
      );
      expect(implicit.statusCode).toBe(302);
      const implicitTarget = new URL(implicit.headers.location as string);
      expect(implicitTarget.searchParams.get('error')).toBe('unsupported_response_type');
      expect(implicitTarget.searchParams.get('state')).toBe('st');
      expect(implicitTarget.hash).toBe('');

      const scope = await client.get(
        `/oauth/authorize?${new URLSearchParams({ ...base, response_type: 'code', scope: 'api' })}`,
      );
      expect(new URL(scope.headers.location as string).searchParams.get('error')).toBe(
        'invalid_scope',
      );

      const page = await client.get(
        `/oauth/authorize?${new URLSearchParams({ ...base, response_type: 'code', scope: 'read_user' })}`,
      );
      expect(page.statusCode).toBe(200);
      expect(page.headers['x-frame-options']).toBe('DENY');
      expect(page.headers['content-security-policy']).toContain("frame-ancestors 'none'");
      expect(page.headers['content-security-policy']).toContain(
        "form-action 'self' https://client.example",
      );
      expect(page.body).toContain('Test client');
      const denied = await client.post('/oauth/authorize', {
        ...base,
        response_type: 'code',
        scope: 'read_user',
        decision: 'deny',
      });
      expect(denied.statusCode).toBe(302);
      const deniedTarget = new URL(denied.headers.location as string);
      expect(deniedTarget.searchParams.get('error')).toBe('access_denied');
      expect(deniedTarget.searchParams.get('code')).toBeNull();
    });

    it('sends signed-out users to sign in and back to the same request', async () => {
      const user = await createUser(service);
      const app = await createApplication(service, user.id);
      const client = new WebClient(service);
      const query = new URLSearchParams({
        client_id: app.clientId,
        redirect_uri: app.redirectUri,
        response_type: 'code',
        state: 'back',
      });
      const first = await client.get(`/oauth/authorize?${query}`);
      expect(first.statusCode).toBe(302);
      expect(first.headers.location).toBe('/users/sign_in');
      const signIn = await client.signIn(user.email.toUpperCase(), user.password);
      expect(signIn.statusCode).toBe(302);
      expect(signIn.headers.location).toBe(`/oauth/authorize?${query}`);
    });

    it('asks again when a client wants fewer scopes than were approved (Doorkeeper: only the same scopes skip consent)', async () => {
      const { user, client } = await signedInClient();
      const app = await createApplication(service, user.id, {});
      const ask = (scope: string) =>
        client.get(
          `/oauth/authorize?${new URLSearchParams({
            client_id: app.clientId,
            redirect_uri: app.redirectUri,
            response_type: 'code',
            scope,
          })}`,
        );
      const both = await authorizeAndApprove(client, {
        client_id: app.clientId,
        redirect_uri: app.redirectUri,
        response_type: 'code',
        scope: 'api read_user',
      });
      await exchange(app, both.get('code') ?? '');
      const fewer = await ask('read_user');
      expect(fewer.statusCode).toBe(200);
      expect(fewer.body).toContain('Authorization required');
      const same = await ask('read_user api');
      expect(same.statusCode).toBe(302);
    });

    it('names the issuer in every authorization response (RFC 9207) and says so in its metadata', async () => {
      const issuer = service.config.services.codehost.publicUrl;
      const metadata = (
        await service.app.inject({ url: '/.well-known/oauth-authorization-server' })
      ).json();
      expect(metadata).toMatchObject({
        issuer,
        authorization_response_iss_parameter_supported: true,
      });
      const { redirect } = await codeFor();
      expect(redirect.get('iss')).toBe(issuer);
      const { user, client } = await signedInClient();
      const app = await createApplication(service, user.id, {});
      const base = { client_id: app.clientId, redirect_uri: app.redirectUri, state: 's' };
      const unsupported = await client.get(
        `/oauth/authorize?${new URLSearchParams({ ...base, response_type: 'token' })}`,
      );
      const errorTarget = new URL(unsupported.headers.location as string);
      expect(errorTarget.searchParams.get('error')).toBe('unsupported_response_type');
      expect(errorTarget.searchParams.get('iss')).toBe(issuer);
      // The consent page sets the form's CSRF token in the client.
      await client.get(
        `/oauth/authorize?${new URLSearchParams({ ...base, response_type: 'code', scope: 'api' })}`,
      );
      const denied = await client.post('/oauth/authorize', {
        ...base,
        response_type: 'code',
        scope: 'api',
        decision: 'deny',
      });
      const deniedTarget = new URL(denied.headers.location as string);
      expect(deniedTarget.searchParams.get('error')).toBe('access_denied');
      expect(deniedTarget.searchParams.get('iss')).toBe(issuer);
    });

    it('approves again without asking while access stands, and asks again after "revoke access"', async () => {
      const { app, code, client } = await codeFor();
      const token = await exchange(app, code);
      const query = new URLSearchParams({
        client_id: app.clientId,
        redirect_uri: app.redirectUri,
        response_type: 'code',
        scope: 'api',
        state: 'again',
      });
      const again = await client.get(`/oauth/authorize?${query}`);
      expect(again.statusCode).toBe(302);
      const target = new URL(again.headers.location as string);
      expect(target.searchParams.get('code')).toMatch(/^[0-9a-f]{64}$/);
      expect(target.searchParams.get('state')).toBe('again');

      const listed = await client.get('/profile/applications');
      expect(listed.body).toContain(`/profile/applications/authorized/${app.id}/revoke`);
      const revoked = await client.post(`/profile/applications/authorized/${app.id}/revoke`, {});
      expect(revoked.statusCode).toBe(302);
      const api = await service.app.inject({
        url: '/api/v3/user',
        headers: { authorization: `Bearer ${token.access_token}` },
      });
      expect(api.statusCode).toBe(401);
      // The code issued by the automatic approval was withdrawn too.
      const late = await tokenRequest(service, {
        grant_type: 'authorization_code',
        code: target.searchParams.get('code') ?? '',
        redirect_uri: app.redirectUri,
        client_id: app.clientId,
        client_secret: app.secret,
      });
      expect(late.json().error).toBe('invalid_grant');
      const asked = await client.get(`/oauth/authorize?${query}`);
      expect(asked.statusCode).toBe(200);
      expect(asked.body).toContain('Authorization required');
    });

    it('does not count an expired token that cannot be refreshed as standing access', async () => {
      const user = await createUser(service);
      const app = await createApplication(service, user.id);
      const password = await tokenRequest(service, {
        grant_type: 'password',
        username: user.username,
        password: user.password,
        client_id: app.clientId,
        client_secret: app.secret,
      });
      expect(password.statusCode).toBe(200);
      const client = new WebClient(service);
      await client.signIn(user.username, user.password);
      const query = new URLSearchParams({
        client_id: app.clientId,
        redirect_uri: app.redirectUri,
        response_type: 'code',
      });
      expect((await client.get(`/oauth/authorize?${query}`)).statusCode).toBe(302);
      await service.db
        .updateTable('oauth_access_tokens')
        .set({ expires_at: Date.now() - 1 })
        .where('resource_owner_id', '=', user.id)
        .execute();
      expect((await client.get(`/oauth/authorize?${query}`)).statusCode).toBe(200);
    });

    it('refuses an approval posted without the form token', async () => {
      const { user, client } = await signedInClient();
      const app = await createApplication(service, user.id);
      const response = await client.post('/oauth/authorize', {
        authenticity_token: 'f'.repeat(64),
        client_id: app.clientId,
        redirect_uri: app.redirectUri,
        response_type: 'code',
        decision: 'approve',
      });
      expect(response.statusCode).toBe(422);
      expect(response.headers.location).toBeUndefined();
      const grants = await service.db
        .selectFrom('oauth_access_grants')
        .select('id')
        .where('application_id', '=', app.id)
        .execute();
      expect(grants).toHaveLength(0);
    });
  });

  describe('password grant', () => {
    it('issues a token without a refresh token and without a client', async () => {
      const user = await createUser(service);
      const response = await tokenRequest(service, {
        grant_type: 'password',
        username: user.username.toUpperCase(),
        password: user.password,
      });
      expect(response.statusCode).toBe(200);
      const body = response.json();
      expect(body).toMatchObject({ token_type: 'bearer', expires_in: 7200, scope: 'api' });
      expect(body.refresh_token).toBeUndefined();
    });

    it('gives the same answer for an unknown login and a wrong password', async () => {
      const user = await createUser(service);
      const wrong = await tokenRequest(service, {
        grant_type: 'password',
        username: user.username,
        password: 'nope-nope',
      });
      const unknown = await tokenRequest(service, {
        grant_type: 'password',
        username: 'nobody-here',
        password: 'nope-nope',
      });
      expect(wrong.statusCode).toBe(400);
      expect(wrong.json()).toEqual(unknown.json());
      expect(wrong.json().error).toBe('invalid_grant');
    });

    it('refuses two-factor and blocked users', async () => {
      const twoFactorUser = await createUser(service);
      const secret = newTotpSecret();
      await new TwoFactorStore(service.db).enable(twoFactorUser.id, secret, currentCode(secret));
      const refused = await tokenRequest(service, {
        grant_type: 'password',
        username: twoFactorUser.username,
        password: twoFactorUser.password,
      });
      expect(refused.json().error).toBe('invalid_grant');
      expect(refused.json().error_description).toMatch(/personal access token/);

      const blocked = await createUser(service);
      await service.db
        .updateTable('users')
        .set({ state: 'blocked' })
        .where('id', '=', blocked.id)
        .execute();
      const blockedResponse = await tokenRequest(service, {
        grant_type: 'password',
        username: blocked.username,
        password: blocked.password,
      });
      expect(blockedResponse.json().error).toBe('invalid_grant');
    });

    it('checks client credentials that are sent', async () => {
      const user = await createUser(service);
      const app = await createApplication(service, user.id);
      const fields = { grant_type: 'password', username: user.username, password: user.password };
      expect(
        (await tokenRequest(service, { ...fields, client_id: app.clientId, client_secret: 'bad' }))
          .statusCode,
      ).toBe(401);
      expect((await tokenRequest(service, { ...fields, client_id: app.clientId })).statusCode).toBe(
        401,
      );
      expect(
        (
          await tokenRequest(service, {
            ...fields,
            client_id: app.clientId,
            client_secret: app.secret,
          })
        ).statusCode,
      ).toBe(200);
    });
  });

  describe('refresh', () => {
    const ageRotation = (refreshToken: string) => ageRefreshRotation(service, refreshToken);
    const userWith = (accessToken: string) =>
      service.app.inject({
        url: '/api/v3/user',
        headers: { authorization: `Bearer ${accessToken}` },
      });

    it('rotates: a new pair each time, the old refresh token revoked, reuse after the grace window revokes the chain', async () => {
      const { app, code } = await codeFor();
      const client = { client_id: app.clientId, client_secret: app.secret };
      const first = await exchange(app, code);
      const second = await tokenRequest(service, {
        grant_type: 'refresh_token',
        refresh_token: first.refresh_token,
        ...client,
      });
      expect(second.statusCode).toBe(200);
      const pair = second.json();
      expect(pair.refresh_token).not.toBe(first.refresh_token);
      expect(pair.access_token).not.toBe(first.access_token);

      const oldAccess = await userWith(first.access_token);
      expect(oldAccess.statusCode).toBe(401);
      expect(oldAccess.json().error_description).toMatch(/revoked/);

      await ageRotation(first.refresh_token);
      const reuse = await tokenRequest(service, {
        grant_type: 'refresh_token',
        refresh_token: first.refresh_token,
        ...client,
      });
      expect(reuse.json().error).toBe('invalid_grant');
      // The reuse was an attack on the chain: the newest token is revoked too.
      expect((await userWith(pair.access_token)).statusCode).toBe(401);
    });

    it('may narrow but not widen the scope, and a refused widening keeps the token usable', async () => {
      const { app, code } = await codeFor({ scope: 'read_user' });
      const client = { client_id: app.clientId, client_secret: app.secret };
      const first = await exchange(app, code);
      const widened = await tokenRequest(service, {
        grant_type: 'refresh_token',
        refresh_token: first.refresh_token,
        scope: 'api read_user',
        ...client,
      });
      expect(widened.json().error).toBe('invalid_scope');
      const ok = await tokenRequest(service, {
        grant_type: 'refresh_token',
        refresh_token: first.refresh_token,
        ...client,
      });
      expect(ok.statusCode).toBe(200);
      expect(ok.json().scope).toBe('read_user');
    });
    it('gives both of two simultaneous uses of a refresh token a working pair (a retried refresh)', async () => {
      const { app, code } = await codeFor();
      const client = { client_id: app.clientId, client_secret: app.secret };
      const first = await exchange(app, code);
      const refresh = (token: string) =>
        tokenRequest(service, { grant_type: 'refresh_token', refresh_token: token, ...client });
      const answers = await Promise.all([
        refresh(first.refresh_token),
        refresh(first.refresh_token),
      ]);
      expect(answers.map((answer) => answer.statusCode)).toEqual([200, 200]);
      const [one, two] = answers.map((answer) => answer.json());
      expect(one.refresh_token).not.toBe(two.refresh_token);
      // Whichever pair the client kept works, and refreshes.
      for (const pair of [one, two]) {
        expect((await userWith(pair.access_token)).statusCode).toBe(200);
      }
      expect((await refresh(two.refresh_token)).statusCode).toBe(200);
      // Past the window the spent token is reuse again, and ends the chain.
      await ageRotation(first.refresh_token);
      expect((await refresh(first.refresh_token)).json().error).toBe('invalid_grant');
      expect((await userWith(one.access_token)).statusCode).toBe(401);
    });

    it('allows one retry within the grace window: a second reuse is theft and revokes the chain', async () => {
      const { app, code } = await codeFor();
      const client = { client_id: app.clientId, client_secret: app.secret };
      const refresh = (token: string) =>
        tokenRequest(service, { grant_type: 'refresh_token', refresh_token: token, ...client });
      const first = await exchange(app, code);
      const rotated = await refresh(first.refresh_token);
      expect(rotated.statusCode).toBe(200);
      // A retry (the response was lost): its own pair, once.
      const retry = await refresh(first.refresh_token);
      expect(retry.statusCode).toBe(200);
      // A third use within the window: not a retry any more.
      const again = await refresh(first.refresh_token);
      expect(again.statusCode).toBe(400);
      expect(again.json().error).toBe('invalid_grant');
      // Every branch of the chain is gone: no pair a thief could have kept works.
      for (const pair of [rotated.json(), retry.json()]) {
        expect((await userWith(pair.access_token)).statusCode).toBe(401);
        expect((await refresh(pair.refresh_token)).json().error).toBe('invalid_grant');
      }
    });

    it('gives no grace to a refresh token its client revoked, or once its chain was revoked', async () => {
      const { app, code } = await codeFor();
      const client = { client_id: app.clientId, client_secret: app.secret };
      const refresh = (token: string) =>
        tokenRequest(service, { grant_type: 'refresh_token', refresh_token: token, ...client });
      const first = await exchange(app, code);
      const revoked = await service.app.inject({
        method: 'POST',
        url: '/oauth/revoke',
        payload: { token: first.refresh_token, ...client },
      });
      expect(revoked.statusCode).toBe(200);
      expect((await refresh(first.refresh_token)).json().error).toBe('invalid_grant');

      const other = await codeFor();
      const otherClient = { client_id: other.app.clientId, client_secret: other.app.secret };
      const start = await exchange(other.app, other.code);
      const rotated = await tokenRequest(service, {
        grant_type: 'refresh_token',
        refresh_token: start.refresh_token,
        ...otherClient,
      });
      expect(rotated.statusCode).toBe(200);
      // The user ends the application's access; the spent token is not revived.
      await service.db
        .updateTable('oauth_access_tokens')
        .set({ revoked_at: Date.now() })
        .where('revoked_at', 'is', null)
        .where('application_id', '=', other.app.id)
        .execute();
      const retry = await tokenRequest(service, {
        grant_type: 'refresh_token',
        refresh_token: start.refresh_token,
        ...otherClient,
      });
      expect(retry.json().error).toBe('invalid_grant');
    });

    it("refuses a blocked user's refresh without spending the token", async () => {
      const { user, app, code } = await codeFor();
      const client = { client_id: app.clientId, client_secret: app.secret };
      const first = await exchange(app, code);
      const setState = (state: 'active' | 'blocked') =>
        service.db.updateTable('users').set({ state }).where('id', '=', user.id).execute();
      await setState('blocked');
      const refused = await tokenRequest(service, {
        grant_type: 'refresh_token',
        refresh_token: first.refresh_token,
        ...client,
      });
      expect(refused.statusCode).toBe(400);
      expect(refused.json().error).toBe('invalid_grant');
      await setState('active');
      const after = await tokenRequest(service, {
        grant_type: 'refresh_token',
        refresh_token: first.refresh_token,
        ...client,
      });
      expect(after.statusCode).toBe(200);
    });
  });

  describe('token endpoint input', () => {
    it('answers unknown grant types, repeated and missing parameters as RFC 6749 errors', async () => {
      expect((await tokenRequest(service, { grant_type: 'client_credentials' })).json().error).toBe(
        'unsupported_grant_type',
      );
      expect((await tokenRequest(service, {})).json()).toEqual({
        error: 'invalid_request',
        error_description: 'grant_type is missing.',
      });
      const repeated = await service.app.inject({
        method: 'POST',
        url: '/oauth/token',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        payload: 'grant_type=password&grant_type=password&username=a&password=b',
      });
      expect(repeated.statusCode).toBe(400);
      expect(repeated.json().error).toBe('invalid_request');
      const xml = await service.app.inject({
        method: 'POST',
        url: '/oauth/token',
        headers: { 'content-type': 'text/xml' },
        payload: '<x/>',
      });
      expect(xml.statusCode).toBe(415);
      expect(xml.json().error).toBe('invalid_request');
      const both = await tokenRequest(
        service,
        { grant_type: 'password', username: 'a', password: 'b', client_secret: 'x' },
        { authorization: basicAuth('a', 'b') },
      );
      expect(both.json().error).toBe('invalid_request');
    });
  });

  describe('revocation, introspection, token info, metadata', () => {
    it('revokes an access token (RFC 7009) and answers 200 for unknown tokens', async () => {
      const { app, code } = await codeFor();
      const client = { client_id: app.clientId, client_secret: app.secret };
      const token = await exchange(app, code);
      const post = (fields: Record<string, string>) =>
        service.app.inject({
          method: 'POST',
          url: '/oauth/revoke',
          headers: { 'content-type': 'application/x-www-form-urlencoded' },
          payload: new URLSearchParams(fields).toString(),
        });
      expect((await post({ token: 'f'.repeat(64), ...client })).statusCode).toBe(200);
      const stranger = await createApplication(service, (await createUser(service)).id);
      const foreign = await post({
        token: token.access_token,
        client_id: stranger.clientId,
        client_secret: stranger.secret,
      });
      expect(foreign.json().error).toBe('unauthorized_client');
      expect((await post({ token: token.access_token, ...client })).statusCode).toBe(200);
      const api = await service.app.inject({
        url: '/api/v3/user',
        headers: { authorization: `Bearer ${token.access_token}` },
      });
      expect(api.statusCode).toBe(401);
    });

    it('introspects for authenticated clients only (RFC 7662)', async () => {
      const { app, code, user } = await codeFor();
      const client = { client_id: app.clientId, client_secret: app.secret };
      const token = await exchange(app, code);
      const introspect = (fields: Record<string, string>) =>
        service.app.inject({
          method: 'POST',
          url: '/oauth/introspect',
          headers: { 'content-type': 'application/x-www-form-urlencoded' },
          payload: new URLSearchParams(fields).toString(),
        });
      const active = await introspect({ token: token.access_token, ...client });
      expect(active.json()).toMatchObject({
        active: true,
        scope: 'api',
        client_id: app.clientId,
        username: user.username,
        token_type: 'Bearer',
        sub: String(user.id),
      });
      expect((await introspect({ token: token.access_token })).statusCode).toBe(401);
      expect((await introspect({ token: 'f'.repeat(64), ...client })).json()).toEqual({
        active: false,
      });
    });

    it('describes a token at /oauth/token/info and refuses a bad one', async () => {
      const user = await createUser(service);
      const token = (
        await tokenRequest(service, {
          grant_type: 'password',
          username: user.username,
          password: user.password,
        })
      ).json();
      const info = await service.app.inject({
        url: '/oauth/token/info',
        headers: { authorization: `Bearer ${token.access_token}` },
      });
      expect(info.statusCode).toBe(200);
      expect(info.json()).toMatchObject({
        resource_owner_id: user.id,
        scopes: ['api'],
        application: { uid: null },
      });
      expect(info.json().expires_in_seconds).toBeGreaterThan(7100);
      const bad = await service.app.inject({
        url: '/oauth/token/info',
        headers: { authorization: 'Bearer nope' },
      });
      expect(bad.statusCode).toBe(401);
      expect(bad.headers['www-authenticate']).toContain('error="invalid_token"');
    });

    it('publishes RFC 8414 metadata', async () => {
      const response = await service.app.inject({ url: '/.well-known/oauth-authorization-server' });
      expect(response.json()).toMatchObject({
        issuer: service.url,
        token_endpoint: `${service.url}/oauth/token`,
        code_challenge_methods_supported: ['S256'],
        response_types_supported: ['code'],
      });
    });
  });
});
