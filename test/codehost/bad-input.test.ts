import { describe, expect, it } from 'vitest';
import { DATABASE_KINDS } from '../harness.js';
import {
  basicAuth,
  codehostForTests,
  createApplication,
  createUser,
  tokenRequest,
  WebClient,
} from './helpers.js';

/** Malformed, missing, wrong-typed, unknown and oversized input on every codehost route so far. */
describe.each(DATABASE_KINDS)('on %s', (kind) => {
  const service = codehostForTests(kind, { env: { HTTP_BODY_LIMIT: '4096' } });

  const countRows = async () => {
    const [tokens, grants, applications, personal] = await Promise.all(
      (
        [
          'oauth_access_tokens',
          'oauth_access_grants',
          'oauth_applications',
          'personal_access_tokens',
        ] as const
      ).map((table) =>
        service.db
          .selectFrom(table)
          .select((eb) => eb.fn.countAll<number>().as('n'))
          .executeTakeFirstOrThrow()
          .then((row) => Number(row.n)),
      ),
    );
    return { tokens, grants, applications, personal };
  };

  const post = (url: string, payload: string, contentType = 'application/x-www-form-urlencoded') =>
    service.app.inject({ method: 'POST', url, headers: { 'content-type': contentType }, payload });

  describe('OAuth endpoints', () => {
    it('answer oversized, wrong-typed and malformed bodies in the OAuth shape, storing nothing', async () => {
      const before = await countRows();
      const oversized = await post(
        '/oauth/token',
        `grant_type=password&username=${'a'.repeat(5000)}`,
      );
      expect(oversized.statusCode).toBe(413);
      expect(oversized.json().error).toBe('invalid_request');

      const wrongType = await post(
        '/oauth/token',
        JSON.stringify({ grant_type: 'password', username: { a: 1 }, password: 'x' }),
        'application/json',
      );
      expect(wrongType.statusCode).toBe(400);
      expect(wrongType.json().error).toBe('invalid_request');

      const malformed = await post('/oauth/token', '{"grant_type": ', 'application/json');
      expect(malformed.statusCode).toBe(400);
      expect(malformed.json().error).toBe('invalid_request');

      const badBasic = await tokenRequest(
        service,
        { grant_type: 'password', username: 'a', password: 'b' },
        { authorization: 'Basic !!!' },
      );
      expect(badBasic.statusCode).toBe(401);
      expect(badBasic.json().error).toBe('invalid_client');
      expect(await countRows()).toEqual(before);
    });

    it('revoke: missing token, unknown hint and bad client', async () => {
      const user = await createUser(service);
      const app = await createApplication(service, user.id);
      const client = `client_id=${app.clientId}&client_secret=${app.secret}`;
      const missing = await post('/oauth/revoke', client);
      expect(missing.statusCode).toBe(400);
      expect(missing.json().error).toBe('invalid_request');
      const hint = await post('/oauth/revoke', `${client}&token=abc&token_type_hint=id_token`);
      expect(hint.json().error).toBe('unsupported_token_type');
      const badClient = await service.app.inject({
        method: 'POST',
        url: '/oauth/revoke',
        headers: {
          'content-type': 'application/x-www-form-urlencoded',
          authorization: basicAuth(app.clientId, 'wrong'),
        },
        payload: 'token=abc',
      });
      expect(badClient.statusCode).toBe(401);
    });

    it('introspect: missing token and public clients', async () => {
      const user = await createUser(service);
      const app = await createApplication(service, user.id);
      const publicApp = await createApplication(service, user.id, { confidential: false });
      const missing = await post(
        '/oauth/introspect',
        `client_id=${app.clientId}&client_secret=${app.secret}`,
      );
      expect(missing.json().error).toBe('invalid_request');
      const unauthenticated = await post(
        '/oauth/introspect',
        `client_id=${publicApp.clientId}&token=x`,
      );
      expect(unauthenticated.statusCode).toBe(401);
      expect(unauthenticated.json().error).toBe('invalid_client');
    });

    it('authorize: repeated parameters, plain PKCE and malformed challenges', async () => {
      const user = await createUser(service);
      const app = await createApplication(service, user.id);
      const client = new WebClient(service);
      await client.signIn(user.username, user.password);
      const base = `client_id=${app.clientId}&redirect_uri=${encodeURIComponent(app.redirectUri)}&response_type=code`;
      const repeated = await client.get(`/oauth/authorize?${base}&client_id=${app.clientId}`);
      expect(repeated.statusCode).toBe(400);
      expect(repeated.headers.location).toBeUndefined();

      const errorOf = async (extra: string) => {
        const response = await client.get(`/oauth/authorize?${base}&${extra}`);
        expect(response.statusCode).toBe(302);
        return new URL(response.headers.location as string).searchParams.get('error');
      };
      const challenge = 'A'.repeat(43);
      expect(await errorOf(`code_challenge=${challenge}&code_challenge_method=plain`)).toBe(
        'invalid_request',
      );
      expect(await errorOf(`code_challenge=${challenge}`)).toBe('invalid_request');
      expect(await errorOf('code_challenge=short&code_challenge_method=S256')).toBe(
        'invalid_request',
      );
      expect(await errorOf('code_challenge_method=S256')).toBe('invalid_request');
      expect(await errorOf('scope=admin')).toBe('invalid_scope');
      // The same request without those faults reaches the consent page.
      expect((await client.get(`/oauth/authorize?${base}`)).statusCode).toBe(200);
      const none = await client.get(
        `/oauth/authorize?client_id=${app.clientId}&redirect_uri=${encodeURIComponent(app.redirectUri)}`,
      );
      expect(new URL(none.headers.location as string).searchParams.get('error')).toBe(
        'invalid_request',
      );
      expect((await countRows()).grants).toBe(0);
    });

    it('authorize (POST): an unknown decision is a 400 page and issues nothing', async () => {
      const user = await createUser(service);
      const app = await createApplication(service, user.id);
      const client = new WebClient(service);
      await client.signIn(user.username, user.password);
      await client.get('/profile');
      const response = await client.post('/oauth/authorize', {
        client_id: app.clientId,
        redirect_uri: app.redirectUri,
        response_type: 'code',
        decision: 'maybe',
      });
      expect(response.statusCode).toBe(400);
      expect(response.headers['content-type']).toMatch(/^text\/html/);
      expect((await countRows()).grants).toBe(0);
    });
  });

  describe('web forms', () => {
    it('sign-in: missing fields, an over-long login and an oversized body', async () => {
      const client = new WebClient(service);
      await client.get('/users/sign_in');
      expect((await client.post('/users/sign_in', { login: 'someone' })).statusCode).toBe(422);
      const long = await client.post('/users/sign_in', {
        login: 'x'.repeat(1000),
        password: 'whatever-pass',
      });
      expect(long.statusCode).toBe(422);
      expect(long.body).toContain('Invalid login or password.');
      const oversized = await client.post('/users/sign_in', {
        login: 'a',
        password: 'p'.repeat(5000),
      });
      expect(oversized.statusCode).toBe(413);
      expect(oversized.headers['content-type']).toMatch(/^text\/html/);
    });

    it('applications: empty name, unknown scope, fragment and relative URIs change nothing', async () => {
      const user = await createUser(service);
      const client = new WebClient(service);
      await client.signIn(user.username, user.password);
      await client.get('/profile/applications');
      const before = await countRows();
      for (const fields of [
        { name: '', redirect_uri: 'https://a.example/cb', scopes: 'api' },
        { name: 'x', redirect_uri: 'https://a.example/cb', scopes: 'sudo' },
        { name: 'x', redirect_uri: 'https://a.example/cb', scopes: [] as string[] },
        { name: 'x', redirect_uri: 'https://a.example/cb#frag', scopes: 'api' },
        { name: 'x', redirect_uri: '/relative', scopes: 'api' },
        { name: 'x', redirect_uri: '', scopes: 'api' },
      ]) {
        const response = await client.post('/profile/applications', fields);
        expect(response.statusCode, JSON.stringify(fields)).toBe(422);
      }
      expect(await countRows()).toEqual(before);
      // A malformed ID in a page's address is a page that is not there.
      expect((await client.get('/profile/applications/99999999999')).statusCode).toBe(404);
      expect((await client.get('/profile/applications/0')).statusCode).toBe(404);
    });

    it('personal access tokens: missing name, unknown scope, impossible and past dates change nothing', async () => {
      const user = await createUser(service);
      const client = new WebClient(service);
      await client.signIn(user.username, user.password);
      await client.get('/profile/personal_access_tokens');
      const before = await countRows();
      for (const fields of [
        { name: '', scopes: 'api' },
        { name: 'x', scopes: 'sudo' },
        { name: 'x', scopes: [] as string[] },
        { name: 'x', scopes: 'api', expires_at: '2031-02-30' },
        { name: 'x', scopes: 'api', expires_at: 'tomorrow' },
        { name: 'x', scopes: 'api', expires_at: '2000-01-01' },
      ] as Record<string, string | string[]>[]) {
        const response = await client.post('/profile/personal_access_tokens', fields);
        expect(response.statusCode, JSON.stringify(fields)).toBe(422);
      }
      expect(await countRows()).toEqual(before);
      const unknown = await client.post('/profile/personal_access_tokens/424242/revoke', {});
      expect(unknown.statusCode).toBe(404);
    });

    it('pages need a session: signed-out visitors are sent to sign in', async () => {
      for (const path of [
        '/profile',
        '/profile/applications',
        '/profile/personal_access_tokens',
        '/profile/two_factor_auth',
      ]) {
        const response = await service.app.inject({ url: path });
        expect(response.statusCode, path).toBe(302);
        expect(response.headers.location).toBe('/users/sign_in');
      }
    });
  });
});
