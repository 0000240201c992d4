/**
 * SPARQL over a library of N approved classes in a tree (each class under the
 * class n/10, so a class two levels below the root heads a subtree of about a
 * thousand): how long an instance takes to build its dataset and what it
 * holds in memory, then three queries a consumer asks, each through /sparql
 * (one client, p50 and p95; then 16 clients) and, in the same run, through
 * Oxigraph alone in this process on the same quads (the anchor: the engine
 * with no HTTP, thread or database).
 *
 * Then, when Debian's Virtuoso is installed, the same through /sparql with the
 * published view kept in a Virtuoso of its own (the external-store mode), and
 * through Virtuoso alone, asked over its own HTTP endpoint with the same graphs.
 *
 *   npm run bench:sparql -- [--databases sqlite,postgres] [--classes 100000]
 *                           [--per-query 50] [--requests 160] [--clients 16]
 *                           [--postgres-url URL] [--skip-build] [--skip-virtuoso]
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import oxigraph from 'oxigraph';
import { openDatabase } from '../src/platform/db/connection.js';
import { loadProgramConfig } from '../src/program.js';
import type { RefdataTables } from '../src/refdata/db/tables.js';
import { FamilyRegistry } from '../src/refdata/families/registry.js';
import { ResourceStore } from '../src/refdata/resources/store.js';
import { PUBLISHED_STATUSES, resourceQuads } from '../src/refdata/sparql/dataset.js';
import { startVirtuoso, VIRTUOSO_PATH } from '../test/refdata/virtuoso.js';
import { classTree, seedResources } from './bulk.js';
import { commonOptions, databaseKinds, positive } from './options.js';
import { peakMemoryMib, residentMemoryMib, settled } from './processes.js';
import { measurePaths, percentiles } from './refdata-search.js';
import { type RefdataBenchServer, startRefdataBenchServer } from './refdata-server.js';

const { values } = parseArgs({
  options: {
    ...commonOptions,
    classes: { type: 'string', default: '100000' },
    'per-query': { type: 'string', default: '50' },
    requests: { type: 'string', default: '160' },
    clients: { type: 'string', default: '16' },
    'skip-virtuoso': { type: 'boolean', default: false },
  },
});
const databases = databaseKinds(values.databases);
const classes = positive('classes', values.classes);
const perQuery = positive('per-query', values['per-query']);
const requests = positive('requests', values.requests);
const clients = positive('clients', values.clients);
const out = (text: string) => process.stdout.write(`${text}\n`);
const mib = (value: number | undefined) => (value === undefined ? '?' : `${Math.round(value)} MiB`);
const ms = (value: number) => (value < 1 ? value.toFixed(2) : value.toFixed(1));

const RESULTS_JSON = 'application/sparql-results+json';

function queries(library: string) {
  return [
    {
      name: 'subtree with labels, by label (class 11: about 1,100 classes)',
      text: `PREFIX rdfs: <http://www.w3.org/2000/01/rdf-schema#> PREFIX skos: <http://www.w3.org/2004/02/skos/core#> SELECT ?x ?label WHERE { ?x rdfs:subClassOf+ <${library}/tree/11> ; skos:prefLabel ?label } ORDER BY ?label`,
      accept: RESULTS_JSON,
    },
    {
      name: 'one class described',
      text: `DESCRIBE <${library}/tree/4242>`,
      accept: 'application/n-triples',
    },
    {
      name: 'count by status',
      text: 'PREFIX rdl: <https://w3id.org/refdata/vocab#> SELECT ?status (COUNT(?x) AS ?n) WHERE { ?x rdl:status ?status } GROUP BY ?status',
      accept: RESULTS_JSON,
    },
  ];
}

/** Waits until the instance's dataset answers with `count` classes of the tree. */
async function waitForDataset(server: RefdataBenchServer, library: string, count: number) {
  const query = `SELECT (COUNT(?x) AS ?n) WHERE { GRAPH <${library}> { ?x <http://www.w3.org/2000/01/rdf-schema#subClassOf> ?y } }`;
  for (;;) {
    const response = await fetch(`${server.url}/sparql?query=${encodeURIComponent(query)}`, {
      headers: { authorization: `Bearer ${server.token}`, accept: RESULTS_JSON },
    });
    if (response.status === 200) {
      const body = (await response.json()) as {
        results: { bindings: { n: { value: string } }[] };
      };
      if (Number(body.results.bindings[0]?.n.value) >= count) return;
    } else await response.body?.cancel();
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

/** Waits until `/sparql` first answers 200 (a start answers 503 until a copy of each view is ready). */
async function waitForAnswer(server: RefdataBenchServer) {
  for (;;) {
    const response = await fetch(`${server.url}/sparql?query=${encodeURIComponent('ASK {}')}`, {
      headers: { authorization: `Bearer ${server.token}`, accept: RESULTS_JSON },
    });
    await response.body?.cancel();
    if (response.status === 200) return;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** Oxigraph alone, loaded in this process with the quads the instance builds from. */
async function engineAlone(server: RefdataBenchServer) {
  const database = openDatabase<RefdataTables>(
    loadProgramConfig(server.env).services.refdata.database,
  );
  // Oxigraph's memory is WebAssembly memory, outside the JavaScript heap: one copy of a view.
  const externalBefore = process.memoryUsage().external;
  const store = new oxigraph.Store();
  // The engine's own loading, the anchor of a start: the reading and writing around it not counted.
  let loadMilliseconds = 0;
  try {
    const context = { families: new FamilyRegistry(), iriBase: server.url };
    const rows = new ResourceStore(database.db, () => undefined);
    let after = 0;
    for (;;) {
      const batch = await rows
        .selectWithFacts()
        .where('resource.status', 'in', PUBLISHED_STATUSES)
        .where('resource.id', '>', after)
        .orderBy('resource.id')
        .limit(2000)
        .execute();
      if (batch.length === 0) break;
      const nquads = resourceQuads(context, batch);
      const loading = performance.now();
      store.load(nquads, { format: 'application/n-quads', no_transaction: true });
      loadMilliseconds += performance.now() - loading;
      after = batch[batch.length - 1]?.id ?? after;
    }
  } finally {
    await database.close();
  }
  const copyMib = (process.memoryUsage().external - externalBefore) / 1024 ** 2;
  const quads = store.size;
  const measure = (text: string, accept: string, times: number) => {
    const format = accept === RESULTS_JSON ? 'json' : accept;
    const options = { use_default_graph_as_union: true, results_format: format };
    store.query(text, options);
    const latencies: number[] = [];
    for (let n = 0; n < times; n += 1) {
      const started = performance.now();
      store.query(text, options);
      latencies.push(performance.now() - started);
    }
    return percentiles(latencies);
  };
  return { measure, copyMib, quads, loadSeconds: loadMilliseconds / 1000 };
}

/**
 * The same queries with the published view in a Virtuoso the instance keeps:
 * how long the instance takes to write it there from scratch, then each query
 * through /sparql and through Virtuoso alone (its own endpoint, the same graphs).
 */
async function throughVirtuoso(
  server: RefdataBenchServer,
  library: string,
  asked: ReturnType<typeof queries>,
  path: (text: string) => string,
) {
  // About 1.3 GiB of buffers, as Virtuoso's own guide gives for a few million triples.
  const store = await startVirtuoso({ buffers: 170_000 });
  try {
    process.stderr.write('virtuoso: the instance writes the published view to it\n');
    const spawned = await server.restart({
      ...store.env,
      REFDATA_SPARQL_MAX_CONCURRENT: String(clients * 2),
      // One token asks for all 16: one client, given every copy here.
      REFDATA_SPARQL_CLIENT_CONCURRENT: String(clients * 2),
      REFDATA_SPARQL_TIMEOUT_MS: '600000',
    });
    await waitForDataset(server, library, classes);
    const synced = performance.now();
    const memory = await residentMemoryMib(server.pid);
    const graphs = [library, `${server.url}/graphs/without-library`];
    const alone = async (text: string, accept: string) => {
      const body = new URLSearchParams({ query: text });
      for (const graph of graphs) {
        body.append('default-graph-uri', graph);
        body.append('named-graph-uri', graph);
      }
      const latencies: number[] = [];
      for (let n = 0; n < perQuery + 5; n += 1) {
        const started = performance.now();
        const response = await fetch(`${store.httpUrl}/sparql`, {
          method: 'POST',
          headers: { accept, 'content-type': 'application/x-www-form-urlencoded' },
          body,
        });
        await response.text();
        if (!response.ok) throw new Error(`Virtuoso answered ${response.status}`);
        // The first five are unmeasured, as through /sparql.
        if (n >= 5) latencies.push(performance.now() - started);
      }
      return percentiles(latencies);
    };
    out('');
    out(`### The published view in Virtuoso (${classes} classes, ${kindLabel(server)})`);
    out('');
    out(
      `Spawn to the whole view written to Virtuoso and queryable: ${((synced - spawned) / 1000).toFixed(1)} s. refdata's resident memory (the working view alone beside the store): ${mib(memory)}.`,
    );
    out('');
    out(
      '| query | /sparql → Virtuoso p50, one client | p95 | Virtuoso alone p50 (its HTTP endpoint) | /sparql / alone | /sparql p95, 16 clients | requests/s, 16 clients |',
    );
    out('|---|---|---|---|---|---|---|');
    for (const query of asked) {
      const headers = { accept: query.accept };
      await measurePaths(server, [path(query.text)], 5, 1, headers);
      const one = await measurePaths(server, [path(query.text)], perQuery, 1, headers);
      const direct = await alone(query.text, query.accept);
      const many = await measurePaths(server, [path(query.text)], requests, clients, headers, 120);
      if (one.failures > 0 || many.failures > 0) throw new Error(`${query.name}: failures`);
      out(
        `| ${query.name} | ${ms(one.p50)} ms | ${ms(one.p95)} ms | ${ms(direct.p50)} ms | ${(one.p50 / direct.p50).toFixed(2)} | ${ms(many.p95)} ms | ${many.perSecond.toFixed(0)} |`,
      );
    }
  } finally {
    await store.close();
  }
}

function kindLabel(server: RefdataBenchServer): string {
  return server.env.DATABASE_URL ? 'postgres' : 'sqlite';
}

if (!values['skip-build']) execFileSync('npm', ['run', '-s', 'build'], { stdio: 'inherit' });
out(
  `Node ${process.version}, ${cpus().length} cores; ${classes} approved classes in one library; ${perQuery} askings per query by one client, then ${requests} requests from ${clients} clients; load generator on the same machine.`,
);
for (const kind of databases) {
  const server = await startRefdataBenchServer({ kind, postgresAdminUrl: values['postgres-url'] });
  try {
    const library = server.refs.library;
    process.stderr.write(`${kind}: seeding ${classes} classes\n`);
    await seedResources(server, classTree(library, classes));
    const empty = await residentMemoryMib(server.pid);
    // The seeding instance holds every class before it stops: what it keeps is whole.
    await waitForDataset(server, library, classes);
    // Room for every client in line, and time for the last in line: the limits are
    // the tests' to check; here the engine is measured.
    const limits = {
      REFDATA_SPARQL_MAX_CONCURRENT: String(clients * 2),
      // One token asks for all 16: one client, given every copy here.
      REFDATA_SPARQL_CLIENT_CONCURRENT: String(clients * 2),
      REFDATA_SPARQL_TIMEOUT_MS: '600000',
    };
    // Two starts: one with nothing kept (a directory of its own, empty), which builds the
    // dataset from the database; then one more on that directory, which loads what the
    // first kept when it stopped.
    const kept = mkdtempSync(join(tmpdir(), 'bench-sparql-kept-'));
    const starts: { how: string; first: number; settled: number; peak?: number }[] = [];
    try {
      for (const how of ['built from the database', 'loaded from what the last run kept']) {
        process.stderr.write(`${kind}: a fresh instance, its dataset ${how}\n`);
        const spawned = await server.restart({ ...limits, REFDATA_SPARQL_SNAPSHOT_DIR: kept });
        await waitForAnswer(server);
        const first = performance.now();
        await waitForDataset(server, library, classes);
        // Every copy filled, and the search index built: the process at rest.
        await settled(server.pid, 600_000);
        const quiet = performance.now();
        starts.push({
          how,
          first: (first - spawned) / 1000,
          settled: (quiet - spawned) / 1000,
          peak: await peakMemoryMib(server.pid),
        });
      }
    } finally {
      // The instance in use keeps its files there until it stops; the directory goes with the run.
      process.on('exit', () => rmSync(kept, { recursive: true, force: true }));
    }
    await new Promise((resolve) => setTimeout(resolve, 2000));
    const memory = await residentMemoryMib(server.pid);
    const alone = await engineAlone(server);
    const asked = queries(library);
    const path = (text: string) => `/sparql?query=${encodeURIComponent(text)}`;
    const bare = await measurePaths(server, ['/-/health'], perQuery, 1);
    out('');
    out(`## ${classes} classes on ${kind}`);
    out('');
    out(
      `Resident memory: ${mib(empty)} before seeding, ${mib(memory)} with the dataset (and the search index). One copy of the published view (Oxigraph alone, ${alone.quads} quads): ${mib(alone.copyMib)} of WebAssembly memory. Bare route \`/-/health\` p50 ${ms(bare.p50)} ms.`,
    );
    out('');
    out(
      '| start | spawn to the first 200 from `/sparql` | Oxigraph alone loading the published view (the anchor) | start / anchor | spawn to settled (every copy filled, the search index built) | peak resident memory |',
    );
    out('|---|---|---|---|---|---|');
    for (const start of starts)
      out(
        `| ${start.how} | ${start.first.toFixed(1)} s | ${alone.loadSeconds.toFixed(1)} s | ${(start.first / alone.loadSeconds).toFixed(1)} | ${start.settled.toFixed(1)} s | ${mib(start.peak)} |`,
      );
    out('');
    out(
      '| query | /sparql p50, one client | /sparql p95, one client | Oxigraph alone p50 | /sparql / alone | /sparql p95, 16 clients | requests/s, 16 clients |',
    );
    out('|---|---|---|---|---|---|---|');
    for (const query of asked) {
      const headers = { accept: query.accept };
      // Once unmeasured: the first asking pays for compiling the path.
      await measurePaths(server, [path(query.text)], 5, 1, headers);
      const one = await measurePaths(server, [path(query.text)], perQuery, 1, headers);
      const engine = alone.measure(query.text, query.accept, perQuery);
      // Sixteen in line for one thread: the last may wait well past autocannon's 10 s.
      const many = await measurePaths(server, [path(query.text)], requests, clients, headers, 120);
      if (one.failures > 0 || many.failures > 0) throw new Error(`${query.name}: failures`);
      out(
        `| ${query.name} | ${ms(one.p50)} ms | ${ms(one.p95)} ms | ${ms(engine.p50)} ms | ${(one.p50 / engine.p50).toFixed(2)} | ${ms(many.p95)} ms | ${many.perSecond.toFixed(0)} |`,
      );
    }
    if (!values['skip-virtuoso'] && existsSync(VIRTUOSO_PATH)) {
      await throughVirtuoso(server, library, asked, path);
    }
  } finally {
    await server.stop();
  }
}
