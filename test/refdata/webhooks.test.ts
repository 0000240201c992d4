/**
 * Webhooks through HTTP, to a real receiver on loopback: every event of a
 * story once, in order per resource, signed per Standard Webhooks; retries on
 * the schedule, then the subscription disabled and its owner told; the
 * delivery log and "send again"; two instances on one PostgreSQL sending each
 * event once; and the subscription API's answers to bad input.
 */
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DATABASE_KINDS } from '../harness.js';
import {
  anotherInstance,
  approve,
  classChangedOnce,
  create,
  createLibrary,
  type Refdata,
  refdataForTests,
  uniqueName,
} from './helpers.js';
import { Browser } from './page-client.js';
import { LOOPBACK_ALLOWED as LOOPBACK, Receiver } from './webhook-receiver.js';

interface Payload {
  type: string;
  timestamp: string;
  data: {
    event: string;
    iri: string;
    family: string;
    library: string | null;
    status: string;
    version: number;
    actor: { subject: string };
    member: string;
  };
}

async function subscribe(service: Refdata, body: Record<string, unknown>, subject = 'alice') {
  const response = await service.app.inject({
    method: 'POST',
    url: '/webhooks',
    headers: { authorization: `Bearer ${await service.token(['Reader'], subject)}` },
    payload: body,
  });
  expect(response.statusCode, response.body).toBe(201);
  return response.json() as { id: number; secret: string; state: string };
}

async function asOwner(
  service: Refdata,
  method: 'GET' | 'POST' | 'PATCH' | 'DELETE',
  url: string,
  body?: unknown,
  subject = 'alice',
) {
  return service.app.inject({
    method,
    url,
    headers: { authorization: `Bearer ${await service.token(['Reader'], subject)}` },
    ...(body === undefined ? {} : { payload: body as object }),
  });
}

