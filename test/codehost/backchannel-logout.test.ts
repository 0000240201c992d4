/**
 * OpenID Connect Back-Channel Logout 1.0 from codehost's side, with a real
 * HTTP receiver on loopback as the relying party: the logout token for each
 * way a session ends, checked with jose against the published keys; retries;
 * and sign-out not waiting for a slow relying party.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createRemoteJWKSet, decodeJwt, jwtVerify } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PasswordHasher } from '../../src/codehost/accounts/passwords.js';
import { UserStore } from '../../src/codehost/accounts/users.js';
import { ApplicationStore } from '../../src/codehost/oauth/applications.js';
import { OutboundPolicy } from '../../src/platform/http/outbound.js';
import { DATABASE_KINDS } from '../harness.js';
import {
  apiToken,
  codehostForTests,
  createApplication,
  createUser,
  openidTokens,
  WebClient,
} from './helpers.js';

const EVENT = 'http://schemas.openid.net/event/backchannel-logout';

/** A relying party's back-channel endpoint: what it received, and how it answers. */
class Receiver {
  readonly received: { path: string; contentType: string; token: string }[] = [];
  /** The status of the next answers (200 unless a test says otherwise). */
  status = 200;
  /** While set, answers wait until it is called. */
  hold: Promise<void> | undefined;
  /** While set, answers to paths under `prefix` wait until it resolves. */
  holdAt: { prefix: string; until: Promise<void> } | undefined;
  private server: Server | undefined;
  url = '';

  async start(): Promise<void> {
    const server = createServer((request: IncomingMessage, response: ServerResponse) => {
      let body = '';
      request.on('data', (chunk) => {
        body += chunk;
      });
      request.on('end', async () => {
        this.received.push({
          path: request.url ?? '',
          contentType: request.headers['content-type'] ?? '',
          token: new URLSearchParams(body).get('logout_token') ?? '',
        });
        await this.hold;
        if (this.holdAt && request.url?.startsWith(this.holdAt.prefix)) await this.holdAt.until;
        response.writeHead(this.status).end();
      });
    });
    this.server = server;
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  }

