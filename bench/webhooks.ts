/**
 * Webhooks and the change feed's outbox, measured on the built program:
 *
 * 1. Deliveries per second to a receiver on loopback: events made while the
 *    instance's worker is off, then an instance started with it on, timed from
 *    the first delivery to the last. Anchor: the same number of signed POSTs
 *    of the same body sent to the same receiver by this process alone, as many
 *    at once as the worker sends.
 * 2. What the outbox adds to a create: creates per second and their latency,
 *    this build against another (`--before`, the build before the change feed),
 *    in alternating rounds on fresh databases.
 *
 *   npm run bench:webhooks -- [--databases sqlite,postgres] [--events 3000]
 *                             [--creates 3000] [--connections 10] [--rounds 3]
 *                             [--before path/to/dist/main.js]
 *                             [--postgres-url URL] [--skip-build]
 */
import { execFileSync } from 'node:child_process';
import { createServer, request } from 'node:http';
import type { AddressInfo } from 'node:net';
import { parseArgs } from 'node:util';
import { Webhook } from 'standardwebhooks';
import { runLoad } from './load.js';
import { commonOptions, databaseKinds, positive } from './options.js';
import { startRefdataBenchServer } from './refdata-server.js';

const { values } = parseArgs({
  options: {
    ...commonOptions,
    events: { type: 'string', default: '3000' },
    creates: { type: 'string', default: '3000' },
    connections: { type: 'string', default: '10' },
    rounds: { type: 'string', default: '3' },
    before: { type: 'string' },
  },
});
const databases = databaseKinds(values.databases);
const events = positive('events', values.events);
const creates = positive('creates', values.creates);
const connections = positive('connections', values.connections);
const rounds = positive('rounds', values.rounds);
/** As many deliveries at once as an instance sends by default (REFDATA_WEBHOOK_CONCURRENCY). */
const IN_FLIGHT = 8;
const LOOPBACK = { REFDATA_WEBHOOK_ALLOWED_NETWORKS: '127.0.0.0/8' };

if (!values['skip-build']) execFileSync('npm', ['run', '-s', 'build'], { stdio: 'inherit' });