async function eventually<T>(
  read: () => Promise<T>,
  done: (value: T) => boolean,
  timeoutMs = 20_000,
) {
  const started = Date.now();
  for (;;) {
    const value = await read();
    if (done(value)) return value;
    if (Date.now() - started > timeoutMs) throw new Error(`still ${JSON.stringify(value)}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

describe.each(DATABASE_KINDS)('webhooks on %s', (kind) => {
  const service = refdataForTests(kind, {
    ...LOOPBACK,
    REFDATA_WEBHOOK_POLL_MS: '50',
    REFDATA_WEBHOOK_RETRY_SCHEDULE: '200ms,400ms,800ms',
    REFDATA_WEBHOOK_MAX_PER_OWNER: '3',
  });
  let receiver: Receiver;
  beforeAll(async () => {
    receiver = await Receiver.start();
  });
  afterAll(async () => {
    await receiver.close();
  });

  it('delivers every event of a story once, in order per resource, signed', async () => {
    // Published before the subscription: approving its terms waits for it.
    const library = await createLibrary(service);
    await approve(service, library);
    const hook = await subscribe(service, { url: receiver.url, libraries: [library] });
    expect(hook.secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    // The secret is shown once: reading the subscription never gives it.
    expect((await asOwner(service, 'GET', `/webhooks/${hook.id}`)).json().secret).toBeUndefined();

    const pump = await classChangedOnce(service, library, uniqueName('Pump'));
    await approve(service, pump.iri);
    const replacement = await create(service, '/rdl/terms/subclass', {
      name: uniqueName('Centrifugal pump'),
      ontology: library,
      subClassOf: ['http://x.example/Equipment'],
      replaces: pump.iri,
    });
    await approve(service, replacement.iri);
    // Outside the subscription's library: not sent.
    const elsewhere = await createLibrary(service);

    await receiver.until((received) => received.length >= 8);
    await new Promise((resolve) => setTimeout(resolve, 300));
    const mine = receiver.received.filter((request) => {
      const body = JSON.parse(request.body) as Payload;
      return body.data.library === library;
    });
    expect(mine).toHaveLength(8);
    const verifier = new Webhook(hook.secret);
    const payloads = mine.map((request) => {
      expect(request.headers['content-type']).toBe('application/json');
      // Throws unless the signature, id and timestamp verify.
      return verifier.verify(request.body, request.headers as Record<string, string>) as Payload;
    });
    // Each webhook-id once.
    const ids = mine.map((request) => request.headers['webhook-id']);
    expect(new Set(ids).size).toBe(ids.length);
    const story = (iri: string) =>
      payloads.filter((payload) => payload.data.iri === iri).map((payload) => payload.type);
    expect(story(pump.iri)).toEqual([
      'resource.created',
      'resource.updated',
      'resource.submitted',
      'resource.approved',
      'resource.deprecated',
    ]);
    expect(story(replacement.iri)).toEqual([
      'resource.created',
      'resource.submitted',
      'resource.approved',
    ]);
    const approval = payloads.find(
      (payload) => payload.data.iri === pump.iri && payload.data.event === 'approved',
    );
    expect(approval?.data).toMatchObject({
      family: 'class',
      library,
      status: 'Approved',
      actor: { subject: 'rita' },
    });
    expect(approval?.data.member).toMatch(/\/changes\/events\/\d+$/);
    expect(receiver.received.some((request) => request.body.includes(elsewhere))).toBe(false);
    // A signature made with another secret does not verify.
    expect(() =>
      new Webhook(`whsec_${Buffer.alloc(32, 1).toString('base64')}`).verify(
        mine[0]?.body ?? '',
        mine[0]?.headers as Record<string, string>,
      ),
    ).toThrow();
    await asOwner(service, 'DELETE', `/webhooks/${hook.id}`);
  });

  it('retries on the schedule, then disables the subscription and says why; sends again when asked', async () => {
    const failing = await Receiver.start('/failing');
    try {
      failing.answer = () => 503;
      const library = await createLibrary(service);
      const hook = await subscribe(service, {
        url: failing.url,
        libraries: [library],
        events: ['created'],
      });
      const made = await create(service, '/rdl/terms/subclass', {
        name: uniqueName('Compressor'),
        ontology: library,
        subClassOf: ['http://x.example/Equipment'],
      });
      // The first attempt and one after each of the schedule's three waits.
      await failing.until((received) => received.length >= 4);
      const gaps = failing.received
        .slice(1)
        .map((request, index) => request.at - (failing.received[index]?.at ?? 0));
      expect(gaps[0]).toBeGreaterThanOrEqual(200);
      expect(gaps[1]).toBeGreaterThanOrEqual(400);
      expect(gaps[2]).toBeGreaterThanOrEqual(800);
      const disabled = await eventually(
        async () => (await asOwner(service, 'GET', `/webhooks/${hook.id}`)).json(),
        (value) => value.state === 'disabled',
      );
      expect(disabled.disabledReason).toMatch(/failed 4 times; the last: answered 503/);
      // Its owner is told on every page of the web app, not only the webhook pages.
      const owner = new Browser(service);
      await owner.signInWithToken(await service.token(['Reader'], 'alice'));
      expect((await owner.get('/')).body).toContain('A webhook of yours was disabled');
      const other = new Browser(service);
      await other.signInWithToken(await service.token(['Reader'], 'someone-else'));
      expect((await other.get('/')).body).not.toContain('A webhook of yours was disabled');
      // Nothing more is sent while it is disabled.
      await new Promise((resolve) => setTimeout(resolve, 1200));
      expect(failing.received).toHaveLength(4);
      const ids = new Set(failing.received.map((request) => request.headers['webhook-id']));
      expect(ids.size).toBe(1);

      // The delivery log has each attempt, its answer and its time.
      const log = (await asOwner(service, 'GET', `/webhooks/${hook.id}/deliveries`)).json();
      const [delivery] = log.deliveries;
      expect(delivery).toMatchObject({ state: 'failed', attempts: 4 });
      expect(delivery.payload.data.iri).toBe(made.iri);
      expect(delivery.log).toHaveLength(4);
      expect(delivery.log[0]).toMatchObject({
        status: 503,
        error: 'answered 503',
        response: 'answered 503',
      });
      expect(delivery.log[0].requestHeaders['webhook-signature']).toMatch(/^v1,/);

      // Mended: enabled again and sent again, it arrives.
      failing.answer = () => 204;
      const enabled = await asOwner(service, 'PATCH', `/webhooks/${hook.id}`, { state: 'active' });
      expect(enabled.json()).toMatchObject({ state: 'active', disabledReason: null });
      const again = await asOwner(
        service,
        'POST',
        `/webhooks/${hook.id}/deliveries/${delivery.id}/redeliver`,
      );
      expect(again.statusCode).toBe(202);
      await failing.until((received) => received.length >= 5);
      const after = await eventually(
        async () => (await asOwner(service, 'GET', `/webhooks/${hook.id}/deliveries`)).json(),
        (value) => value.deliveries[0].state === 'delivered',
      );
      expect(after.deliveries[0].log.at(-1).status).toBe(204);
    } finally {
      await failing.close();
    }
  });

  it('records an answer with a NUL byte in it, and the delivery as done', async () => {
    const odd = await Receiver.start('/odd');
    try {
      odd.answer = () => ({ status: 200, body: 'ok\u0000done' });
      const library = await createLibrary(service);
      const hook = await subscribe(service, { url: odd.url, libraries: [library] });
      await create(service, '/rdl/terms/subclass', {
        name: uniqueName('Seal'),
        ontology: library,
        subClassOf: ['http://x.example/Equipment'],
      });
      const log = await eventually(
        async () => (await asOwner(service, 'GET', `/webhooks/${hook.id}/deliveries`)).json(),
        (value) => value.deliveries[0]?.state === 'delivered',
      );
      expect(log.deliveries[0].log[0].response).toBe('ok\uFFFDdone');
      expect(odd.received).toHaveLength(1);
      await asOwner(service, 'DELETE', `/webhooks/${hook.id}`);
    } finally {
      await odd.close();
    }
  });

  it('answers bad forms on the pages with the form again, saying what is wrong, storing nothing', async () => {
    const browser = new Browser(service);
    await browser.signInWithToken(await service.token(['Reader'], 'peggy'));
    await browser.get('/account/webhooks/new');
    const refusals: [Record<string, string>, string][] = [
      [{ url: 'gopher://example.org/' }, 'This URL is not an http(s) URL.'],
      [{ url: 'http://192.168.1.20/hooks' }, 'internal address'],
      [{ url: receiver.url, description: 'd'.repeat(300) }, 'longer than 255 characters'],
      [{ url: receiver.url, events: 'exploded' }, 'is not one of'],
      [{ url: receiver.url, families: 'spaceship' }, 'not a family'],
      [
        { url: receiver.url, libraries: 'https://nowhere.example/lib' },
        'not a library stored here',
      ],
    ];
    for (const [fields, words] of refusals) {
      const response = await browser.post('/account/webhooks/new', fields);
      expect(response.statusCode, JSON.stringify(fields)).toBe(400);
      expect(response.body.toLowerCase()).toContain(words.toLowerCase());
      // Said beside the field it is about, and tied to it for screen readers.
      expect(response.body).toMatch(/aria-describedby="[^"]*-error"/);
      expect(response.body).toContain('class="field-error"');
    }
    // Without the form's token: refused before anything is read.
    const forged = await browser.post('/account/webhooks/new', {
      authenticity_token: '0'.repeat(64),
      url: receiver.url,
    });
    expect(forged.statusCode).toBe(422);
    expect((await asOwner(service, 'GET', '/webhooks', undefined, 'peggy')).json()).toEqual([]);
    expect((await browser.get('/account/webhooks/abc')).statusCode).toBe(404);
    expect((await browser.get('/account/webhooks/99999999')).statusCode).toBe(404);
    // Signed out: asked to sign in.
    const visitor = await new Browser(service).get('/account/webhooks');
    expect(visitor.statusCode).toBe(302);
    expect(visitor.headers.location).toMatch(/^\/sign-in/);
  });

  it('answers bad settings, others\u2019 subscriptions and the limit with problems, storing nothing', async () => {
    const library = await createLibrary(service);
    const before = (await asOwner(service, 'GET', '/webhooks', undefined, 'mallory')).json();
    expect(before).toEqual([]);
    const cases: [unknown, number, string][] = [
      [{}, 400, 'url'],
      [{ url: 'ftp://example.org/x' }, 400, 'not an http(s) URL'],
      [{ url: 'http://user:pw@127.0.0.1/x' }, 400, 'credentials'],
      [{ url: 'http://10.1.2.3/hooks' }, 400, 'internal address'],
      [{ url: 'http://169.254.169.254/latest' }, 400, 'internal address'],
      [{ url: 'http://[fd00::1]/x' }, 400, 'internal address'],
      // IPv6 forms that carry an IPv4 address, or lie outside the global unicast space.
      [{ url: 'http://[::127.0.0.1]/x' }, 400, 'internal address'],
      [{ url: 'http://[::a00:1]/x' }, 400, 'internal address'],
      [{ url: 'http://[64:ff9b::7f00:1]/x' }, 400, 'internal address'],
      [{ url: 'http://[2002:7f00:1::1]/x' }, 400, 'internal address'],
      [{ url: 'http://[100::1]/x' }, 400, 'internal address'],
      [{ url: 'http://no-such-host.invalid/x' }, 400, 'does not resolve'],
      [{ url: receiver.url, events: ['exploded'] }, 400, 'events'],
      [{ url: receiver.url, events: ['created', 'created'] }, 400, 'twice'],
      [{ url: receiver.url, families: ['spaceship'] }, 400, 'not a family'],
      [{ url: receiver.url, libraries: ['https://nowhere.example/lib'] }, 400, 'not a library'],
      [{ url: receiver.url, colour: 'blue' }, 400, 'colour'],
      [{ url: receiver.url, description: 'd'.repeat(256) }, 400, 'description'],
      [{ url: 12 }, 400, 'url'],
      [{ url: `http://127.0.0.1/${'a'.repeat(2100)}` }, 400, 'url'],
    ];
    for (const [body, status, words] of cases) {
      const response = await asOwner(service, 'POST', '/webhooks', body, 'mallory');
      expect(response.statusCode, JSON.stringify(body)).toBe(status);
      expect(response.headers['content-type']).toMatch(/^application\/problem\+json/);
      expect(response.body, JSON.stringify(body)).toContain(words);
    }
    expect((await asOwner(service, 'GET', '/webhooks', undefined, 'mallory')).json()).toEqual([]);

    const hook = await subscribe(service, { url: receiver.url, libraries: [library] }, 'mallory');
    // Someone else's subscription is not there for them.
    for (const [method, url] of [
      ['GET', `/webhooks/${hook.id}`],
      ['PATCH', `/webhooks/${hook.id}`],
      ['DELETE', `/webhooks/${hook.id}`],
      ['GET', `/webhooks/${hook.id}/deliveries`],
      ['POST', `/webhooks/${hook.id}/secret`],
    ] as const) {
      const response = await asOwner(
        service,
        method,
        url,
        method === 'PATCH' ? {} : undefined,
        'eve',
      );
      expect(response.statusCode, `${method} ${url}`).toBe(404);
    }
    const badPatch = await asOwner(
      service,
      'PATCH',
      `/webhooks/${hook.id}`,
      { state: 'disabled' },
      'mallory',
    );
    expect(badPatch.statusCode).toBe(400);
    const unchanged = await asOwner(service, 'GET', `/webhooks/${hook.id}`, undefined, 'mallory');
    expect(unchanged.json().state).toBe('active');
    // A new secret, and the old one no longer shown anywhere.
    const rotated = await asOwner(
      service,
      'POST',
      `/webhooks/${hook.id}/secret`,
      undefined,
      'mallory',
    );
    expect(rotated.json().secret).toMatch(/^whsec_/);
    expect(rotated.json().secret).not.toBe(hook.secret);
    // The limit (three here).
    await subscribe(
      service,
      { url: receiver.url, libraries: [library], events: ['approved'] },
      'mallory',
    );
    await subscribe(
      service,
      { url: receiver.url, libraries: [library], events: ['created'] },
      'mallory',
    );
    const over = await asOwner(service, 'POST', '/webhooks', { url: receiver.url }, 'mallory');
    expect(over.statusCode).toBe(409);
    expect(over.json().type).toMatch(/webhook-limit$/);
    // Malformed addresses and parameters.
    for (const [method, url, body, status] of [
      ['GET', '/webhooks/abc', undefined, 400],
      ['GET', '/webhooks/0', undefined, 400],
      ['GET', '/webhooks/99999999', undefined, 404],
      ['GET', `/webhooks/${hook.id}/deliveries?page=0`, undefined, 400],
      ['GET', `/webhooks/${hook.id}/deliveries?perPage=1000`, undefined, 400],
      ['GET', `/webhooks/${hook.id}/deliveries?colour=blue`, undefined, 400],
      ['POST', `/webhooks/${hook.id}/deliveries/99999999/redeliver`, undefined, 404],
      ['POST', `/webhooks/${hook.id}/deliveries/x/redeliver`, undefined, 400],
      ['PATCH', `/webhooks/${hook.id}`, { secret: 'mine' }, 400],
      ['PATCH', `/webhooks/${hook.id}`, { events: 'created' }, 400],
    ] as const) {
      const response = await asOwner(service, method, url, body, 'mallory');
      expect(response.statusCode, `${method} ${url}`).toBe(status);
      expect(response.headers['content-type']).toMatch(/^application\/problem\+json/);
    }
    const notJson = await service.app.inject({
      method: 'POST',
      url: '/webhooks',
      headers: {
        authorization: `Bearer ${await service.token(['Reader'], 'mallory')}`,
        'content-type': 'application/json',
      },
      payload: '{"url": ',
    });
    expect(notJson.statusCode).toBe(400);
    // Without a token: 401.
    const anonymous = await service.app.inject({ method: 'GET', url: '/webhooks' });
    expect(anonymous.statusCode).toBe(401);
    for (const created of (await asOwner(service, 'GET', '/webhooks', undefined, 'mallory')).json())
      await asOwner(service, 'DELETE', `/webhooks/${created.id}`, undefined, 'mallory');
  });
});

