import { describe, expect, it } from 'vitest';
import { DATABASE_KINDS } from '../harness.js';
import { apiToken, codehostForTests, createUser } from './helpers.js';

const ORIGIN = 'https://spa.example';

/**
 * Browser applications on other origins (a single-page application using the
 * authorization code flow with PKCE) reach what GitLab opens to them: the
 * preflight is answered, and the answer carries Access-Control-Allow-Origin.
 * Pages, the authorization endpoint and introspection stay same-origin.
 */
describe.each(DATABASE_KINDS)('codehost CORS on %s', (kind) => {
  const service = codehostForTests(kind);

  const preflight = (url: string, method: string, headers = 'authorization') =>
    service.app.inject({
      method: 'OPTIONS',
      url,
      headers: {
        origin: ORIGIN,
        'access-control-request-method': method,
        'access-control-request-headers': headers,
      },
    });

  it('answers the preflight of the token, revocation, userinfo, key set, discovery and API', async () => {
    for (const [url, method] of [
      ['/oauth/token', 'POST'],
      ['/oauth/revoke', 'POST'],
      ['/oauth/userinfo', 'GET'],
      ['/oauth/discovery/keys', 'GET'],
      ['/.well-known/openid-configuration', 'GET'],
      ['/.well-known/oauth-authorization-server', 'GET'],
      ['/api/v4/user', 'GET'],
      ['/api/v3/projects', 'GET'],
    ] as const) {
      const answer = await preflight(url, method);
      expect(answer.statusCode, url).toBe(204);
      expect(answer.headers['access-control-allow-origin'], url).toBe('*');
      expect(String(answer.headers['access-control-allow-methods']), url).toContain(method);
      expect(answer.headers['access-control-allow-credentials'], url).toBeUndefined();
    }
    expect(
      String((await preflight('/oauth/token', 'POST')).headers['access-control-allow-headers']),
    ).toMatch(/Content-Type/i);
    // The API allows whatever headers a client asks for, as GitLab's `headers: :any`.
    expect(
      String(
        (await preflight('/api/v4/user', 'GET', 'sudo,x-requested-with')).headers[
          'access-control-allow-headers'
        ],
      ),
    ).toBe('sudo,x-requested-with');
  });

  it('marks the answers themselves for other origins, without credentials', async () => {
    for (const url of ['/.well-known/openid-configuration', '/oauth/discovery/keys']) {
      const answer = await service.app.inject({ url, headers: { origin: ORIGIN } });
      expect(answer.statusCode, url).toBe(200);
      expect(answer.headers['access-control-allow-origin'], url).toBe('*');
    }
    const token = await service.app.inject({
      method: 'POST',
      url: '/oauth/token',
      headers: { origin: ORIGIN },
      payload: { grant_type: 'authorization_code', code: 'x', client_id: 'nobody' },
    });
    expect(token.statusCode).toBeGreaterThanOrEqual(400);
    // Even a refusal is readable by the page, so it can say what went wrong.
    expect(token.headers['access-control-allow-origin']).toBe('*');
    const user = await createUser(service);
    const api = await service.app.inject({
      url: '/api/v4/user',
      headers: { origin: ORIGIN, 'private-token': await apiToken(service, user.id) },
    });
    expect(api.statusCode).toBe(200);
    expect(api.headers['access-control-allow-origin']).toBe('*');
    expect(String(api.headers['access-control-expose-headers'])).toContain('X-Total');
  });

  it('keeps pages, authorization and introspection to their own origin', async () => {
    for (const [url, method] of [
      ['/oauth/authorize', 'GET'],
      ['/oauth/introspect', 'POST'],
      ['/users/sign_in', 'POST'],
      ['/profile', 'GET'],
    ] as const) {
      const answer = await preflight(url, method);
      expect(answer.headers['access-control-allow-origin'], url).toBeUndefined();
      expect(answer.statusCode, url).toBeGreaterThanOrEqual(400);
    }
    // An OPTIONS that is no preflight is answered as before: 405 naming what is allowed.
    for (const headers of [{}, { origin: ORIGIN }, { 'access-control-request-method': 'POST' }]) {
      const plain = await service.app.inject({ method: 'OPTIONS', url: '/oauth/token', headers });
      expect(plain.statusCode, JSON.stringify(headers)).toBe(405);
      expect(plain.headers.allow).toBe('POST');
      expect(plain.headers['content-type']).toMatch(/^application\/json/);
    }
    const page = await service.app.inject({ url: '/users/sign_in', headers: { origin: ORIGIN } });
    expect(page.headers['access-control-allow-origin']).toBeUndefined();
  });
});
