/**
 * codehost benchmarks: password hashing cost, then HTTP load on the built server
 * (own process) on SQLite and PostgreSQL. Prints Markdown for docs/performance.md.
 *
 *   npm run bench -- [--services codehost,refdata] [--databases sqlite,postgres]
 *                    [--duration 10] [--connections 10] [--refresh-requests 15000]
 *                    [--refdata-creates 10000] [--latency-creates 300]
 *                    [--export-terms 100000] [--export-formats text/turtle,...]
 *                    [--search-resources 100000] [--search-requests 3000]
 *                    [--shacl-parts 10,100,1000] [--dereference-rounds 5]
 *                    [--postgres-url URL] [--skip-build] [--show-statements]
 */
import { execFileSync } from 'node:child_process';
import { cpus, totalmem } from 'node:os';
import { parseArgs } from 'node:util';
import Sqlite from 'better-sqlite3';
import pg from 'pg';
import { loadProgramConfig } from '../src/program.js';
import { basicAuth } from '../test/codehost/helpers.js';
import { type FewestKey, fewestStatements } from './codehost-anchors.js';
import { type BenchServer, type DatabaseKind, startBenchServer } from './codehost-server.js';
import { type LoadFigures, runLoad } from './load.js';
import { commonOptions, databaseKinds, positive } from './options.js';
import { type HashingFigures, measureHashing } from './password-hashing.js';
import type { AnchorPlan, AnchorRoute } from './pg-anchor-server.js';
import { captureRequest, printStatements, replayOf } from './pg-anchors.js';
import { startPgCapture } from './pg-capture.js';
import { startAnchorServer } from './processes.js';
import {
  type AnchoredFigures,
  measureAnchoredRefdata,
  refdataAnchorTable,
} from './refdata-anchors.js';
import {
  type DereferenceFigures,
  dereferenceTable,
  measureDereference,
} from './refdata-dereference.js';
import { type ExportFigures, measureExport } from './refdata-export.js';
import {
  measureSearch,
  type SearchFigures,
  searchQueries,
  seedSearchCorpus,
  waitForIndex,
} from './refdata-search.js';
import { mixedCreate, startRefdataBenchServer } from './refdata-server.js';
import { measureShacl, type ShaclFigures } from './refdata-shacl.js';

const { values } = parseArgs({
  options: {
    ...commonOptions,
    duration: { type: 'string', default: '10' },
    connections: { type: 'string', default: '10' },
    'refresh-requests': { type: 'string', default: '15000' },
    services: { type: 'string', default: 'codehost,refdata' },
    'refdata-creates': { type: 'string', default: '10000' },
    'latency-creates': { type: 'string', default: '300' },
    'export-terms': { type: 'string', default: '100000' },
    'export-formats': {
      type: 'string',
      default: 'text/turtle,application/n-triples,application/ld+json,application/rdf+xml',
    },
    'search-resources': { type: 'string', default: '100000' },
    'search-requests': { type: 'string', default: '3000' },
    'shacl-parts': { type: 'string', default: '10,100,1000' },
    'dereference-rounds': { type: 'string', default: '5' },
    /** Print each codehost route's statements as captured on PostgreSQL. */
    'show-statements': { type: 'boolean', default: false },
  },
});

/** 1, 2, 3, ... on each call: unique names for generated resources. */
function counter(): () => number {
  let value = 0;
  return () => {
    value += 1;
    return value;
  };
}

const databases = databaseKinds(values.databases);
const duration = positive('duration', values.duration);
const connections = positive('connections', values.connections);
const refreshRequests = positive('refresh-requests', values['refresh-requests']);
const refdataCreates = positive('refdata-creates', values['refdata-creates']);
const latencyCreates = positive('latency-creates', values['latency-creates']);
const exportTerms = positive('export-terms', values['export-terms']);
const searchResources = positive('search-resources', values['search-resources']);
const searchRequests = positive('search-requests', values['search-requests']);
const dereferenceRounds = positive('dereference-rounds', values['dereference-rounds']);
const shaclParts = values['shacl-parts'].split(',').map((part) => positive('shacl-parts', part));
const services = values.services.split(',').map((name) => {
  if (name !== 'codehost' && name !== 'refdata') throw new Error(`unknown service "${name}"`);
  return name;
});
const out = (text: string) => process.stdout.write(`${text}\n`);

