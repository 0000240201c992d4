/**
 * /sparql under attack: 16 clients asking simple queries (each with a token
 * of its own, so each is a client of its own), for a while alone, then as long
 * again while 4 hostile clients (anonymous, each from an address of its own,
 * 127.0.0.2 to .5) send hostile queries one after another: a cartesian
 * product (stopped at the time limit), a path both ways of any length, groups
 * nested 2,000 deep, 3,000 UNIONs, a string doubled to 128 MiB. A hostile
 * client told 429 waits the `Retry-After` it is given, as client libraries
 * do; every other answer it follows at once with its next query.
 *
 * The figure is the simple queries' p95 under attack over their p95 alone
 * (the target: at most 2), beside the bare route (`/-/health`) in both phases,
 * measured in the same run. The server runs with its default limits, but for
 * room in line for every client.
 *
 *   npm run bench:sparql-hostile -- [--classes 20000] [--seconds 30] [--clients 16] [--hostile 4]
 */
import { execFileSync } from 'node:child_process';
import { Agent, request as httpRequest } from 'node:http';
import { cpus } from 'node:os';
import { parseArgs } from 'node:util';
import { loadProgramConfig } from '../src/program.js';
import { loadOrCreateSigningKey } from '../src/refdata/auth/signing-key.js';
import { mintToken } from '../src/refdata/auth/tokens.js';
import { classTree, seedResources } from './bulk.js';
import { commonOptions, positive } from './options.js';
import { residentMemoryMib } from './processes.js';
import { percentiles } from './refdata-search.js';
import { startRefdataBenchServer } from './refdata-server.js';

const { values } = parseArgs({
  options: {
    ...commonOptions,
    classes: { type: 'string', default: '20000' },
    seconds: { type: 'string', default: '30' },
    clients: { type: 'string', default: '16' },
    hostile: { type: 'string', default: '4' },
  },
});
const classes = positive('classes', values.classes);
const seconds = positive('seconds', values.seconds);
const clientCount = positive('clients', values.clients);
const hostileCount = positive('hostile', values.hostile);
const out = (text: string) => process.stdout.write(`${text}\n`);
const ms = (value: number) => (value < 10 ? value.toFixed(1) : value.toFixed(0));
const RESULTS_JSON = 'application/sparql-results+json';
const SUBCLASS = 'http://www.w3.org/2000/01/rdf-schema#subClassOf';

interface Answer {
  status: number;
  retryAfter: number;
  milliseconds: number;
}

/** A client of its own: keep-alive connections from its own address. */
function client(from?: string) {
  const agent = new Agent({ keepAlive: true, ...(from ? { localAddress: from } : {}) });
  return (
    url: string,
    options: { method?: string; headers?: Record<string, string>; body?: string } = {},
  ) =>
    new Promise<Answer>((resolve, reject) => {
      const started = performance.now();
      const outgoing = httpRequest(
        url,
        { agent, method: options.method ?? 'GET', headers: options.headers },
        (response) => {
          response.resume();
          response.on('end', () =>
            resolve({
              status: response.statusCode ?? 0,
              retryAfter: Number(response.headers['retry-after'] ?? 0),
              milliseconds: performance.now() - started,
            }),
          );
          response.on('error', reject);
        },
      );
      outgoing.on('error', reject);
      outgoing.end(options.body);
    });
}

const nested = (depth: number) => `SELECT * WHERE ${'{'.repeat(depth)}?s ?p ?o${'}'.repeat(depth)}`;
const HOSTILE = [
  `SELECT (COUNT(*) AS ?n) WHERE { ${Array.from({ length: 10 }, (_, n) => `?s${n} ?p${n} ?o${n} .`).join(' ')} }`,
  `SELECT (COUNT(*) AS ?n) WHERE { ?a (<${SUBCLASS}>|^<${SUBCLASS}>)* ?b . ?c (<${SUBCLASS}>|^<${SUBCLASS}>)* ?d }`,
  nested(2000),
  `SELECT * WHERE { ${Array.from({ length: 3000 }, (_, n) => `{ ?s ?p ${n} }`).join(' UNION ')} }`,
  `SELECT (STRLEN(?x26) AS ?n) WHERE { BIND("ab" AS ?x0) ${Array.from({ length: 26 }, (_, n) => `BIND(CONCAT(?x${n}, ?x${n}) AS ?x${n + 1})`).join(' ')} }`,
];

