import { afterEach, describe, expect, it } from 'vitest';
import { DATABASE_KINDS } from '../harness.js';
import {
  apiToken,
  type Codehost,
  createApplication,
  createUser,
  startCodehost,
  tokenRequest,
} from './helpers.js';

/**
 * The answers a client rarely meets, provoked for real so that the contract
 * check holds them to the description: an unforeseen failure (a table gone)
 * in each of the API's and OAuth's shapes, and the token endpoint's rate limit.
 */
describe.each(DATABASE_KINDS)('answers a client rarely meets on %s', (kind) => {
  let service: Codehost | undefined;
  afterEach(async () => {
    await service?.close();
    service = undefined;
  });

  it("answers a failure nobody foresaw with a 500 in the route's own shape, and a trace id", async () => {
    service = await startCodehost(kind);
    const user = await createUser(service);
    const token = await apiToken(service, user.id);
    const application = await createApplication(service, user.id);
    await service.db.schema.dropTable('notification_settings').execute();
    await service.db.schema.dropTable('oauth_access_tokens').execute();

    const api = await service.app.inject({
      method: 'GET',
      url: '/api/v4/notification_settings',
      headers: { 'private-token': token },
    });
    expect(api.statusCode).toBe(500);
    expect(api.json()).toEqual({
      message: '500 Internal Server Error',
      traceId: api.headers['x-request-id'],
    });

    const grant = await tokenRequest(service, {
      grant_type: 'password',
      username: user.username,
      password: user.password,
      client_id: application.clientId,
      client_secret: application.secret,
    });
    expect(grant.statusCode).toBe(500);
    expect(grant.json()).toMatchObject({
      error: 'server_error',
      traceId: grant.headers['x-request-id'],
    });
    // What failed is logged for the operator, not told to the client.
    expect(`${api.body}${grant.body}`).not.toMatch(/notification_settings|oauth_access_tokens/);
    const errors = service.logLines().filter((line) => line.level === 50);
    expect(errors.map((line) => line.traceId)).toEqual(
      expect.arrayContaining([api.headers['x-request-id'], grant.headers['x-request-id']]),
    );
  });

  it('answers a failure at an address of any depth in the shape of the surface that claims it', async () => {
    service = await startCodehost(kind);
    // The project pages answer every path of two or more segments, the API's too.
    await service.db.schema.dropTable('projects').execute();
    const api = await service.app.inject({ url: '/api/v4/some/project' });
    expect(api.statusCode).toBe(500);
    expect(api.headers['content-type']).toBe('application/json');
    expect(api.json()).toEqual({
      message: '500 Internal Server Error',
      traceId: api.headers['x-request-id'],
    });
    const page = await service.app.inject({ url: '/some/project' });
    expect(page.statusCode).toBe(500);
    expect(page.headers['content-type']).toMatch(/^text\/html/);
  });

  it('says GitLab’s plain application/json at an API address nobody serves', async () => {
    service = await startCodehost(kind);
    for (const [method, url] of [
      ['GET', '/api/v4/nope'],
      ['GET', '/api/v5/user'],
      ['DELETE', '/api/v4/user'],
    ] as const) {
      const answer = await service.app.inject({ method, url });
      expect([404, 405]).toContain(answer.statusCode);
      expect(answer.headers['content-type']).toBe('application/json');
      expect(answer.json()).toEqual({ message: expect.stringMatching(/^40[45] /) });
    }
  });

  it('holds back a client that asks for tokens too often, saying when to come back', async () => {
    service = await startCodehost(kind, { env: { RATE_LIMIT_CREDENTIALS_PER_MINUTE: '2' } });
    const ask = () => tokenRequest(service as Codehost, { grant_type: 'client_credentials' });
    expect((await ask()).statusCode).toBe(400);
    expect((await ask()).statusCode).toBe(400);
    const held = await ask();
    expect(held.statusCode).toBe(429);
    expect(Number(held.headers['retry-after'])).toBeGreaterThan(0);
    expect(held.json()).toMatchObject({
      error: expect.any(String),
      error_description: expect.any(String),
    });
    // Each endpoint counts on its own: the device endpoint is not held back yet.
    const device = () =>
      service?.app.inject({
        method: 'POST',
        url: '/oauth/authorize_device',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        payload: 'client_id=nobody',
      });
    expect((await device())?.statusCode).toBe(401);
    expect((await device())?.statusCode).toBe(401);
    expect((await device())?.statusCode).toBe(429);
  });
});