async function postgresVersion(url: string): Promise<string> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const result = await client.query<{ server_version: string }>('show server_version');
    return result.rows[0]?.server_version ?? 'unknown';
  } finally {
    await client.end();
  }
}

function hashingTable(rows: HashingFigures[]): string[] {
  return [
    '| argon2id memory | passes | lanes | verify, median | verify, p90 | verifications/s (all cores) |',
    '|---|---|---|---|---|---|',
    ...rows.map(
      (row) =>
        `| ${row.memoryKib} KiB | ${row.iterations} | ${row.parallelism} | ${row.verifyMedianMs.toFixed(1)} ms | ${row.verifyP90Ms.toFixed(1)} ms | ${row.verificationsPerSecond.toFixed(0)} |`,
    ),
  ];
}

function loadTable(rows: (LoadFigures & { database: string })[]): string[] {
  return [
    '| database | request | connections | requests | requests/s | of bare route | p50 | p99 | max | failures |',
    '|---|---|---|---|---|---|---|---|---|---|',
    ...rows.map((row) => {
      // Throughput as a share of the same server's bare route (/-/health) in this run.
      const bare = rows.find(
        (other) => other.database === row.database && other.name.startsWith('GET /-/health'),
      );
      const share = bare ? `${((row.perSecond / bare.perSecond) * 100).toFixed(0)} %` : '';
      return `| ${row.database} | ${row.name} | ${row.connections} | ${row.requests} | ${row.perSecond.toFixed(0)} | ${share} | ${row.latencyP50Ms} ms | ${row.latencyP99Ms} ms | ${row.latencyMaxMs} ms | ${row.failures} |`;
    }),
  ];
}

/** One request of each kind first, so a broken setup fails loudly rather than as a fast 401. */
async function checkSetup(server: BenchServer): Promise<void> {
  const user = await fetch(`${server.url}/api/v3/user`, {
    headers: { authorization: `Bearer ${server.accessToken}` },
  });
  if (user.status !== 200) throw new Error(`GET /api/v3/user answered ${user.status}`);
}

type RouteKey = FewestKey;

/** Each route's statements: as the route sends them, and the fewest that could answer it. */
type StatementCounts = Map<RouteKey, [own: number, fewest: number]>;

/** One benchmarked route of codehost's, as the load generator and the anchors send it. */
interface BenchRoute {
  key: RouteKey;
  name: string;
  method: 'GET' | 'PUT' | 'POST';
  path: string;
  headers: Record<string, string>;
  body?: string;
  /** Each request spends a refresh token (they rotate), so each has a body of its own. */
  spendsRefreshTokens?: boolean;
  /** Where the anchor finds the request's secret. */
  secret: AnchorRoute['secret'];
}

function benchRoutes(server: BenchServer): BenchRoute[] {
  const bearer = { authorization: `Bearer ${server.accessToken}` };
  const form = { 'content-type': 'application/x-www-form-urlencoded' };
  const settings = `/api/v4/projects/${server.projectId}/notification_settings`;
  return [
    {
      key: 'user',
      name: 'GET /api/v3/user, bearer token',
      method: 'GET',
      path: '/api/v3/user',
      headers: bearer,
      secret: 'bearer',
    },
    {
      key: 'get-settings',
      name: 'GET project notification settings, bearer token',
      method: 'GET',
      path: settings,
      headers: bearer,
      secret: 'bearer',
    },
    {
      key: 'put-settings',
      name: 'PUT project notification settings (JSON), bearer token',
      method: 'PUT',
      path: settings,
      headers: { ...bearer, 'content-type': 'application/json' },
      body: JSON.stringify({ level: 'custom', new_note: true, merge_merge_request: false }),
      secret: 'bearer',
    },
    {
      key: 'refresh',
      name: 'POST /oauth/token, refresh_token grant',
      method: 'POST',
      path: '/oauth/token',
      headers: { ...form, authorization: basicAuth(server.clientId, server.clientSecret) },
      spendsRefreshTokens: true,
      secret: { field: 'refresh_token' },
    },
    {
      key: 'password',
      name: 'POST /oauth/token, password grant (argon2 verify)',
      method: 'POST',
      path: '/oauth/token',
      headers: form,
      body: new URLSearchParams({
        grant_type: 'password',
        username: server.username,
        password: server.password,
      }).toString(),
      secret: { field: 'password' },
    },
  ];
}