describe.skipIf(!DATABASE_KINDS.includes('postgres'))(
  'webhooks from two instances on one PostgreSQL',
  () => {
    const service = refdataForTests('postgres', { ...LOOPBACK, REFDATA_WEBHOOK_POLL_MS: '20' });

    it('sends each event once', async () => {
      const receiver = await Receiver.start();
      const other = await anotherInstance(service, { ...LOOPBACK, REFDATA_WEBHOOK_POLL_MS: '20' });
      try {
        const library = await createLibrary(service);
        await subscribe(service, { url: receiver.url, libraries: [library] });
        const token = await service.token(['Creator']);
        const made: string[] = [];
        for (let i = 0; i < 20; i += 1) {
          // Written through both instances, each nudging its own worker.
          const through = i % 2 === 0 ? service.app : other;
          const response = await through.inject({
            method: 'POST',
            url: '/rdl/terms/subclass',
            headers: { authorization: `Bearer ${token}` },
            payload: {
              name: uniqueName('Valve'),
              description: 'A valve',
              changeJustification: 'Needed',
              ontology: library,
              subClassOf: ['http://x.example/Equipment'],
            },
          });
          expect(response.statusCode).toBe(201);
          made.push(response.json().iri);
        }
        await receiver.until((received) => received.length >= 20);
        await new Promise((resolve) => setTimeout(resolve, 500));
        const ids = receiver.received.map((request) => request.headers['webhook-id']);
        expect(ids).toHaveLength(20);
        expect(new Set(ids).size).toBe(20);
        const iris = receiver.received.map((request) => JSON.parse(request.body).data.iri);
        expect(new Set(iris)).toEqual(new Set(made));
      } finally {
        await other.close();
        await receiver.close();
      }
    });
  },
);

