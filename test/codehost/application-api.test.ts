/**
 * GitLab's Applications API (administrators), with codehost's device grant
 * and back-channel logout settings: what it creates works at the OAuth
 * endpoints, and bad requests change nothing.
 */
import { describe, expect, it } from 'vitest';
import { DATABASE_KINDS } from '../harness.js';
import { apiToken, codehostForTests, createUser } from './helpers.js';

describe.each(DATABASE_KINDS)("GitLab's Applications API on %s", (kind) => {
  const service = codehostForTests(kind);

  async function admin() {
    const user = await createUser(service, { isAdmin: true });
    return { user, token: await apiToken(service, user.id) };
  }

  const call = (
    method: 'GET' | 'POST' | 'PUT' | 'DELETE',
    url: string,
    token: string,
    payload?: object,
  ) =>
    service.app.inject({
      method,
      url,
      headers: {
        'private-token': token,
        ...(payload ? { 'content-type': 'application/json' } : {}),
      },
      ...(payload ? { payload: JSON.stringify(payload) } : {}),
    });

  it('creates an application with the device grant on, which then starts device flows', async () => {
    const { token } = await admin();
    const created = await call('POST', '/api/v4/applications', token, {
      name: 'CLI',
      redirect_uri: 'http://127.0.0.1/cb',
      scopes: 'api read_user',
      confidential: false,
      device_authorization_grant: true,
      backchannel_logout_uri: 'https://93.184.216.34/logout',
    });
    expect(created.statusCode).toBe(201);
    const body = created.json();
    expect(body).toMatchObject({
      application_name: 'CLI',
      callback_url: 'http://127.0.0.1/cb',
      confidential: false,
      device_authorization_grant: true,
      backchannel_logout_uri: 'https://93.184.216.34/logout',
    });
    expect(body.secret).toMatch(/^[0-9a-f]{64}$/);
    const started = await service.app.inject({
      method: 'POST',
      url: '/oauth/authorize_device',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: `client_id=${body.application_id}`,
    });
    expect(started.statusCode).toBe(200);

    const listed = await call('GET', '/api/v3/applications', token);
    expect(listed.json().map((entry: { id: number }) => entry.id)).toContain(body.id);
    expect(JSON.stringify(listed.json())).not.toContain(body.secret);

    // Switched off through the API, the grant is refused.
    const changed = await call('PUT', `/api/v4/applications/${body.id}`, token, {
      device_authorization_grant: false,
    });
    expect(changed.json()).toMatchObject({
      device_authorization_grant: false,
      backchannel_logout_uri: 'https://93.184.216.34/logout',
    });
    const refused = await service.app.inject({
      method: 'POST',
      url: '/oauth/authorize_device',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: `client_id=${body.application_id}`,
    });
    expect(refused.json().error).toBe('unauthorized_client');

    const renewed = await call('POST', `/api/v4/applications/${body.id}/renew-secret`, token);
    expect(renewed.json().secret).not.toBe(body.secret);
    const deleted = await call('DELETE', `/api/v4/applications/${body.id}`, token);
    expect(deleted.statusCode).toBe(204);
    expect((await call('DELETE', `/api/v4/applications/${body.id}`, token)).statusCode).toBe(404);
  });

  it('refuses non-administrators and bad parameters, storing nothing', async () => {
    const { user, token } = await admin();
    const count = async () =>
      (
        await service.db
          .selectFrom('oauth_applications')
          .select('id')
          .where('owner_id', '=', user.id)
          .execute()
      ).length;
    const someone = await createUser(service);
    const notAdmin = await call(
      'POST',
      '/api/v4/applications',
      await apiToken(service, someone.id),
      {
        name: 'x',
        redirect_uri: 'https://x.example/cb',
        scopes: 'api',
      },
    );
    expect(notAdmin.statusCode).toBe(403);
    expect(notAdmin.json()).toEqual({ message: '403 Forbidden' });
    expect((await service.app.inject({ url: '/api/v4/applications' })).statusCode).toBe(401);
    const cases: [object, string][] = [
      [{ redirect_uri: 'https://x.example/cb', scopes: 'api' }, 'name'],
      [{ name: 'x', scopes: 'api' }, 'redirect_uri'],
      [{ name: 'x', redirect_uri: 'https://x.example/cb' }, 'scopes'],
      [{ name: 'x', redirect_uri: 'https://x.example/cb', scopes: 'api sudo' }, 'scopes'],
      [{ name: 'x', redirect_uri: 'javascript:alert(1)', scopes: 'api' }, 'redirect_uri'],
      [
        { name: 'x', redirect_uri: 'https://x.example/cb', scopes: 'api', confidential: 'maybe' },
        'confidential',
      ],
      [
        {
          name: 'x',
          redirect_uri: 'https://x.example/cb',
          scopes: 'api',
          backchannel_logout_uri: 'ftp://x',
        },
        'backchannel_logout_uri',
      ],
    ];
    for (const [payload, field] of cases) {
      const answer = await call('POST', '/api/v4/applications', token, payload);
      expect(answer.statusCode, JSON.stringify(payload)).toBe(400);
      expect(JSON.stringify(answer.json()), JSON.stringify(payload)).toContain(field);
    }
    expect(await count()).toBe(0);
    for (const id of ['abc', '999999', '1.5']) {
      expect((await call('PUT', `/api/v4/applications/${id}`, token, {})).statusCode).toBe(404);
    }
  });
});