const refreshBody = (token: string) =>
  new URLSearchParams({ grant_type: 'refresh_token', refresh_token: token }).toString();

/** How many requests the captures of one route send (see `captureRequest`). */
const CAPTURE_TRIES = 5;

/**
 * The anchors' plan: each route's statements as a second instance of the
 * program sends them (through the recording proxy), and the fewest by hand.
 */
async function anchorPlan(
  server: BenchServer,
  routes: BenchRoute[],
): Promise<{ plan: AnchorPlan; counts: StatementCounts }> {
  const capture = await startPgCapture(server.postgresUrl as string);
  const instance = await server.startInstance(capture.url);
  const fewest = fewestStatements(server);
  const plan: AnchorPlan = { routes: [] };
  const counts: StatementCounts = new Map();
  try {
    for (const route of routes) {
      const { statements, secret } = await captureRequest(capture, CAPTURE_TRIES, async () => {
        const token = route.spendsRefreshTokens ? server.refreshTokens.pop() : undefined;
        const response = await fetch(`${instance.url}${route.path}`, {
          method: route.method,
          headers: route.headers,
          ...(token ? { body: refreshBody(token) } : route.body ? { body: route.body } : {}),
        });
        return {
          response,
          secret: token ?? (route.key === 'password' ? server.password : server.accessToken),
        };
      });
      counts.set(route.key, [statements.length, fewest[route.key].statements.length]);
      if (values['show-statements']) printStatements(route.name, statements);
      const passwordRead = statements.findIndex((statement) =>
        Object.hasOwn(statement.firstRow ?? {}, 'password_hash'),
      );
      const base = { method: route.method, secret: route.secret };
      plan.routes.push({
        ...base,
        path: `/own/${route.key}`,
        statements: replayOf(statements, secret),
        ...(route.key === 'password' ? { verifyPasswordAfter: passwordRead + 1 } : {}),
      });
      plan.routes.push({ ...base, path: `/fewest/${route.key}`, ...fewest[route.key] });
    }
  } finally {
    await instance.stop();
    await capture.close();
  }
  return { plan, counts };
}

/** The pool size the service takes on PostgreSQL with this environment. */
interface RouteFigures extends LoadFigures {
  key?: RouteKey;
  /** Which server answered: ours, or an anchor. */
  server: 'ours' | 'own statements' | 'fewest statements';
}

async function loadRuns(
  kind: DatabaseKind,
  server: BenchServer,
  anchorUrl: string | undefined,
): Promise<RouteFigures[]> {
  await checkSetup(server);
  const figures: RouteFigures[] = [];
  const step = async (
    run: Parameters<typeof runLoad>[0],
    key: RouteKey | undefined,
    by: RouteFigures['server'],
  ) => {
    process.stderr.write(`  ${kind}: ${run.name}${by === 'ours' ? '' : ` (anchor: ${by})`}\n`);
    figures.push({ ...(await runLoad(run)), key, server: by });
  };

  await step(
    {
      name: 'GET /-/health (no database)',
      url: `${server.url}/-/health`,
      connections,
      durationSeconds: duration,
      expectedStatus: 200,
    },
    undefined,
    'ours',
  );
  for (const route of benchRoutes(server)) {
    const servers: [RouteFigures['server'], string][] = [['ours', `${server.url}${route.path}`]];
    if (anchorUrl) {
      servers.push(['own statements', `${anchorUrl}/own/${route.key}`]);
      servers.push(['fewest statements', `${anchorUrl}/fewest/${route.key}`]);
    }
    // Each server in turn, so that a slower minute of the machine does not favour one.
    for (const [by, url] of servers) {
      const tokens = route.spendsRefreshTokens
        ? server.refreshTokens.splice(0, refreshRequests)
        : [];
      await step(
        {
          name: route.name,
          url,
          connections,
          method: route.method,
          headers: route.headers,
          expectedStatus: 200,
          ...(route.spendsRefreshTokens
            ? { amount: tokens.length, nextBody: () => refreshBody(tokens.pop() ?? 'spent') }
            : { durationSeconds: duration, ...(route.body ? { body: route.body } : {}) }),
        },
        route.key,
        by,
      );
    }
  }
  return figures;
}

