import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger, REDACTED, redactUrl } from '../../src/platform/http/logging.js';
import { SERVICES_UNDER_TEST } from '../error-shapes.js';
import { addFixtureRoutes } from '../fixtures/routes.js';
import { startTestService, type TestService } from '../harness.js';

describe('the err field', () => {
  it('logs a reason given as text, its URL password censored, as it logs an Error', () => {
    const lines: string[] = [];
    const logger = createLogger('test', 'info', { write: (line: string) => lines.push(line) });
    logger.warn({ err: 'connect to smtp://mail:hunter2@host failed' }, 'mail: not sent');
    logger.warn({ err: new Error('postgres://app:hunter2@db/x refused') }, 'query failed');
    const [text, error] = lines.map((line) => JSON.parse(line) as { err: { message: string } });
    expect(text?.err.message).toContain('connect to smtp://mail:');
    expect(error?.err.message).toContain('postgres://app:');
    expect(lines.join('')).not.toContain('hunter2');
  });
});

describe('redactUrl', () => {
  it.each([
    ['/api/v3/user?access_token=abc', `/api/v3/user?access_token=${REDACTED}`],
    ['/x?private_token=abc&page=2', `/x?private_token=${REDACTED}&page=2`],
    ['/cb?code=abc&state=xyz', `/cb?code=${REDACTED}&state=xyz`],
    ['/t?ACCESS_TOKEN=abc', `/t?ACCESS_TOKEN=${REDACTED}`],
    ['/t?access%5Ftoken=abc', `/t?access%5Ftoken=${REDACTED}`],
    [
      '/t?client_secret=s&refresh_token=r',
      `/t?client_secret=${REDACTED}&refresh_token=${REDACTED}`,
    ],
    ['/t?password=p&username=u', `/t?password=${REDACTED}&username=u`],
    ['/plain/path', '/plain/path'],
    ['/t?flag&q=%E0%A4%A', '/t?flag&q=%E0%A4%A'],
  ])('%s', (url, expected) => {
    expect(redactUrl(url)).toBe(expected);
  });
});

// Each credential gets a value unlike anything else in the log, so finding it
// anywhere in the output is a leak.
const SECRETS = {
  bearer: 'bearer-6f1c0a9e7d',
  privateTokenHeader: 'pat-header-83be1f20aa',
  accessTokenQuery: 'oauth-query-2c7d9e1b44',
  privateTokenQuery: 'pat-query-5a0e7c3d19',
  code: 'authcode-9d8c7b6a55',
  clientSecret: 'client-secret-1f2e3d4c66',
  password: 'password-0a9b8c7d77',
  refreshToken: 'refresh-4e5f6a7b88',
  cookie: 'session-cookie-3c2b1a0f99',
  basic: Buffer.from('app-id:basic-secret-7e6d5c4b00').toString('base64'),
};

/** An ordinary request, a 404, a 400, a 500 and a handler that logs everything, all carrying credentials. */
async function sendCredentialRequests(service: TestService): Promise<void> {
  const credentialHeaders = {
    authorization: `Bearer ${SECRETS.bearer}`,
    'private-token': SECRETS.privateTokenHeader,
    cookie: `_session=${SECRETS.cookie}`,
  };
  const query = `access_token=${SECRETS.accessTokenQuery}&private_token=${SECRETS.privateTokenQuery}&code=${SECRETS.code}`;
  const formBody = `grant_type=password&username=root&password=${SECRETS.password}&client_secret=${SECRETS.clientSecret}&refresh_token=${SECRETS.refreshToken}`;
  const requests = [
    // An ordinary request, a 404, a 400, a 500 and a handler that logs everything.
    { url: `/-/health?${query}`, headers: credentialHeaders },
    {
      url: `/unknown?${query}`,
      headers: { ...credentialHeaders, authorization: `Basic ${SECRETS.basic}` },
    },
    {
      method: 'POST' as const,
      url: `/test/echo?${query}`,
      headers: { ...credentialHeaders, 'content-type': 'application/json' },
      payload: JSON.stringify({
        password: SECRETS.password,
        client_secret: SECRETS.clientSecret,
      }),
    },
    { url: `/test/boom?${query}`, headers: credentialHeaders },
    {
      method: 'POST' as const,
      url: `/test/log-everything?${query}`,
      headers: { ...credentialHeaders, 'content-type': 'application/x-www-form-urlencoded' },
      payload: formBody,
    },
    {
      method: 'POST' as const,
      url: '/test/log-everything',
      headers: { ...credentialHeaders, 'content-type': 'application/json' },
      payload: JSON.stringify({
        password: SECRETS.password,
        token: SECRETS.refreshToken,
        nested: { client_secret: SECRETS.clientSecret, access_token: SECRETS.accessTokenQuery },
      }),
    },
  ];
  for (const request of requests) await service.app.inject(request);
}