  /** The tokens posted to `path`, waiting (up to ten seconds) for `count` of them. */
  async tokensAt(path: string, count = 1): Promise<string[]> {
    for (let waited = 0; waited < 10_000; waited += 100) {
      const tokens = this.received.filter((entry) => entry.path === path);
      if (tokens.length >= count) return tokens.map((entry) => entry.token);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    return this.received.filter((entry) => entry.path === path).map((entry) => entry.token);
  }

  close(): Promise<void> {
    return new Promise((resolve) => this.server?.close(() => resolve()) ?? resolve());
  }
}

describe.each(DATABASE_KINDS)('back-channel logout on %s', (kind) => {
  // The relying parties of these tests listen on IPv4 loopback, which the operator allows.
  const service = codehostForTests(kind, {
    listen: true,
    env: { OUTBOUND_ALLOWED_NETWORKS: '127.0.0.0/8' },
  });
  const receiver = new Receiver();
  beforeAll(() => receiver.start());
  afterAll(() => receiver.close());

  let sequence = 0;
  /** A user signed in on the web, and an ID token their session gave `path`'s application. */
  async function signedInWithIdToken(
    options: { user?: Awaited<ReturnType<typeof createUser>> } = {},
  ) {
    sequence += 1;
    const path = `/logout/${kind}/${sequence}`;
    const user = options.user ?? (await createUser(service));
    const app = await createApplication(service, user.id, {
      scopes: ['openid'],
      backchannelLogoutUri: `${receiver.url}${path}`,
    });
    const browser = new WebClient(service);
    await browser.signIn(user.username, user.password);
    const idToken = decodeJwt((await openidTokens(service, browser, app)).id_token);
    return { user, app, browser, path, sid: idToken.sid as string };
  }

  it('puts sid in ID tokens and posts a logout token naming it when the user signs out', async () => {
    const { user, app, browser, path, sid } = await signedInWithIdToken();
    expect(sid).toMatch(/^[\w-]{43}$/);
    // An application that never received an ID token for this session hears nothing.
    await createApplication(service, user.id, {
      scopes: ['openid'],
      backchannelLogoutUri: `${receiver.url}${path}/bystander`,
    });
    await browser.get('/profile');
    await browser.post('/users/sign_out', {});
    const [token] = await receiver.tokensAt(path);
    expect(token).toBeDefined();
    const posted = receiver.received.find((entry) => entry.path === path);
    expect(posted?.contentType).toBe('application/x-www-form-urlencoded');
    const keys = createRemoteJWKSet(new URL('/oauth/discovery/keys', service.url));
    const { payload, protectedHeader } = await jwtVerify(token as string, keys, {
      issuer: service.url,
      audience: app.clientId,
      typ: 'logout+jwt',
    });
    expect(protectedHeader.kid).toBeTruthy();
    expect(payload.sub).toBe(String(user.id));
    expect(payload.sid).toBe(sid);
    expect(payload.events).toEqual({ [EVENT]: {} });
    expect(typeof payload.jti).toBe('string');
    expect(payload.nonce).toBeUndefined();
    expect((payload.exp as number) - (payload.iat as number)).toBeLessThanOrEqual(120);
    expect(receiver.received.some((entry) => entry.path === `${path}/bystander`)).toBe(false);
  });

  it('tells relying parties of sessions ended from the active-sessions page, by a password change and by a block', async () => {
    // Ended from another browser's active-sessions page.
    const first = await signedInWithIdToken();
    const elsewhere = new WebClient(service);
    await elsewhere.signIn(first.user.username, first.user.password);
    const listing = await elsewhere.get('/profile/active_sessions');
    const target = /name="session" value="([0-9a-f]{64})"/.exec(listing.body)?.[1];
    await elsewhere.post('/profile/active_sessions/revoke', { session: target as string });
    const [ended] = await receiver.tokensAt(first.path);
    expect(decodeJwt(ended as string).sid).toBe(first.sid);

    // A password change ends every session.
    const second = await signedInWithIdToken();
    const changer = new WebClient(service);
    await changer.signIn(second.user.username, second.user.password);
    await changer.get('/profile/password/edit');
    const changed = await changer.post('/profile/password', {
      current_password: second.user.password,
      new_password: 'a-new-password-42',
      password_confirmation: 'a-new-password-42',
    });
    expect(changed.statusCode).toBe(200);
    const [afterChange] = await receiver.tokensAt(second.path);
    expect(decodeJwt(afterChange as string).sid).toBe(second.sid);

    // An administrator's block, from outside any request of the web pages.
    const third = await signedInWithIdToken();
    const users = new UserStore(
      service.db,
      new PasswordHasher(service.config.security.passwordHash),
    );
    await users.setState(third.user.id, 'blocked');
    const [afterBlock] = await receiver.tokensAt(third.path);
    expect(decodeJwt(afterBlock as string).sid).toBe(third.sid);
  });

  it('retries a relying party that fails, with the same jti, and keeps the delivery', async () => {
    const { browser, path } = await signedInWithIdToken();
    receiver.status = 503;
    try {
      await browser.get('/profile');
      await browser.post('/users/sign_out', {});
      const [first] = await receiver.tokensAt(path);
      const deliveryFor = async () =>
        service.db
          .selectFrom('backchannel_logout_deliveries')
          .selectAll()
          .where('jti', '=', decodeJwt(first as string).jti as string)
          .executeTakeFirstOrThrow();
      let delivery = await deliveryFor();
      for (let waited = 0; delivery.last_error === null && waited < 5000; waited += 100) {
        await new Promise((resolve) => setTimeout(resolve, 100));
        delivery = await deliveryFor();
      }
      expect(delivery.attempts).toBe(1);
      expect(delivery.last_error).toBe('answered 503');
      expect(delivery.delivered_at).toBeNull();
      expect(Number(delivery.next_attempt_at)).toBeGreaterThan(Date.now());
      receiver.status = 200;
      // As if the wait before the retry had passed.
      await service.db
        .updateTable('backchannel_logout_deliveries')
        .set({ next_attempt_at: Date.now() })
        .where('id', '=', delivery.id)
        .execute();
      const [, second] = await receiver.tokensAt(path, 2);
      expect(decodeJwt(second as string).jti).toBe(decodeJwt(first as string).jti);
      for (let waited = 0; delivery.delivered_at === null && waited < 5000; waited += 100) {
        await new Promise((resolve) => setTimeout(resolve, 100));
        delivery = await deliveryFor();
      }
      expect(delivery.attempts).toBe(2);
      expect(delivery.delivered_at).not.toBeNull();
    } finally {
      receiver.status = 200;
    }
  });

  it('signs the user out without waiting for the relying party to answer', async () => {
    const { browser, path } = await signedInWithIdToken();
    let release = () => {};
    receiver.hold = new Promise((resolve) => {
      release = resolve;
    });
    try {
      await browser.get('/profile');
      const signedOut = await browser.post('/users/sign_out', {});
      expect(signedOut.statusCode).toBe(302);
      // The relying party has the token, or will, and has not answered yet.
      const tokens = await receiver.tokensAt(path);
      expect(tokens).toHaveLength(1);
    } finally {
      receiver.hold = undefined;
      release();
    }
  });

  it('keeps a relying party that does not answer from holding back another, one token out to it at a time', async () => {
    const user = await createUser(service);
    sequence += 1;
    const slowPath = `/slow/${kind}/${sequence}`;
    const fastPath = `/fast/${kind}/${sequence}`;
    const slow = await createApplication(service, user.id, {
      scopes: ['openid'],
      backchannelLogoutUri: `${receiver.url}${slowPath}`,
    });
    const fast = await createApplication(service, user.id, {
      scopes: ['openid'],
      backchannelLogoutUri: `${receiver.url}${fastPath}`,
    });
    const browsers = [new WebClient(service), new WebClient(service)];
    for (const browser of browsers) {
      await browser.signIn(user.username, user.password);
      await openidTokens(service, browser, slow);
      await openidTokens(service, browser, fast);
    }
    let release = () => {};
    receiver.holdAt = {
      prefix: slowPath,
      until: new Promise((resolve) => {
        release = resolve;
      }),
    };
    try {
      for (const browser of browsers) {
        await browser.get('/profile');
        await browser.post('/users/sign_out', {});
      }
      // The other relying party hears of both sessions ...
      expect(await receiver.tokensAt(fastPath, 2)).toHaveLength(2);
      // ... while the first token to the silent one is still unanswered, and its
      // second waits for it rather than taking another slot.
      const slowDeliveries = await service.db
        .selectFrom('backchannel_logout_deliveries')
        .innerJoin(
          'oauth_applications',
          'oauth_applications.id',
          'backchannel_logout_deliveries.application_id',
        )
        .select(['attempts', 'last_error', 'delivered_at'])
        .where('oauth_applications.uid', '=', slow.clientId)
        .orderBy('backchannel_logout_deliveries.id')
        .execute();
      expect(slowDeliveries).toEqual([
        { attempts: 1, last_error: null, delivered_at: null },
        { attempts: 0, last_error: null, delivered_at: null },
      ]);
      expect(receiver.received.filter((entry) => entry.path === slowPath)).toHaveLength(1);
    } finally {
      receiver.holdAt = undefined;
      release();
    }
    expect(await receiver.tokensAt(slowPath, 2)).toHaveLength(2);
  });

  it('advertises back-channel logout in discovery', async () => {
    const metadata = (
      await service.app.inject({ url: '/.well-known/openid-configuration' })
    ).json();
    expect(metadata.backchannel_logout_supported).toBe(true);
    expect(metadata.backchannel_logout_session_supported).toBe(true);
    expect(metadata.claims_supported).toContain('sid');
  });

  it('refuses a back-channel logout URI that codehost could not post to, and stores nothing', async () => {
    const user = await createUser(service);
    const browser = new WebClient(service);
    await browser.signIn(user.username, user.password);
    await browser.get('/profile/applications');
    for (const [uri, message] of [
      ['ftp://rp.example/logout', 'http or https'],
      ['/logout', 'absolute URI'],
      ['https://rp.example/logout#here', 'fragment'],
      [`https://rp.example/${'x'.repeat(2100)}`, 'too long'],
    ] as const) {
      const refused = await browser.post('/profile/applications', {
        name: 'RP',
        redirect_uri: 'https://rp.example/cb',
        scopes: ['openid'],
        backchannel_logout_uri: uri,
      });
      expect(refused.statusCode, uri.slice(0, 40)).toBe(422);
      expect(refused.body).toContain(message);
      expect(refused.body).toContain('id="backchannel_logout_uri-error"');
    }
    const stored = await service.db
      .selectFrom('oauth_applications')
      .select('id')
      .where('owner_id', '=', user.id)
      .execute();
    expect(stored).toEqual([]);
    const created = await browser.post('/profile/applications', {
      name: 'RP',
      redirect_uri: 'https://rp.example/cb',
      scopes: ['openid'],
      backchannel_logout_uri: 'https://93.184.216.34/logout',
      backchannel_logout_session_required: '1',
    });
    expect(created.statusCode).toBe(303);
    const shown = await browser.get(created.headers.location as string);
    expect(shown.body).toContain(
      '<code>https://93.184.216.34/logout</code> (with <code>sid</code>)',
    );
  });

  it('refuses, on the page and through the API, a back-channel logout URI that leads to an internal address', async () => {
    const user = await createUser(service);
    const browser = new WebClient(service);
    await browser.signIn(user.username, user.password);
    await browser.get('/profile/applications');
    const internal = [
      'http://169.254.169.254/latest/meta-data/',
      'http://10.0.0.1/',
      'http://192.168.1.20/logout',
      'http://0.0.0.0/',
      'http://[::1]:8081/sign-in/backchannel-logout',
      'http://[::127.0.0.1]/',
      'http://[::ffff:169.254.169.254]/',
      'http://[fd00::1]/',
      'http://localhost6.invalid/',
    ];
    for (const uri of internal) {
      const refused = await browser.post('/profile/applications', {
        name: 'RP',
        redirect_uri: 'https://rp.example/cb',
        scopes: ['openid'],
        backchannel_logout_uri: uri,
      });
      expect(refused.statusCode, uri).toBe(422);
      expect(refused.body, uri).toMatch(/internal address|does not resolve/);
    }
    const withCredentials = await browser.post('/profile/applications', {
      name: 'RP',
      redirect_uri: 'https://rp.example/cb',
      scopes: ['openid'],
      backchannel_logout_uri: 'https://user:secret@93.184.216.34/logout',
    });
    expect(withCredentials.statusCode).toBe(422);
    expect(withCredentials.body).toContain('cannot contain credentials');

    // GitLab's Applications API is an administrator's.
    const admin = await createUser(service, { isAdmin: true });
    const token = await apiToken(service, admin.id);
    const viaApi = await service.app.inject({
      method: 'POST',
      url: '/api/v4/applications',
      headers: { 'private-token': token },
      payload: {
        name: 'RP',
        redirect_uri: 'https://rp.example/cb',
        scopes: 'openid',
        backchannel_logout_uri: 'http://169.254.169.254/latest/meta-data/',
      },
    });
    expect(viaApi.statusCode).toBeGreaterThanOrEqual(400);
    expect(viaApi.statusCode).toBeLessThan(500);
    expect(viaApi.body).toContain('internal address');
    const stored = await service.db
      .selectFrom('oauth_applications')
      .select('id')
      .where('owner_id', 'in', [user.id, admin.id])
      .execute();
    expect(stored).toEqual([]);
  });
});

describe.each(DATABASE_KINDS)(
  'back-channel logout to an address no longer allowed, on %s',
  (kind) => {
    // No range is allowed here: the receiver's loopback address is internal.
    const service = codehostForTests(kind, { listen: true });
    const receiver = new Receiver();
    beforeAll(() => receiver.start());
    afterAll(() => receiver.close());

    /** An application whose URI was stored when loopback was allowed (or before the rule). */
    async function storedEarlier(ownerId: number, path: string, byOperator: boolean) {
      const { application, secret } = await new ApplicationStore(
        service.db,
        new OutboundPolicy(['127.0.0.0/8']),
      ).create(ownerId, {
        name: byOperator ? 'Operator RP' : 'User RP',
        redirectUris: 'https://rp.example/cb',
        scopes: ['openid'],
        confidential: true,
        backchannelLogoutUri: `${receiver.url}${path}`,
        configuredByOperator: byOperator,
      });
      return { clientId: application.uid, secret, redirectUri: 'https://rp.example/cb' };
    }

    it("checks the address again at the connection: a user's is refused, the operator's is posted to", async () => {
      const user = await createUser(service);
      const users = await storedEarlier(user.id, `/user/${kind}`, false);
      const operators = await storedEarlier(user.id, `/operator/${kind}`, true);
      const browser = new WebClient(service);
      await browser.signIn(user.username, user.password);
      await openidTokens(service, browser, users);
      await openidTokens(service, browser, operators);
      await browser.get('/profile');
      await browser.post('/users/sign_out', {});
      const [operatorToken] = await receiver.tokensAt(`/operator/${kind}`);
      expect(operatorToken).toBeDefined();
      let refused: { last_error: string | null; delivered_at: number | null } | undefined;
      for (let waited = 0; !refused?.last_error && waited < 5000; waited += 100) {
        refused = await service.db
          .selectFrom('backchannel_logout_deliveries')
          .innerJoin(
            'oauth_applications',
            'oauth_applications.id',
            'backchannel_logout_deliveries.application_id',
          )
          .select(['last_error', 'delivered_at'])
          .where('oauth_applications.uid', '=', users.clientId)
          .executeTakeFirst();
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      expect(refused?.last_error).toContain('may not go to');
      expect(refused?.delivered_at).toBeNull();
      expect(receiver.received.some((entry) => entry.path === `/user/${kind}`)).toBe(false);
    });
  },
);