/**
 * PostgreSQL next to its anchors: each route against the same statements and
 * the fewest statements through a bare `pg` pool, and against SQLite in the same run.
 */
function anchorTable(
  rows: (RouteFigures & { database: string })[],
  counts: StatementCounts,
): string[] {
  const find = (database: string, key: RouteKey, by: RouteFigures['server']) =>
    rows.find((row) => row.database === database && row.key === key && row.server === by);
  const bare = rows.find((row) => row.database === 'postgres' && row.key === undefined);
  const percent = (part: number | undefined, whole: number | undefined) =>
    part === undefined || !whole ? 'n/a' : `${((part / whole) * 100).toFixed(0)} %`;
  const lines = [
    '| route | statements | PostgreSQL, requests/s | of bare route | same statements, bare `pg` | ours of that | fewest statements | fewest, bare `pg` | ours of that | SQLite, requests/s | PostgreSQL of SQLite |',
    '|---|---|---|---|---|---|---|---|---|---|---|',
  ];
  for (const [key, [ownCount, fewestCount]] of counts) {
    const ours = find('postgres', key, 'ours');
    const own = find('postgres', key, 'own statements');
    const fewest = find('postgres', key, 'fewest statements');
    const sqlite = find('sqlite', key, 'ours');
    if (!ours) continue;
    lines.push(
      `| ${ours.name} | ${ownCount} | ${ours.perSecond.toFixed(0)} | ${percent(ours.perSecond, bare?.perSecond)} | ${own?.perSecond.toFixed(0) ?? 'n/a'} | ${percent(ours.perSecond, own?.perSecond)} | ${fewestCount} | ${fewest?.perSecond.toFixed(0) ?? 'n/a'} | ${percent(ours.perSecond, fewest?.perSecond)} | ${sqlite?.perSecond.toFixed(0) ?? 'n/a'} | ${percent(ours.perSecond, sqlite?.perSecond)} |`,
    );
  }
  return lines;
}

if (!values['skip-build']) {
  process.stderr.write('Building (npm run build)\n');
  execFileSync('npm', ['run', '-s', 'build'], { stdio: 'inherit' });
}

const cpuList = cpus();
const sqliteVersion = (
  new Sqlite(':memory:').prepare('select sqlite_version() as version').get() as { version: string }
).version;
out('## Machine');
out('');
out(`- CPU: ${cpuList.length} × ${cpuList[0]?.model.trim() ?? 'unknown'}`);
out(`- Memory: ${(totalmem() / 2 ** 30).toFixed(0)} GiB`);
out(`- Node.js ${process.version}, SQLite ${sqliteVersion} (better-sqlite3)`);
if (databases.includes('postgres')) {
  out(`- PostgreSQL ${await postgresVersion(values['postgres-url'])} on the same machine`);
}
out('- Load generator (autocannon) on the same machine, sharing its cores with the server');
out('');

process.stderr.write('Measuring argon2id\n');
const defaults = loadProgramConfig({}).security.passwordHash;
const hashing: HashingFigures[] = [];
for (const cost of [
  defaults,
  { memoryKib: 47104, iterations: 1, parallelism: 1 },
  { memoryKib: 65536, iterations: 3, parallelism: 1 },
]) {
  hashing.push(await measureHashing(cost));
}
out('## Password hashing');
out('');
for (const line of hashingTable(hashing)) out(line);
out('');