if (!values['skip-build']) execFileSync('npm', ['run', '-s', 'build'], { stdio: 'inherit' });
const server = await startRefdataBenchServer({
  kind: 'sqlite',
  postgresAdminUrl: values['postgres-url'],
});
try {
  const library = server.refs.library;
  process.stderr.write(`seeding ${classes} classes\n`);
  await seedResources(server, classTree(library, classes));
  // Room in line for every client (the default, 8, would answer half the simple clients 503
  // sparql-busy at once); every other limit is the default.
  await server.restart({ REFDATA_SPARQL_MAX_CONCURRENT: String(4 * (clientCount + hostileCount)) });
  const tokens = loadProgramConfig(server.env).settings.refdata.tokens;
  const key = await loadOrCreateSigningKey(tokens.signingKeyFile);
  const readers = await Promise.all(
    Array.from({ length: clientCount }, (_, n) =>
      mintToken(key, tokens, { subject: `simple-${n}`, roles: ['Reader'], lifetimeSeconds: 3600 }),
    ),
  );
  const simpleQuery = `SELECT ?p ?o WHERE { <${library}/tree/42> ?p ?o }`;
  const simpleUrl = `${server.url}/sparql?query=${encodeURIComponent(simpleQuery)}`;
  // The dataset is built: the first simple query answers.
  for (;;) {
    const answer = await client()(simpleUrl, { headers: { accept: RESULTS_JSON } });
    if (answer.status === 200) break;
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
  const memory = await residentMemoryMib(server.pid);

  /** The simple clients and the health watcher for `seconds`, with `attack` running beside. */
  async function phase(attack: boolean) {
    const until = performance.now() + seconds * 1000;
    const simple: Answer[] = [];
    const health: Answer[] = [];
    const hostile: Answer[] = [];
    const simpleLoops = readers.map(async (token) => {
      const send = client();
      while (performance.now() < until)
        simple.push(
          await send(simpleUrl, {
            headers: { accept: RESULTS_JSON, authorization: `Bearer ${token}` },
          }),
        );
    });
    const healthLoop = (async () => {
      const send = client();
      while (performance.now() < until) {
        health.push(await send(`${server.url}/-/health`));
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    })();
    const hostileLoops = attack
      ? Array.from({ length: hostileCount }, async (_, n) => {
          const send = client(`127.0.0.${n + 2}`);
          let next = n;
          while (performance.now() < until) {
            const answer = await send(`${server.url}/sparql`, {
              method: 'POST',
              headers: { 'content-type': 'application/sparql-query', accept: RESULTS_JSON },
              body: HOSTILE[next % HOSTILE.length],
            });
            hostile.push(answer);
            next += 1;
            if (answer.status === 429) {
              const wait = Math.min(answer.retryAfter * 1000, until - performance.now());
              if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
            }
          }
        })
      : [];
    await Promise.all([...simpleLoops, healthLoop, ...hostileLoops]);
    return { simple, health, hostile };
  }

  process.stderr.write(`${seconds} s of simple queries alone\n`);
  const alone = await phase(false);
  process.stderr.write(`${seconds} s of simple queries under attack\n`);
  const attacked = await phase(true);

  const row = (name: string, answers: Answer[], health: Answer[]) => {
    const figures = percentiles(answers.map((answer) => answer.milliseconds));
    const bare = percentiles(health.map((answer) => answer.milliseconds));
    const failed = answers.filter((answer) => answer.status !== 200).length;
    return {
      figures,
      text: `| ${name} | ${answers.length} | ${(answers.length / seconds).toFixed(0)} | ${ms(figures.p50)} ms | ${ms(figures.p95)} ms | ${ms(figures.p99)} ms | ${failed} | ${ms(bare.p95)} ms | ${ms(Math.max(...health.map((answer) => answer.milliseconds)))} ms |`,
    };
  };
  out(
    `Node ${process.version}, ${cpus().length} cores; ${classes} approved classes; SQLite; default limits (2 copies, 10 s per query) but room in line for every client; ${clientCount} simple clients, ${hostileCount} hostile; ${seconds} s a phase; load generator on the same machine. refdata's resident memory when built: ${memory === undefined ? '?' : `${Math.round(memory)} MiB`}.`,
  );
  out('');
  out(
    '| phase | simple queries | per second | p50 | p95 | p99 | not 200 | /-/health p95 (the bare route) | /-/health slowest |',
  );
  out('|---|---|---|---|---|---|---|---|---|');
  const before = row('alone', alone.simple, alone.health);
  const during = row(`under attack by ${hostileCount}`, attacked.simple, attacked.health);
  out(before.text);
  out(during.text);
  out('');
  out(
    `Simple queries' p95 under attack over alone: ${(during.figures.p95 / before.figures.p95).toFixed(2)} (the target: at most 2).`,
  );
  const byStatus = new Map<number, number>();
  for (const answer of attacked.hostile)
    byStatus.set(answer.status, (byStatus.get(answer.status) ?? 0) + 1);
  out(
    `Hostile answers: ${[...byStatus.entries()]
      .sort(([a], [b]) => a - b)
      .map(([status, count]) => `${count} × ${status}`)
      .join(', ')}.`,
  );
} finally {
  await server.stop();
}
