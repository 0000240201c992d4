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
 *                    [--postgres-url URL] [--skip-build]
 */
import { execFileSync } from 'node:child_process';
import { cpus, totalmem } from 'node:os';
import { parseArgs } from 'node:util';
import Sqlite from 'better-sqlite3';
import pg from 'pg';
import { loadProgramConfig } from '../src/program.js';
import { basicAuth } from '../test/codehost/helpers.js';
import { type BenchServer, type DatabaseKind, startBenchServer } from './codehost-server.js';
import { type LoadFigures, runLoad } from './load.js';
import { commonOptions, databaseKinds, positive } from './options.js';
import { type HashingFigures, measureHashing } from './password-hashing.js';
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

async function loadRuns(kind: DatabaseKind, server: BenchServer): Promise<LoadFigures[]> {
  await checkSetup(server);
  const clientAuthorization = basicAuth(server.clientId, server.clientSecret);
  const form = { 'content-type': 'application/x-www-form-urlencoded' };
  const refreshTokens = [...server.refreshTokens];
  const figures: LoadFigures[] = [];
  const step = async (run: Parameters<typeof runLoad>[0]) => {
    process.stderr.write(`  ${kind}: ${run.name}\n`);
    figures.push(await runLoad(run));
  };

  await step({
    name: 'GET /-/health (no database)',
    url: `${server.url}/-/health`,
    connections,
    durationSeconds: duration,
    expectedStatus: 200,
  });
  await step({
    name: 'GET /api/v3/user, bearer token',
    url: `${server.url}/api/v3/user`,
    connections,
    durationSeconds: duration,
    headers: { authorization: `Bearer ${server.accessToken}` },
    expectedStatus: 200,
  });
  const settings = `${server.url}/api/v4/projects/${server.projectId}/notification_settings`;
  await step({
    name: 'GET project notification settings, bearer token',
    url: settings,
    connections,
    durationSeconds: duration,
    headers: { authorization: `Bearer ${server.accessToken}` },
    expectedStatus: 200,
  });
  await step({
    name: 'PUT project notification settings (JSON), bearer token',
    url: settings,
    connections,
    durationSeconds: duration,
    method: 'PUT',
    headers: { authorization: `Bearer ${server.accessToken}`, 'content-type': 'application/json' },
    body: JSON.stringify({ level: 'custom', new_note: true, merge_merge_request: false }),
    expectedStatus: 200,
  });
  await step({
    name: 'POST /oauth/token, refresh_token grant',
    url: `${server.url}/oauth/token`,
    connections,
    amount: refreshTokens.length,
    method: 'POST',
    headers: { ...form, authorization: clientAuthorization },
    nextBody: () =>
      new URLSearchParams({
        grant_type: 'refresh_token',
        refresh_token: refreshTokens.pop() ?? 'spent',
      }).toString(),
    expectedStatus: 200,
  });
  await step({
    name: 'POST /oauth/token, password grant (argon2 verify)',
    url: `${server.url}/oauth/token`,
    connections,
    durationSeconds: duration,
    method: 'POST',
    headers: form,
    body: new URLSearchParams({
      grant_type: 'password',
      username: server.username,
      password: server.password,
    }).toString(),
    expectedStatus: 200,
  });
  return figures;
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
  for (const kind of databases) {
    process.stderr.write(`Starting codehost on ${kind}\n`);
    const server = await startBenchServer({
      kind,
      postgresAdminUrl: values['postgres-url'],
      refreshTokens: refreshRequests,
    });
    try {
      for (const figures of await loadRuns(kind, server)) rows.push({ ...figures, database: kind });
    } finally {
      await server.stop();
    }
  }
  out(`## HTTP load (${duration} s per run; the refresh run spends ${refreshRequests} tokens)`);
  out('');
  for (const line of loadTable(rows)) out(line);
  out('');
}

const refdataRows: (LoadFigures & { database: string })[] = [];
const dereferenceRows: (DereferenceFigures & { database: string })[] = [];
const exports: (ExportFigures & { database: string })[] = [];
const searches: (SearchFigures & { database: string })[] = [];
const shacls: (ShaclFigures & { database: string })[] = [];
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
  ...dereferenceRows,
  ...searches.map((row) => ({ ...row, name: 'search' })),
].filter((row) => row.failures > 0);
if (failed.length > 0) {
  process.stderr.write(
    `Unexpected answers in: ${failed.map((row) => `${row.database} ${row.name}`).join('; ')}\n`,
  );
  process.exitCode = 1;
}