const rows: (LoadFigures & { database: string })[] = [];
if (services.includes('codehost')) {
  const codehostRows: (RouteFigures & { database: string })[] = [];
  let statementCounts: StatementCounts = new Map();
  for (const kind of databases) {
    process.stderr.write(`Starting codehost on ${kind}\n`);
    const withAnchors = kind === 'postgres';
    const server = await startBenchServer({
      kind,
      postgresAdminUrl: values['postgres-url'],
      // The anchors spend as many as the route, and the captures a few.
      refreshTokens: withAnchors ? refreshRequests * 3 + CAPTURE_TRIES : refreshRequests,
    });
    let anchor: { url: string; stop(): Promise<void> } | undefined;
    try {
      if (withAnchors) {
        process.stderr.write("  postgres: capturing each route's statements\n");
        const captured = await anchorPlan(server, benchRoutes(server));
        statementCounts = captured.counts;
        anchor = await startAnchorServer(captured.plan, 'codehost', server.postgresUrl as string);
      }
      for (const figures of await loadRuns(kind, server, anchor?.url)) {
        codehostRows.push({ ...figures, database: kind });
      }
    } finally {
      await anchor?.stop();
      await server.stop();
    }
  }
  rows.push(...codehostRows);
  out(`## HTTP load (${duration} s per run; the refresh run spends ${refreshRequests} tokens)`);
  out('');
  for (const line of loadTable(codehostRows.filter((row) => row.server === 'ours'))) out(line);
  out('');
  if (statementCounts.size > 0) {
    out('## PostgreSQL next to its anchors (a bare Fastify route and `pg` pool, same database)');
    out('');
    for (const line of anchorTable(codehostRows, statementCounts)) out(line);
    out('');
  }
}

