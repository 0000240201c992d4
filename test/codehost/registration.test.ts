/**
 * Dynamic Client Registration (RFC 7591, RFC 7592) and resource indicators
 * (RFC 8707) at codehost: what is refused, with the RFCs' error codes, stores
 * nothing; a registration reads and deletes itself with its own token.
 */
import { describe, expect, it } from 'vitest';
import { ResourceServerStore } from '../../src/codehost/oauth/resource-servers.js';
import { ConfigError } from '../../src/platform/config.js';
import { loadProgramConfig } from '../../src/program.js';
import { DATABASE_KINDS } from '../harness.js';
import {
  authorizeAndApprove,
  type Codehost,
  codehostForTests,
  createUser,
  tokenRequest,
  WebClient,
} from './helpers.js';

const register = (service: Codehost, body: unknown, headers: Record<string, string> = {}) =>
  service.app.inject({
    method: 'POST',
    url: '/oauth/register',
    headers: { 'content-type': 'application/json', ...headers },
    payload: typeof body === 'string' ? body : JSON.stringify(body),
  });

const applicationCount = async (service: Codehost) =>
  Number(
    (
      await service.db
        .selectFrom('oauth_applications')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .executeTakeFirstOrThrow()
    ).n,
  );

const GOOD = { client_name: 'A tool', redirect_uris: ['http://127.0.0.1:8765/callback'] };

