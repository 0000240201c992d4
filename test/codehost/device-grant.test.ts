/**
 * The device authorization grant (RFC 8628): an independent client library
 * (openid-client's device functions) against a running codehost, every answer
 * of the token endpoint while polling, the verification page with its guessing
 * limit, and what is stored (hashes only, nothing on refusal).
 */
import * as client from 'openid-client';
import { describe, expect, it } from 'vitest';
import { secretHash } from '../../src/platform/security/secrets.js';
import { DATABASE_KINDS } from '../harness.js';
import {
  ageRefreshRotation,
  basicAuth,
  codehostForTests,
  createApplication,
  createUser,
  tokenRequest,
  WebClient,
} from './helpers.js';

const DEVICE_GRANT = 'urn:ietf:params:oauth:grant-type:device_code';

describe.each(DATABASE_KINDS)('the device authorization grant on %s', (kind) => {
  const service = codehostForTests(kind, { listen: true });

  async function deviceApplication(
    options: {
      confidential?: boolean;
      enabled?: boolean;
      scopes?: ('api' | 'read_user' | 'openid' | 'profile')[];
    } = {},
  ) {
    const owner = await createUser(service);
    return createApplication(service, owner.id, {
      confidential: options.confidential ?? false,
      deviceAuthorizationGrant: options.enabled ?? true,
      scopes: options.scopes ?? ['api', 'read_user', 'openid', 'profile'],
    });
  }

  async function authorizeDevice(
    fields: Record<string, string>,
    headers: Record<string, string> = {},
  ) {
    return service.app.inject({
      method: 'POST',
      url: '/oauth/authorize_device',
      headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
      payload: new URLSearchParams(fields).toString(),
    });
  }

  async function startDevice(clientId: string, scope = 'api') {
    const response = await authorizeDevice({ client_id: clientId, scope });
    expect(response.statusCode).toBe(200);
    return response.json() as {
      device_code: string;
      user_code: string;
      verification_uri: string;
      verification_uri_complete: string;
      expires_in: number;
      interval: number;
    };
  }

  const poll = (clientId: string, deviceCode: string) =>
    tokenRequest(service, {
      grant_type: DEVICE_GRANT,
      client_id: clientId,
      device_code: deviceCode,
    });

  /** As if the device had waited its interval since the last poll. */
  const waitedInterval = (deviceCode: string) =>
    service.db
      .updateTable('oauth_device_grants')
      .set({ last_polled_at: Date.now() - 60_000 })
      .where('device_code_hash', '=', secretHash(deviceCode))
      .execute();

  async function signedInBrowser() {
    const user = await createUser(service);
    const browser = new WebClient(service);
    await browser.signIn(user.username, user.password);
    // The page a person starts from, whose form carries the session's token.
    await browser.get('/oauth/device');
    return { user, browser };
  }

  /** Continue on the code page, following its redirect to the confirmation when there is one. */
  async function continueWith(client: WebClient, fields: Record<string, string>) {
    const answer = await client.post('/oauth/device', fields);
    return answer.statusCode === 303 && answer.headers.location
      ? client.get(String(answer.headers.location))
      : answer;
  }

  async function decide(browser: WebClient, userCode: string, decision: 'approve' | 'deny') {
    // Continue redirects to the confirmation, a page of its own (Post/Redirect/Get).
    const looked = await browser.post('/oauth/device', { user_code: userCode });
    expect(looked.statusCode).toBe(303);
    expect(looked.headers.location).toBe('/oauth/device/confirm');
    const confirm = await browser.get('/oauth/device/confirm');
    expect(confirm.statusCode).toBe(200);
    expect(confirm.body).toContain('id="approve"');
    const decided = await browser.post('/oauth/device/decision', { user_code: userCode, decision });
    // Back from the decision: the confirmation page again, by GET, saying it was answered.
    const back = await browser.get('/oauth/device/confirm');
    expect(back.statusCode).toBe(200);
    expect(back.body).not.toContain('id="approve"');
    return decided;
  }

  const deviceRows = async () =>
    Number(
      (
        await service.db
          .selectFrom('oauth_device_grants')
          .select((eb) => eb.fn.countAll().as('n'))
          .executeTakeFirstOrThrow()
      ).n,
    );

  it('signs a device in with openid-client: codes, approval in a browser, polling, an ID token', async () => {
    const app = await deviceApplication();
    const config = await client.discovery(
      new URL(service.url),
      app.clientId,
      undefined,
      client.None(),
      {
        execute: [client.allowInsecureRequests],
      },
    );
    expect(config.serverMetadata().device_authorization_endpoint).toBe(
      `${service.url}/oauth/authorize_device`,
    );
    const started = await client.initiateDeviceAuthorization(config, {
      scope: 'openid profile api',
    });
    expect(started.user_code).toMatch(/^[BCDFGHJKLMNPQRSTVWXZ]{4}-[BCDFGHJKLMNPQRSTVWXZ]{4}$/);
    expect(started.verification_uri).toBe(`${service.url}/oauth/device`);
    expect(started.verification_uri_complete).toBe(
      `${service.url}/oauth/device?user_code=${started.user_code}`,
    );
    expect(started.expires_in).toBe(300);
    expect(started.interval).toBe(5);

    // The person opens the complete link, signs in, sees the code filled in and the
    // application's request, and approves.
    const user = await createUser(service);
    const browser = new WebClient(service);
    const link = new URL(started.verification_uri_complete as string);
    const first = await browser.get(`${link.pathname}${link.search}`);
    expect(first.statusCode).toBe(302);
    expect(first.headers.location).toBe('/users/sign_in');
    const signedIn = await browser.signIn(user.username, user.password);
    expect(signedIn.headers.location).toBe(`${link.pathname}${link.search}`);
    const form = await browser.get(signedIn.headers.location as string);
    expect(form.body).toContain(`value="${started.user_code}"`);
    const confirm = await continueWith(browser, { user_code: started.user_code });
    expect(confirm.body).toContain('Test client');
    expect(confirm.body).toContain(started.user_code);
    expect(confirm.body).toMatch(/<code>api<\/code>.*<code>openid<\/code>.*<code>profile<\/code>/s);
    const approved = await browser.post('/oauth/device/decision', {
      user_code: started.user_code,
      decision: 'approve',
    });
    // Post/Redirect/Get: the answer is a page that Reload does not post again.
    expect(approved.statusCode).toBe(303);
    const connected = await browser.get(approved.headers.location as string);
    expect(connected.body).toContain('The device is connected');

    const tokens = await client.pollDeviceAuthorizationGrant(config, started);
    expect(tokens.scope).toBe('api openid profile');
    expect(tokens.refresh_token).toBeTruthy();
    const claims = tokens.claims();
    expect(claims?.sub).toBe(String(user.id));
    expect(claims?.aud).toBe(app.clientId);
    expect(typeof claims?.auth_time).toBe('number');
    const me = await client.fetchProtectedResource(
      config,
      tokens.access_token,
      new URL('/api/v3/user', service.url),
      'GET',
    );
    expect(((await me.json()) as { username: string }).username).toBe(user.username);
  }, 30_000);

  it('sends a browser that looked up no code from the confirmation to the code page', async () => {
    const { browser } = await signedInBrowser();
    const confirm = await browser.get('/oauth/device/confirm');
    expect(confirm.statusCode).toBe(303);
    expect(confirm.headers.location).toBe('/oauth/device');
    // Signed out, it is the sign-in first.
    const outside = await new WebClient(service).get('/oauth/device/confirm');
    expect(outside.statusCode).toBe(302);
    expect(String(outside.headers.location)).toMatch(/\/users\/sign_in/);
  });

  it("gives the ID token the auth_time of the session that approved the device, not the user's latest sign-in", async () => {
    const app = await deviceApplication({ scopes: ['openid'] });
    const started = await startDevice(app.clientId, 'openid');
    const before = Math.floor(Date.now() / 1000);
    const { user, browser } = await signedInBrowser();
    const after = Math.ceil(Date.now() / 1000);
    // The same person signs in elsewhere ten minutes later: their latest sign-in moves on.
    const elsewhere = Date.now() + 600_000;
    await service.db
      .updateTable('users')
      .set({ current_sign_in_at: elsewhere })
      .where('id', '=', user.id)
      .execute();
    expect((await decide(browser, started.user_code, 'approve')).statusCode).toBe(303);
    const issued = await poll(app.clientId, started.device_code);
    expect(issued.statusCode, issued.body).toBe(200);
    const claims = JSON.parse(
      Buffer.from(String(issued.json().id_token).split('.')[1] ?? '', 'base64url').toString(),
    ) as { auth_time: number };
    expect(claims.auth_time).toBeGreaterThanOrEqual(before);
    expect(claims.auth_time).toBeLessThanOrEqual(after);
  });

  it('answers each poll as RFC 8628 says: pending, slow_down, then the token once', async () => {
    const app = await deviceApplication();
    const started = await startDevice(app.clientId);
    const pending = await poll(app.clientId, started.device_code);
    expect(pending.statusCode).toBe(400);
    expect(pending.json().error).toBe('authorization_pending');

    // Polled again at once: slow down, and every later interval is five seconds longer.
    const tooSoon = await poll(app.clientId, started.device_code);
    expect(tooSoon.json()).toMatchObject({ error: 'slow_down' });
    expect(tooSoon.json().error_description).toContain('10 seconds');
    const stillTooSoon = await poll(app.clientId, started.device_code);
    expect(stillTooSoon.json().error_description).toContain('15 seconds');
    await waitedInterval(started.device_code);
    expect((await poll(app.clientId, started.device_code)).json().error).toBe(
      'authorization_pending',
    );

    const { user, browser } = await signedInBrowser();
    expect((await decide(browser, started.user_code, 'approve')).statusCode).toBe(303);
    const issued = await poll(app.clientId, started.device_code);
    expect(issued.statusCode).toBe(200);
    const body = issued.json();
    expect(body).toMatchObject({ token_type: 'bearer', expires_in: 7200, scope: 'api' });
    expect(body.refresh_token).toMatch(/^[0-9a-f]{64}$/);
    expect(body.id_token).toBeUndefined();

    // A device code gives one token.
    const again = await poll(app.clientId, started.device_code);
    expect(again.json()).toMatchObject({ error: 'invalid_grant' });

    // The token is the user's, and it shows among their authorized applications.
    const me = await service.app.inject({
      url: '/api/v4/user',
      headers: { authorization: `Bearer ${body.access_token}` },
    });
    expect(me.json().id).toBe(user.id);
    expect((await browser.get('/profile/applications')).body).toContain(
      'Revoke access of Test client',
    );

    // Its refreshes form a chain: a rotated refresh token replayed late revokes it whole.
    const refreshed = await tokenRequest(service, {
      grant_type: 'refresh_token',
      client_id: app.clientId,
      refresh_token: body.refresh_token,
    });
    expect(refreshed.statusCode).toBe(200);
    await ageRefreshRotation(service, body.refresh_token);
    const replayed = await tokenRequest(service, {
      grant_type: 'refresh_token',
      client_id: app.clientId,
      refresh_token: body.refresh_token,
    });
    expect(replayed.json().error).toBe('invalid_grant');
    const afterReplay = await service.app.inject({
      url: '/api/v4/user',
      headers: { authorization: `Bearer ${refreshed.json().access_token}` },
    });
    expect(afterReplay.statusCode).toBe(401);
  });

  it('tells the device the user denied it, and an expired code that it expired', async () => {
    const app = await deviceApplication();
    const denied = await startDevice(app.clientId);
    const { browser } = await signedInBrowser();
    const answer = await decide(browser, denied.user_code, 'deny');
    expect((await browser.get(answer.headers.location as string)).body).toContain('Denied:');
    const polled = await poll(app.clientId, denied.device_code);
    expect(polled.statusCode).toBe(400);
    expect(polled.json().error).toBe('access_denied');
    // Answered once: the code cannot be approved afterwards, and the page says why.
    const late = await continueWith(browser, { user_code: denied.user_code });
    expect(late.statusCode).toBe(422);
    expect(late.body).toContain('You denied this code already');

    const expiring = await startDevice(app.clientId);
    await service.db
      .updateTable('oauth_device_grants')
      .set({ expires_at: Date.now() - 1 })
      .where('device_code_hash', '=', secretHash(expiring.device_code))
      .execute();
    expect((await poll(app.clientId, expiring.device_code)).json().error).toBe('expired_token');
    const tooLate = await continueWith(browser, { user_code: expiring.user_code });
    expect(tooLate.statusCode).toBe(422);
    expect(tooLate.body).toContain('has expired');
  });

  it('refuses bad requests for codes with OAuth errors and stores nothing', async () => {
    const app = await deviceApplication({ confidential: true });
    const off = await deviceApplication({ enabled: false });
    const before = await deviceRows();
    const cases: [Record<string, string>, Record<string, string>, number, string][] = [
      [{}, {}, 401, 'invalid_client'],
      [{ client_id: 'f'.repeat(64) }, {}, 401, 'invalid_client'],
      // A confidential client proves its secret.
      [{ client_id: app.clientId }, {}, 401, 'invalid_client'],
      [{ client_id: app.clientId, client_secret: 'wrong' }, {}, 401, 'invalid_client'],
      [{ client_id: off.clientId }, {}, 400, 'unauthorized_client'],
      [
        { scope: 'api sudo' },
        { authorization: basicAuth(app.clientId, app.secret) },
        400,
        'invalid_scope',
      ],
      [
        { scope: 'email' },
        { authorization: basicAuth(app.clientId, app.secret) },
        400,
        'invalid_scope',
      ],
    ];
    for (const [fields, headers, status, error] of cases) {
      const response = await authorizeDevice(fields, headers);
      expect(response.statusCode, JSON.stringify(fields)).toBe(status);
      expect(response.json().error, JSON.stringify(fields)).toBe(error);
      expect(response.headers['cache-control']).toBe('no-store');
    }
    const repeated = await service.app.inject({
      method: 'POST',
      url: '/oauth/authorize_device',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: `client_id=${off.clientId}&client_id=${off.clientId}`,
    });
    expect(repeated.json().error).toBe('invalid_request');
    expect(await deviceRows()).toBe(before);

    const works = await authorizeDevice(
      { scope: 'read_user' },
      { authorization: basicAuth(app.clientId, app.secret) },
    );
    expect(works.statusCode).toBe(200);
    expect(await deviceRows()).toBe(before + 1);
  });

  it('refuses bad polls: missing, malformed, another client’s, a switched-off grant, a blocked user', async () => {
    const app = await deviceApplication();
    const other = await deviceApplication();
    const started = await startDevice(app.clientId);
    const expectError = async (fields: Record<string, string>, status: number, error: string) => {
      const response = await tokenRequest(service, { grant_type: DEVICE_GRANT, ...fields });
      expect(response.statusCode, JSON.stringify(fields)).toBe(status);
      expect(response.json().error, JSON.stringify(fields)).toBe(error);
    };
    await expectError({ device_code: started.device_code }, 401, 'invalid_client');
    await expectError({ client_id: app.clientId }, 400, 'invalid_request');
    await expectError({ client_id: app.clientId, device_code: 'not-a-code' }, 400, 'invalid_grant');
    await expectError(
      { client_id: app.clientId, device_code: 'a'.repeat(64) },
      400,
      'invalid_grant',
    );
    await expectError(
      { client_id: other.clientId, device_code: started.device_code },
      400,
      'invalid_grant',
    );

    const { user, browser } = await signedInBrowser();
    await decide(browser, started.user_code, 'approve');
    // Its owner switches the grant off: devices already signed in to wait are refused.
    await service.db
      .updateTable('oauth_applications')
      .set({ device_authorization_grant: 0 })
      .where('id', '=', app.id)
      .execute();
    await expectError(
      { client_id: app.clientId, device_code: started.device_code },
      400,
      'unauthorized_client',
    );
    await service.db
      .updateTable('oauth_applications')
      .set({ device_authorization_grant: 1 })
      .where('id', '=', app.id)
      .execute();
    await service.db
      .updateTable('users')
      .set({ state: 'blocked' })
      .where('id', '=', user.id)
      .execute();
    await expectError(
      { client_id: app.clientId, device_code: started.device_code },
      400,
      'invalid_grant',
    );
    const tokens = await service.db
      .selectFrom('oauth_access_tokens')
      .select('id')
      .where('resource_owner_id', '=', user.id)
      .execute();
    expect(tokens).toEqual([]);
  });

  it('keeps only hashes of both codes', async () => {
    const app = await deviceApplication();
    const started = await startDevice(app.clientId);
    const row = await service.db
      .selectFrom('oauth_device_grants')
      .selectAll()
      .where('device_code_hash', '=', secretHash(started.device_code))
      .executeTakeFirstOrThrow();
    const stored = JSON.stringify(row);
    expect(stored).not.toContain(started.device_code);
    expect(stored).not.toContain(started.user_code.replace('-', ''));
    expect(row.user_code_hash).toBe(secretHash(started.user_code.replace('-', '')));
  });

  it('takes a code in any case and spacing, and says what is wrong with one that is not right', async () => {
    const app = await deviceApplication();
    const started = await startDevice(app.clientId);
    const { browser } = await signedInBrowser();
    const malformed = await continueWith(browser, { user_code: 'ABC' });
    expect(malformed.statusCode).toBe(422);
    expect(malformed.body).toContain('eight letters');
    expect(malformed.body).toContain('aria-invalid="true"');
    const unknown = await continueWith(browser, { user_code: 'BBBB-BBBB' });
    expect(unknown.statusCode).toBe(422);
    expect(unknown.body).toContain('No device is waiting with that code');
    const oversized = await continueWith(browser, { user_code: 'B'.repeat(5000) });
    expect(oversized.statusCode).toBe(422);

    const typed = ` ${started.user_code.toLowerCase().replace('-', '\u2013')} `;
    const confirm = await continueWith(browser, { user_code: typed });
    expect(confirm.statusCode).toBe(200);
    expect(confirm.body).toContain(started.user_code);
    const badDecision = await browser.post('/oauth/device/decision', {
      user_code: started.user_code,
      decision: 'maybe',
    });
    expect(badDecision.statusCode).toBe(400);
    // A form posted with another token is refused (as GitLab does, 422), and nothing is decided.
    const forged = await browser.post('/oauth/device/decision', {
      authenticity_token: '0'.repeat(64),
      user_code: started.user_code,
      decision: 'approve',
    });
    expect(forged.statusCode).toBe(422);
    expect(forged.body).toContain('did not come from this site');
    expect((await poll(app.clientId, started.device_code)).json().error).toBe(
      'authorization_pending',
    );
  });

  it('does not count a code answered a moment ago (a reload, a second tab) as a guess', async () => {
    const app = await deviceApplication();
    const started = await startDevice(app.clientId);
    const { browser } = await signedInBrowser();
    await decide(browser, started.user_code, 'approve');
    for (let attempt = 0; attempt < 12; attempt += 1) {
      const again = await browser.post('/oauth/device/decision', {
        user_code: started.user_code,
        decision: 'deny',
      });
      expect(again.statusCode).toBe(422);
      expect(again.body).toContain('You authorized this code already');
    }
    const fresh = await startDevice(app.clientId);
    expect((await continueWith(browser, { user_code: fresh.user_code })).statusCode).toBe(200);
    // The device got its approval, not the second tab's denial.
    expect((await poll(app.clientId, started.device_code)).statusCode).toBe(200);
  });

  it('stops guessing: after ten wrong codes even the right one waits, with Retry-After', async () => {
    const app = await deviceApplication();
    const started = await startDevice(app.clientId);
    const { browser } = await signedInBrowser();
    for (let attempt = 0; attempt < 10; attempt += 1) {
      const wrong = await continueWith(browser, { user_code: 'ZZZZ-ZZZZ' });
      expect(wrong.statusCode).toBe(422);
    }
    const limited = await continueWith(browser, { user_code: started.user_code });
    expect(limited.statusCode).toBe(429);
    expect(Number(limited.headers['retry-after'])).toBeGreaterThan(0);
    expect(limited.body).toContain('Too many codes that named no device');
    const decision = await browser.post('/oauth/device/decision', {
      user_code: started.user_code,
      decision: 'approve',
    });
    expect(decision.statusCode).toBe(429);
    expect((await poll(app.clientId, started.device_code)).json().error).toBe(
      'authorization_pending',
    );
    // Another account is not held up by this one's guesses (an address may make more).
    const second = new WebClient(service);
    const other = await createUser(service);
    await second.signIn(other.username, other.password);
    await second.get('/oauth/device');
    expect((await continueWith(second, { user_code: started.user_code })).statusCode).toBe(200);
  });

  it('advertises the grant and its endpoint in both metadata documents', async () => {
    for (const path of [
      '/.well-known/oauth-authorization-server',
      '/.well-known/openid-configuration',
    ]) {
      const metadata = (await service.app.inject({ url: path })).json();
      expect(metadata.device_authorization_endpoint).toBe(`${service.url}/oauth/authorize_device`);
      expect(metadata.grant_types_supported).toContain(DEVICE_GRANT);
    }
  });

  it('is switched on per application from its form', async () => {
    const { user, browser } = await signedInBrowser();
    await browser.get('/profile/applications');
    const created = await browser.post('/profile/applications', {
      name: 'CLI',
      redirect_uri: 'http://127.0.0.1:9/cb',
      scopes: ['api'],
      device_authorization_grant: '1',
    });
    expect(created.statusCode).toBe(303);
    const shown = await browser.get(created.headers.location as string);
    expect(shown.body).toMatch(/Device authorization grant<\/th><td>On/);
    const row = await service.db
      .selectFrom('oauth_applications')
      .select(['id', 'device_authorization_grant'])
      .where('owner_id', '=', user.id)
      .executeTakeFirstOrThrow();
    expect(row.device_authorization_grant).toBe(1);
    const edit = await browser.get(`/profile/applications/${row.id}/edit`);
    expect(edit.body).toContain('name="device_authorization_grant" value="1" checked');
    await browser.post(`/profile/applications/${row.id}`, {
      name: 'CLI',
      redirect_uri: 'http://127.0.0.1:9/cb',
      scopes: ['api'],
    });
    const after = await service.db
      .selectFrom('oauth_applications')
      .select('device_authorization_grant')
      .where('id', '=', row.id)
      .executeTakeFirstOrThrow();
    expect(after.device_authorization_grant).toBe(0);
  });
});