const refdataRows: (LoadFigures & { database: string })[] = [];
const dereferenceRows: (DereferenceFigures & { database: string })[] = [];
const exports: (ExportFigures & { database: string })[] = [];
const searches: (SearchFigures & { database: string })[] = [];
const shacls: (ShaclFigures & { database: string })[] = [];
const anchoredRefdata: AnchoredFigures[] = [];
if (services.includes('refdata')) {
  for (const kind of databases) {
    process.stderr.write(`Starting refdata on ${kind}\n`);
    const server = await startRefdataBenchServer({
      kind,
      postgresAdminUrl: values['postgres-url'],
    });
    const headers = { authorization: `Bearer ${server.token}`, 'content-type': 'application/json' };
    try {
      const single = counter();
      process.stderr.write(`  ${kind}: single creates\n`);
      refdataRows.push({
        database: kind,
        ...(await runLoad({
          name: 'POST /cfihos/dimension, one at a time',
          url: server.url,
          connections: 1,
          amount: latencyCreates,
          method: 'POST',
          headers,
          nextRequest: () => ({
            path: '/cfihos/dimension',
            body: JSON.stringify({
              changeJustification: 'Benchmark',
              name: `Single ${single()}`,
              description: 'One create at a time',
              ontology: server.refs.library,
              dimensionCode: 'S',
            }),
          }),
          expectedStatus: 201,
        })),
      });
      const mixed = counter();
      process.stderr.write(`  ${kind}: ${refdataCreates} mixed creates\n`);
      refdataRows.push({
        database: kind,
        ...(await runLoad({
          name: `POST, ${refdataCreates} creates over 11 families`,
          url: server.url,
          connections,
          amount: refdataCreates,
          method: 'POST',
          headers,
          nextRequest: () => mixedCreate(mixed(), server.refs),
          expectedStatus: 201,
        })),
      });
      // Dereferencing, next to the same server's bare route, in rounds that take turns.
      process.stderr.write(`  ${kind}: the bare route, then one class in three formats\n`);
      for (const figures of await measureDereference(server, {
        connections,
        rounds: dereferenceRounds,
        secondsPerRun: Math.max(1, Math.round(duration / 2)),
      }))
        dereferenceRows.push({ ...figures, database: kind });
      process.stderr.write(
        `  ${kind}: complete SHACL of blocks with ${shaclParts.join(', ')} parts\n`,
      );
      for (const figures of await measureShacl(server, shaclParts))
        shacls.push({ ...figures, database: kind });
      process.stderr.write(`  ${kind}: search over ${searchResources} generated resources\n`);
      const libraries = await seedSearchCorpus(server, searchResources);
      await waitForIndex(server, libraries, searchResources);
      searches.push({
        ...(await measureSearch(server, searchQueries(libraries), searchRequests, connections)),
        database: kind,
      });
      // Beside the corpus, so that a search has something to find.
      anchoredRefdata.push(
        ...(await measureAnchoredRefdata(kind, server, {
          connections,
          seconds: duration,
          schema: 'refdata',
          showStatements: values['show-statements'],
        })),
      );
      process.stderr.write(`  ${kind}: level-3 export of ${exportTerms} terms\n`);
      for (const figures of await measureExport(
        server,
        exportTerms,
        values['export-formats'].split(','),
      )) {
        exports.push({ ...figures, database: kind });
      }
    } finally {
      await server.stop();
    }
  }
  out('## refdata: creating resources through HTTP');
  out('');
  out(
    '| database | run | connections | requests | seconds | requests/s | p50 | p99 | max | failures |',
  );
  out('|---|---|---|---|---|---|---|---|---|---|');
  for (const row of refdataRows) {
    out(
      `| ${row.database} | ${row.name} | ${row.connections} | ${row.requests} | ${row.seconds.toFixed(1)} | ${row.perSecond.toFixed(0)} | ${row.latencyP50Ms} ms | ${row.latencyP99Ms} ms | ${row.latencyMaxMs} ms | ${row.failures} |`,
    );
  }
}
if (dereferenceRows.length > 0) {
  out('');
  out(
    `## refdata: dereferencing one class, next to the bare route (${dereferenceRounds} rounds of each)`,
  );
  out('');
  for (const line of dereferenceTable(dereferenceRows)) out(line);
}
if (shacls.length > 0) {
  out('');
  out(
    '## refdata: complete SHACL of a block with N transitive parts (10 attribute references each)',
  );
  out('');
  out('| database | parts | attribute references | seconds | size | server peak memory |');
  out('|---|---|---|---|---|---|');
  for (const row of shacls) {
    out(
      `| ${row.database} | ${row.parts} | ${row.attributeReferences} | ${row.seconds.toFixed(2)} | ${row.megabytes.toFixed(1)} MB | ${row.peakMemoryMib === undefined ? 'n/a' : `${row.peakMemoryMib.toFixed(0)} MiB`} |`,
    );
  }
}
if (searches.length > 0) {
  out('');
  out(
    `## refdata: search over ${searchResources} generated resources (${connections} clients, 12 queries in turn)`,
  );
  out('');
  out('| database | requests | seconds | requests/s | p50 | p95 | p99 | failures |');
  out('|---|---|---|---|---|---|---|---|');
  for (const row of searches) {
    out(
      `| ${row.database} | ${row.requests} | ${row.seconds.toFixed(1)} | ${row.perSecond.toFixed(0)} | ${row.p50.toFixed(1)} ms | ${row.p95.toFixed(1)} ms | ${row.p99.toFixed(1)} ms | ${row.failures} |`,
    );
  }
}
if (anchoredRefdata.some((row) => row.database === 'postgres')) {
  out('');
  out('## refdata: PostgreSQL next to its anchors (a bare Fastify route and `pg` pool)');
  out('');
  for (const line of refdataAnchorTable(anchoredRefdata)) out(line);
}
if (exports.length > 0) {
  out('');
  out(`## refdata: level-3 export of a library of ${exportTerms} classes`);
  out('');
  out('| database | format | seconds | size | server peak memory before | after |');
  out('|---|---|---|---|---|---|');
  for (const row of exports) {
    const mib = (value: number | undefined) =>
      value === undefined ? 'n/a' : `${value.toFixed(0)} MiB`;
    out(
      `| ${row.database} | ${row.format} | ${row.seconds.toFixed(1)} | ${row.megabytes.toFixed(1)} MB | ${mib(row.memoryBeforeMib)} | ${mib(row.peakMemoryMib)} |`,
    );
  }
}
rows.push(...refdataRows);
const failed = [
  ...rows,
  ...anchoredRefdata,
  ...dereferenceRows,
  ...searches.map((row) => ({ ...row, name: 'search' })),
].filter((row) => row.failures > 0);
if (failed.length > 0) {
  process.stderr.write(
    `Unexpected answers in: ${failed.map((row) => `${row.database} ${row.name}`).join('; ')}\n`,
  );
  process.exitCode = 1;
}