/** A receiver that answers 204 at once and notes when each new webhook-id arrived. */
async function startReceiver() {
  const seen = new Map<string, number>();
  let bodyBytes = 0;
  const server = createServer((incoming, response) => {
    let size = 0;
    incoming.on('data', (chunk: Buffer) => {
      size += chunk.length;
    });
    incoming.on('end', () => {
      const id = String(incoming.headers['webhook-id']);
      if (!seen.has(id)) seen.set(id, performance.now());
      bodyBytes = size;
      response.writeHead(204).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/hooks`,
    seen,
    get bodyBytes() {
      return bodyBytes;
    },
    reset() {
      seen.clear();
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

type Receiver = Awaited<ReturnType<typeof startReceiver>>;

async function until(done: () => boolean, timeoutMs: number): Promise<void> {
  const started = performance.now();
  while (!done()) {
    if (performance.now() - started > timeoutMs) throw new Error('timed out');
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

/** The anchor: `count` signed POSTs of a body the size of a delivery's, `IN_FLIGHT` at a time. */
async function bareSends(receiver: Receiver, count: number, bytes: number): Promise<number> {
  const webhook = new Webhook(`whsec_${Buffer.alloc(32, 7).toString('base64')}`);
  const body = JSON.stringify({
    type: 'resource.created',
    data: 'x'.repeat(Math.max(0, bytes - 40)),
  });
  receiver.reset();
  let next = 0;
  const started = performance.now();
  const one = (n: number) =>
    new Promise<void>((resolve, reject) => {
      const id = `msg_bare_${n}`;
      const now = new Date();
      const sent = request(receiver.url, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          'webhook-id': id,
          'webhook-timestamp': String(Math.floor(now.getTime() / 1000)),
          'webhook-signature': webhook.sign(id, now, body),
        },
      });
      sent.on('response', (response) => {
        response.resume();
        response.on('end', resolve);
      });
      sent.on('error', reject);
      sent.end(body);
    });
  await Promise.all(
    Array.from({ length: IN_FLIGHT }, async () => {
      while (next < count) {
        next += 1;
        await one(next);
      }
    }),
  );
  return count / ((performance.now() - started) / 1000);
}

/** `count` creates of a dimension (one event each), over `connections`. */
function dimensionCreates(
  server: Awaited<ReturnType<typeof startRefdataBenchServer>>,
  count: number,
  label: string,
) {
  let n = 0;
  return runLoad({
    name: `${label}s`,
    url: server.url,
    connections,
    amount: count,
    method: 'POST',
    headers: { authorization: `Bearer ${server.token}`, 'content-type': 'application/json' },
    nextRequest: () => {
      n += 1;
      return {
        path: '/cfihos/dimension',
        body: JSON.stringify({
          changeJustification: 'Benchmark',
          name: `${label} ${n}`,
          description: 'One event',
          ontology: server.refs.library,
          dimensionCode: 'E',
        }),
      };
    },
    expectedStatus: 201,
  });
}

async function deliveryRate(kind: 'sqlite' | 'postgres', receiver: Receiver) {
  const server = await startRefdataBenchServer({
    kind,
    postgresAdminUrl: values['postgres-url'],
    env: { ...LOOPBACK, REFDATA_WORKERS: 'none' },
  });
  try {
    const headers = { authorization: `Bearer ${server.token}`, 'content-type': 'application/json' };
    const made = await fetch(`${server.url}/webhooks`, {
      method: 'POST',
      headers,
      body: JSON.stringify({ url: receiver.url }),
    });
    if (made.status !== 201) throw new Error(`subscribe: ${made.status} ${await made.text()}`);
    process.stderr.write(`  ${kind}: ${events} events with the worker off\n`);
    await dimensionCreates(server, events, 'Event');
    receiver.reset();
    process.stderr.write(`  ${kind}: an instance with the worker on delivers them\n`);
    await server.restart({ ...LOOPBACK, REFDATA_WORKERS: 'all' });
    await until(() => receiver.seen.size >= events, 600_000);
    const times = [...receiver.seen.values()].sort((a, b) => a - b);
    const seconds = ((times.at(-1) ?? 0) - (times[0] ?? 0)) / 1000;
    const ours = (events - 1) / seconds;
    process.stderr.write(`  ${kind}: the receiver alone, sent to by this process\n`);
    const bare = await bareSends(receiver, events, receiver.bodyBytes);
    return { kind, ours, bare, bytes: receiver.bodyBytes };
  } finally {
    await server.stop();
  }
}

async function createRate(kind: 'sqlite' | 'postgres', program: string | undefined) {
  const server = await startRefdataBenchServer({
    kind,
    postgresAdminUrl: values['postgres-url'],
    ...(program ? { program } : {}),
  });
  try {
    const figures = await dimensionCreates(server, creates, 'Create');
    // From the mean latency with every connection busy (Little's law): the load
    // tool's own duration, and so a wall-clock rate, moves in whole seconds.
    return { ...figures, perSecond: (connections * 1000) / figures.latencyMeanMs };
  } finally {
    await server.stop();
  }
}

const median = (list: number[]) =>
  [...list].sort((a, b) => a - b)[Math.floor(list.length / 2)] ?? 0;
const fixed = (value: number, digits = 0) =>
  value.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits });

const receiver = await startReceiver();
const lines: string[] = [];
try {
  lines.push(
    '| database | deliveries/s (ours) | signed POSTs/s (this process alone) | ratio | body |',
    '|---|---|---|---|---|',
  );
  for (const kind of databases) {
    process.stderr.write(`Deliveries on ${kind}\n`);
    const figures = await deliveryRate(kind, receiver);
    lines.push(
      `| ${kind} | ${fixed(figures.ours)} | ${fixed(figures.bare)} | ${fixed(figures.ours / figures.bare, 2)} | ${figures.bytes} bytes |`,
    );
  }
  if (values.before) {
    lines.push(
      '',
      `| database | creates/s before | creates/s now | ratio | p50 before | p50 now | p99 before | p99 now |`,
      '|---|---|---|---|---|---|---|---|',
    );
    for (const kind of databases) {
      const before: Awaited<ReturnType<typeof createRate>>[] = [];
      const now: typeof before = [];
      for (let round = 1; round <= rounds; round += 1) {
        process.stderr.write(`Creates on ${kind}, round ${round} of ${rounds}\n`);
        // Alternating which goes first, so drift on a shared machine falls on both.
        if (round % 2 === 1) {
          before.push(await createRate(kind, values.before));
          now.push(await createRate(kind, undefined));
        } else {
          now.push(await createRate(kind, undefined));
          before.push(await createRate(kind, values.before));
        }
      }
      const rate = (list: typeof before) => median(list.map((figures) => figures.perSecond));
      const p50 = (list: typeof before) => median(list.map((figures) => figures.latencyP50Ms));
      const p99 = (list: typeof before) => median(list.map((figures) => figures.latencyP99Ms));
      lines.push(
        `| ${kind} | ${fixed(rate(before))} | ${fixed(rate(now))} | ${fixed(rate(now) / rate(before), 2)} | ${fixed(p50(before), 1)} ms | ${fixed(p50(now), 1)} ms | ${fixed(p99(before), 1)} ms | ${fixed(p99(now), 1)} ms |`,
      );
    }
  }
} finally {
  await receiver.close();
}
process.stdout.write(`${lines.join('\n')}\n`);