describe.each(DATABASE_KINDS)('client registration and resource indicators on %s', (kind) => {
  const service = codehostForTests(kind, { env: { CODEHOST_REGISTRATION_PER_HOUR: '30' } });

  it('registers a public client, which reads and deletes its own registration', async () => {
    const metadata = await service.app.inject('/.well-known/oauth-authorization-server');
    expect(metadata.json().registration_endpoint).toBe(`${service.url}/oauth/register`);
    const response = await register(service, { ...GOOD, client_uri: 'https://tool.example' });
    expect(response.statusCode, response.body).toBe(201);
    const registered = response.json();
    expect(registered).toMatchObject({
      client_name: 'A tool',
      token_endpoint_auth_method: 'none',
      grant_types: ['authorization_code', 'refresh_token'],
      redirect_uris: GOOD.redirect_uris,
      registration_client_uri: `${service.url}/oauth/register/${registered.client_id}`,
    });
    const read = (token: string) =>
      service.app.inject({
        url: `/oauth/register/${registered.client_id}`,
        headers: { authorization: `Bearer ${token}` },
      });
    expect((await read('0'.repeat(64))).statusCode).toBe(401);
    expect((await read(registered.registration_access_token)).json().client_id).toBe(
      registered.client_id,
    );
    const before = await applicationCount(service);
    const deleted = await service.app.inject({
      method: 'DELETE',
      url: `/oauth/register/${registered.client_id}`,
      headers: { authorization: `Bearer ${registered.registration_access_token}` },
    });
    expect(deleted.statusCode).toBe(204);
    expect(await applicationCount(service)).toBe(before - 1);
    expect((await read(registered.registration_access_token)).statusCode).toBe(401);
  });

  it('shows a client that registered itself as such to the person who let it in, who can revoke it', async () => {
    const registered = (await register(service, { ...GOOD, client_name: 'Self-made tool' })).json();
    const user = await createUser(service);
    const browser = new WebClient(service);
    await browser.signIn(user.username, user.password);
    const parameters = {
      client_id: registered.client_id,
      redirect_uri: GOOD.redirect_uris[0] as string,
      response_type: 'code',
      scope: 'api',
      code_challenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM',
      code_challenge_method: 'S256',
    };
    const consent = await browser.get(`/oauth/authorize?${new URLSearchParams(parameters)}`);
    expect(consent.body).toContain('registered itself with codehost');
    const granted = await authorizeAndApprove(browser, parameters);
    const token = await tokenRequest(service, {
      grant_type: 'authorization_code',
      code: granted.get('code') as string,
      redirect_uri: parameters.redirect_uri,
      client_id: registered.client_id,
      code_verifier: 'dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk',
    });
    expect(token.statusCode, token.body).toBe(200);
    const listed = await browser.get('/profile/applications');
    expect(listed.body).toMatch(
      /Self-made tool <span class="badge"[^>]*>registered itself<\/span>/,
    );
    const id = (
      await service.db
        .selectFrom('oauth_applications')
        .select('id')
        .where('uid', '=', registered.client_id)
        .executeTakeFirstOrThrow()
    ).id;
    await browser.post(`/profile/applications/authorized/${id}/revoke`, {});
    const api = await service.app.inject({
      url: '/api/v4/user',
      headers: { authorization: `Bearer ${token.json().access_token}` },
    });
    expect(api.statusCode).toBe(401);
    expect((await browser.get('/profile/applications')).body).not.toContain('Self-made tool');
  });

  it.each([
    [
      'a javascript: redirect URI',
      { redirect_uris: ['javascript:alert(1)'] },
      'invalid_redirect_uri',
    ],
    ['a data: redirect URI', { redirect_uris: ['data:text/html,hi'] }, 'invalid_redirect_uri'],
    ['a fragment', { redirect_uris: ['https://tool.example/cb#x'] }, 'invalid_redirect_uri'],
    [
      'plain http off loopback',
      { redirect_uris: ['http://tool.example/cb'] },
      'invalid_redirect_uri',
    ],
    ['a custom scheme', { redirect_uris: ['com.example.tool:/cb'] }, 'invalid_redirect_uri'],
    ['no redirect URI for the code flow', { redirect_uris: [] }, 'invalid_redirect_uri'],
    ['redirect URIs of the wrong type', { redirect_uris: [42] }, 'invalid_client_metadata'],
    [
      'a client secret method',
      { ...GOOD, token_endpoint_auth_method: 'client_secret_basic' },
      'invalid_client_metadata',
    ],
    ['an unknown grant', { ...GOOD, grant_types: ['password'] }, 'invalid_client_metadata'],
    [
      'an implicit response type',
      { ...GOOD, response_types: ['token'] },
      'invalid_client_metadata',
    ],
    ['an unknown scope', { ...GOOD, scope: 'sudo' }, 'invalid_client_metadata'],
    ['a name too long', { ...GOOD, client_name: 'x'.repeat(201) }, 'invalid_client_metadata'],
    [
      'a client_uri that is not http(s)',
      { ...GOOD, client_uri: 'javascript:1' },
      'invalid_client_metadata',
    ],
    ['an array body', [GOOD], 'invalid_client_metadata'],
  ])('refuses %s with %s and stores nothing', async (_what, body, error) => {
    const before = await applicationCount(service);
    const response = await register(service, body);
    expect(response.statusCode, response.body).toBe(400);
    expect(response.json().error).toBe(error);
    expect(await applicationCount(service)).toBe(before);
  });

  it('refuses a body that is not JSON, or of a media type not taken, and stores nothing', async () => {
    const before = await applicationCount(service);
    const malformed = await register(service, '{"redirect_uris": [');
    expect(malformed.statusCode).toBe(400);
    expect(malformed.json().error).toMatch(/^invalid_/);
    const text = await service.app.inject({
      method: 'POST',
      url: '/oauth/register',
      headers: { 'content-type': 'text/plain' },
      payload: 'client_name=x',
    });
    expect(text.statusCode).toBe(415);
    expect(await applicationCount(service)).toBe(before);
  });

  it('refuses oversized metadata with 413 and stores nothing', async () => {
    const before = await applicationCount(service);
    const response = await register(service, { ...GOOD, padding: 'x'.repeat(20_000) });
    expect(response.statusCode).toBe(413);
    expect(await applicationCount(service)).toBe(before);
  });

  it('limits registrations from one address', async () => {
    const statuses: number[] = [];
    for (let index = 0; index < 32; index += 1) {
      statuses.push(
        (
          await service.app.inject({
            method: 'POST',
            url: '/oauth/register',
            remoteAddress: '203.0.113.9',
            headers: { 'content-type': 'application/json' },
            payload: JSON.stringify(GOOD),
          })
        ).statusCode,
      );
    }
    expect(statuses.filter((status) => status === 201).length).toBe(30);
    expect(statuses.at(-1)).toBe(429);
  });

  it('refuses an unknown resource and two resources with invalid_target, issuing nothing', async () => {
    await new ResourceServerStore(service.db).ensure({
      identifier: 'https://api.example',
      name: 'An API',
    });
    const user = await createUser(service);
    const registered = (await register(service, GOOD)).json();
    const browser = new WebClient(service);
    await browser.signIn(user.username, user.password);
    const base = {
      client_id: registered.client_id,
      redirect_uri: GOOD.redirect_uris[0] as string,
      response_type: 'code',
      scope: 'api',
      code_challenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM',
      code_challenge_method: 'S256',
    };
    const unknown = await authorizeAndApprove(browser, {
      ...base,
      resource: 'https://other.example',
    });
    expect(unknown.get('error')).toBe('invalid_target');
    const twice = await browser.get(
      `/oauth/authorize?${new URLSearchParams(base)}&resource=https://api.example&resource=https://api.example/v2`,
    );
    expect(new URL(twice.headers.location as string).searchParams.get('error')).toBe(
      'invalid_target',
    );
    // A code for the API may be exchanged for it, never for another.
    const granted = await authorizeAndApprove(browser, {
      ...base,
      resource: 'https://api.example/',
    });
    const tokens = () =>
      service.db
        .selectFrom('oauth_access_tokens')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .executeTakeFirstOrThrow();
    const before = Number((await tokens()).n);
    const exchange = await service.app.inject({
      method: 'POST',
      url: '/oauth/token',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: `${new URLSearchParams({
        grant_type: 'authorization_code',
        code: granted.get('code') as string,
        redirect_uri: base.redirect_uri,
        client_id: registered.client_id,
        code_verifier: 'dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk',
      })}&resource=https://api.example&resource=https://other.example`,
    });
    expect(exchange.statusCode).toBe(400);
    expect(exchange.json().error).toBe('invalid_target');
    const password = await tokenRequest(service, {
      grant_type: 'password',
      username: user.username,
      password: user.password,
      resource: 'https://api.example',
    });
    expect(password.json().error).toBe('invalid_target');
    expect(Number((await tokens()).n)).toBe(before);
  });
});