describe.each(DATABASE_KINDS)('a fair share for each subscription on %s', (kind) => {
  const service = refdataForTests(kind, {
    ...LOOPBACK,
    REFDATA_WEBHOOK_POLL_MS: '50',
    REFDATA_WEBHOOK_TIMEOUT_MS: '3000',
  });

  it('sends a fast receiver every event while eight slow ones each hold one attempt, never two', async () => {
    const fast = await Receiver.start();
    const slow = await Promise.all(Array.from({ length: 8 }, () => Receiver.start()));
    /** The most requests any slow receiver had open at once. */
    let mostOpen = 0;
    for (const receiver of slow) {
      let open = 0;
      receiver.answer = () => {
        open += 1;
        mostOpen = Math.max(mostOpen, open);
        // Hangs until the delivery's time-out (3 s from its start) ends it: counted
        // closed a little before, so that a second attempt can only be counted open
        // beside it if it came while the first was still held.
        setTimeout(() => {
          open -= 1;
        }, 2500);
        return 'hang';
      };
    }
    try {
      const library = await createLibrary(service);
      for (const receiver of slow)
        await subscribe(service, { url: receiver.url, libraries: [library] });
      await subscribe(service, { url: fast.url, libraries: [library] });
      for (let i = 0; i < 5; i += 1) {
        await create(service, '/rdl/terms/subclass', {
          name: uniqueName('Valve'),
          ontology: library,
          subClassOf: ['http://x.example/Equipment'],
        });
      }
      await fast.until((received) => received.length >= 5);
      // Every slow receiver's first attempt is still open: none has had a second,
      // and the fast one was not kept waiting behind them.
      for (const receiver of slow) expect(receiver.received.length).toBeLessThanOrEqual(1);
      // Once the first attempts time out, each slow receiver still gets one at a time.
      await slow[0]?.until((received) => received.length >= 2, 15_000);
      expect(mostOpen).toBe(1);
    } finally {
      await fast.close();
      for (const receiver of slow) await receiver.close();
    }
  }, 60_000);
});