describe.each(SERVICES_UNDER_TEST)('$definition.name logs', ({ definition }) => {
  let service: TestService;

  beforeAll(async () => {
    service = await startTestService(definition, 'sqlite', { extend: addFixtureRoutes });
    await sendCredentialRequests(service);
  });
  afterAll(async () => service?.close());

  it('writes one line per request, with its traceId, method, path and status', () => {
    const completed = service.logLines().filter((line) => line.msg === 'request completed');
    expect(completed).toHaveLength(6);
    for (const line of completed) {
      expect(line.traceId).toEqual(expect.any(String));
      expect(line).toMatchObject({ service: definition.name, req: { method: expect.any(String) } });
    }
    expect(completed.map((line) => (line.res as { statusCode: number }).statusCode)).toEqual([
      200, 404, 400, 500, 200, 200,
    ]);
  });

  it('keeps the parameter names but not the values of credentials in logged URLs', () => {
    const urls = service
      .logLines()
      .filter((line) => line.msg === 'request completed')
      .map((line) => (line.req as { url: string }).url);
    expect(urls[0]).toBe(
      `/-/health?access_token=${REDACTED}&private_token=${REDACTED}&code=${REDACTED}`,
    );
  });

  it('contains none of the credentials anywhere', () => {
    const text = service.logText();
    expect(text.length).toBeGreaterThan(1000);
    for (const [kind, secret] of Object.entries(SECRETS)) {
      expect(text, `${kind} leaked into the log`).not.toContain(secret);
    }
  });

  it('still logs what a handler chose to log, with credentials censored', () => {
    const seen = service.logLines().filter((line) => line.msg === 'handler saw the request');
    expect(seen).toHaveLength(2);
    expect(seen[0]).toMatchObject({
      headers: { authorization: REDACTED, 'private-token': REDACTED, cookie: REDACTED },
      body: { grant_type: 'password', username: 'root', password: REDACTED },
    });
    expect(seen[1]).toMatchObject({
      body: { password: REDACTED, nested: { client_secret: REDACTED, access_token: REDACTED } },
    });
    // The request's own logger (made when first used) carries the request's traceId,
    // as does the error line of the request that failed.
    const errored = service.logLines().filter((line) => line.msg === 'request failed');
    expect(errored).toHaveLength(1);
    for (const line of [...seen, ...errored]) {
      expect(line.traceId).toEqual(expect.stringMatching(/\S/));
    }
  });
});

describe.each(SERVICES_UNDER_TEST)(
  '$definition.name logs as text (LOG_FORMAT=text)',
  ({ definition }) => {
    let service: TestService;

    beforeAll(async () => {
      service = await startTestService(definition, 'sqlite', {
        extend: addFixtureRoutes,
        env: { LOG_FORMAT: 'text' },
      });
      await sendCredentialRequests(service);
    });
    afterAll(async () => service?.close());

    it('writes one short line per request: time, level, service, method, path, status and time taken', () => {
      const lines = service.logText().split('\n').filter(Boolean);
      const requests = lines.filter((line) => / \d{3} [\d.]+ ms/.test(line));
      expect(requests).toHaveLength(6);
      const name = definition.name;
      expect(requests[0]).toMatch(
        new RegExp(
          `^\\[\\d{2}:\\d{2}:\\d{2}\\] INFO: ${name} GET /-/health\\?access_token=\\[REDACTED\\]&private_token=\\[REDACTED\\]&code=\\[REDACTED\\] 200 [\\d.]+ ms$`,
        ),
      );
      expect(requests[1]).toMatch(new RegExp(`INFO: ${name} GET /unknown\\?\\S+ 404 [\\d.]+ ms$`));
      expect(requests[3]).toMatch(/INFO: \S+ GET \/test\/boom\?\S+ 500 [\d.]+ ms$/);
      // Its failure is a line of its own naming the trace id its error body carries.
      expect(lines.filter((line) => line.includes('ERROR:'))).toEqual([
        expect.stringMatching(new RegExp(`ERROR: ${name} request failed \\(trace \\S+\\)`)),
      ]);
      // Nothing is a JSON line: the person reads words, and no field is left out by accident.
      expect(lines.filter((line) => line.startsWith('{'))).toEqual([]);
    });

    it('contains none of the credentials anywhere', () => {
      const text = service.logText();
      for (const [kind, secret] of Object.entries(SECRETS)) {
        expect(text, `${kind} leaked into the log`).not.toContain(secret);
      }
    });
  },
);