describe('client registration as the operator sets it', () => {
  const INITIAL = 'operator-initial-access-token-0123456789';
  const closed = codehostForTests('sqlite', {
    env: { CODEHOST_REGISTRATION: 'token', CODEHOST_REGISTRATION_TOKEN: INITIAL },
  });
  const off = codehostForTests('sqlite', {
    env: { CODEHOST_REGISTRATION: 'off', CODEHOST_REGISTRATION_UNUSED_DAYS: '1' },
  });
  const open = codehostForTests('sqlite', { env: { CODEHOST_REGISTRATION_UNUSED_DAYS: '1' } });

  it('takes a registration only with the initial access token when the operator asks for one', async () => {
    const before = await applicationCount(closed);
    const tries: Record<string, string>[] = [
      {},
      { authorization: 'Bearer not the token at all, no' },
    ];
    for (const headers of tries) {
      const refused = await register(closed, GOOD, headers);
      expect(refused.statusCode).toBe(401);
      expect(refused.json().error).toBe('invalid_token');
      expect(refused.headers['www-authenticate']).toContain('Bearer');
    }
    expect(await applicationCount(closed)).toBe(before);
    const taken = await register(closed, GOOD, { authorization: `Bearer ${INITIAL}` });
    expect(taken.statusCode).toBe(201);
  });

  it('offers no registration when the operator turned it off', async () => {
    const metadata = await off.app.inject('/.well-known/oauth-authorization-server');
    expect(metadata.json().registration_endpoint).toBeUndefined();
    expect((await register(off, GOOD)).statusCode).toBe(404);
  });

  it('deletes registrations nobody used for the days set, keeping one in use', async () => {
    const unused = (await register(open, GOOD)).json();
    const used = (await register(open, GOOD)).json();
    const user = await createUser(open);
    const browser = new WebClient(open);
    await browser.signIn(user.username, user.password);
    const parameters = {
      client_id: used.client_id,
      redirect_uri: GOOD.redirect_uris[0] as string,
      response_type: 'code',
      scope: 'api',
      code_challenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM',
      code_challenge_method: 'S256',
    };
    const granted = await authorizeAndApprove(browser, parameters);
    const token = await tokenRequest(open, {
      grant_type: 'authorization_code',
      code: granted.get('code') as string,
      redirect_uri: parameters.redirect_uri,
      client_id: used.client_id,
      code_verifier: 'dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk',
    });
    expect(token.statusCode).toBe(200);
    // Both registered two days ago; only one had a token since.
    await open.db
      .updateTable('oauth_applications')
      .set({ created_at: Date.now() - 2 * 86_400_000 })
      .where('uid', 'in', [unused.client_id, used.client_id])
      .execute();
    expect((await register(open, GOOD)).statusCode).toBe(201);
    const left = await open.db
      .selectFrom('oauth_applications')
      .select('uid')
      .where('uid', 'in', [unused.client_id, used.client_id])
      .execute();
    expect(left.map((row) => row.uid)).toEqual([used.client_id]);
  });

  it('refuses an unknown resource at the device authorization endpoint', async () => {
    const device = (
      await register(open, {
        client_name: 'A device',
        grant_types: ['urn:ietf:params:oauth:grant-type:device_code'],
      })
    ).json();
    expect(device.grant_types).toContain('urn:ietf:params:oauth:grant-type:device_code');
    const asked = await open.app.inject({
      method: 'POST',
      url: '/oauth/authorize_device',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: new URLSearchParams({
        client_id: device.client_id,
        resource: 'https://unknown.example',
      }).toString(),
    });
    expect(asked.statusCode).toBe(400);
    expect(asked.json().error).toBe('invalid_target');
  });
});

describe('the registration settings', () => {
  it('refuse a missing or weak initial access token, naming the setting and never the value', () => {
    for (const token of [undefined, 'short', 'has spaces in it, which no bearer token has']) {
      const read = () =>
        loadProgramConfig({
          CODEHOST_REGISTRATION: 'token',
          ...(token === undefined ? {} : { CODEHOST_REGISTRATION_TOKEN: token }),
        });
      expect(read).toThrow(ConfigError);
      expect(read).toThrow(/CODEHOST_REGISTRATION_TOKEN/);
      if (token !== undefined) expect(read).not.toThrow(token);
    }
    expect(() => loadProgramConfig({ CODEHOST_REGISTRATION: 'sometimes' })).toThrow(
      /CODEHOST_REGISTRATION/,
    );
  });
});
