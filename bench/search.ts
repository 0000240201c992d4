/**
 * refdata search at scale: for each database and corpus size, the time and
 * memory an instance takes to build its index at start, each query of the mix
 * asked by one client next to raw SQLite FTS5 on the same resources, and the
 * mix under concurrent clients. Each is measured twice: afresh (`Cache-Control:
 * no-cache`, every search matched and ranked) and asked again (answered from
 * the answers the instance keeps). Prints Markdown for docs/performance.md.
 *
 *   npm run bench:search -- [--databases sqlite,postgres] [--resources 10000,100000]
 *                           [--clients 16] [--requests 3000] [--per-query 50]
 *                           [--postgres-url URL] [--skip-build] [--languages]
 *
 * `--languages`: a third of the resources carry their name and definition in two
 * more languages and a synonym (a multilingual library). `BENCH_PROGRAM` runs the
 * servers from another build, to measure two versions in turn.
 */
import { execFileSync } from 'node:child_process';
import { cpus } from 'node:os';
import { parseArgs } from 'node:util';
import { buildFtsAnchor } from './fts-anchor.js';
import { buildIndexAlone } from './index-alone.js';
import { commonOptions, databaseKinds, positive } from './options.js';
import { residentMemoryMib, settled } from './processes.js';
import {
  askingHeaders,
  measureEachQuery,
  measurePaths,
  measureSearch,
  searchQueries,
  seedSearchCorpus,
  waitForIndex,
} from './refdata-search.js';
import { startRefdataBenchServer } from './refdata-server.js';

const { values } = parseArgs({
  options: {
    ...commonOptions,
    resources: { type: 'string', default: '10000,100000' },
    clients: { type: 'string', default: '16' },
    requests: { type: 'string', default: '3000' },
    'per-query': { type: 'string', default: '50' },
    languages: { type: 'boolean', default: false },
    // Seconds to wait once the index is built, for what else an instance builds at start.
    settle: { type: 'string', default: '0' },
  },
});

const databases = databaseKinds(values.databases);
const sizes = values.resources.split(',').map((size) => positive('resources', size));
const clients = positive('clients', values.clients);
const requests = positive('requests', values.requests);
const perQuery = positive('per-query', values['per-query']);
const out = (text: string) => process.stdout.write(`${text}\n`);
const ms = (value: number | undefined) =>
  value === undefined ? 'n/a' : `${value.toFixed(value < 0.1 ? 3 : 2)} ms`;
const mib = (value: number | undefined) =>
  value === undefined ? 'n/a' : `${value.toFixed(0)} MiB`;

if (!values['skip-build']) execFileSync('npm', ['run', '-s', 'build'], { stdio: 'inherit' });
out(
  `Node ${process.version}, ${cpus().length} cores; ${clients} clients; load generator on the same machine.`,
);

for (const size of sizes) {
  for (const kind of databases) {
    process.stderr.write(`${kind}, ${size} resources: seeding\n`);
    const server = await startRefdataBenchServer({
      kind,
      postgresAdminUrl: values['postgres-url'],
    });
    try {
      const emptyMib = await residentMemoryMib(server.pid);
      const libraries = await seedSearchCorpus(server, size, { languages: values.languages });
      const written = performance.now();
      // At once, on the instance that took the writes: its followers (the search index,
      // each SPARQL copy) take them in meanwhile, on the cores the requests need. First
      // the mix twice by one client, unmeasured, as the settled instance below is asked
      // one query at a time before its load, so that neither load meets the search path
      // not yet compiled; no more (one second), so that the load meets the followers.
      process.stderr.write(
        `${kind}, ${size} resources: ${clients} clients right after the write\n`,
      );
      const mix = searchQueries(libraries).map((query) => `/search/search-index?${query}`);
      await measurePaths(server, mix, mix.length * 2, 1, askingHeaders('afresh'));
      const loadStarted = performance.now();
      const afterWrite = await measureSearch(
        server,
        searchQueries(libraries),
        requests,
        clients,
        'afresh',
      );
      const loadEnded = performance.now();
      // Once the writing instance has taken the writes in (its followers done), a fresh
      // instance on the seeded database: from start to searchable is the build.
      await settled(server.pid, 600_000);
      const followersDone = performance.now();
      process.stderr.write(`${kind}, ${size} resources: building at start\n`);
      const stopping = performance.now();
      const started = await server.restart({ REFDATA_SEARCH_START_WAIT_MS: '0' });
      process.stderr.write(
        `${kind}, ${size} resources: the seeding instance stopped in ${((started - stopping) / 1000).toFixed(1)} s\n`,
      );
      const listening = performance.now();
      await waitForIndex(server, libraries, size);
      const built = performance.now();
      // Memory once the build's garbage had a moment to go (and, with --settle, the rest).
      await new Promise((resolve) =>
        setTimeout(resolve, Math.max(2000, Number(values.settle) * 1000)),
      );
      const indexedMib = await residentMemoryMib(server.pid);
      const queries = searchQueries(libraries);
      process.stderr.write(`${kind}, ${size} resources: queries one at a time, and FTS5\n`);
      const bare = await measurePaths(server, ['/-/health'], perQuery, 1);
      const each = await measureEachQuery(server, queries, perQuery, 'afresh');
      const again = await measureEachQuery(server, queries, perQuery, 'again');
      const anchor = await buildFtsAnchor(server.env);
      const raw = queries.map((query) => anchor.measure(query, perQuery));
      anchor.close();
      const alone = await buildIndexAlone(server.env);
      const engine = queries.map((query) => alone.measure(query, perQuery));
      process.stderr.write(`${kind}, ${size} resources: ${clients} clients\n`);
      const load = await measureSearch(server, queries, requests, clients, 'afresh');
      const loadAgain = await measureSearch(server, queries, requests, clients, 'again');

      out('');
      out(`## ${size} resources on ${kind}`);
      out('');
      out(
        `Process start to listening ${((listening - started) / 1000).toFixed(1)} s; to the whole index searchable ${((built - started) / 1000).toFixed(1)} s. Resident memory: ${mib(emptyMib)} before seeding, ${mib(indexedMib)} with the index.`,
      );
      out('');
      out(
        '| query | route p50 afresh (one client) | route p95 afresh | route p50 asked again | index alone p50 | raw FTS5 top 20 + count p50 | FTS5 / route afresh | FTS5 / route asked again | FTS5 / index alone |',
      );
      out('|---|---|---|---|---|---|---|---|---|');
      out(`| bare route \`/-/health\` | ${ms(bare.p50)} | ${ms(bare.p95)} | | | | | | |`);
      const ratio = (anchor: number | undefined, ours: number | undefined) =>
        anchor === undefined || ours === undefined ? 'n/a' : `${(anchor / ours).toFixed(1)}×`;
      each.forEach((figures, index) => {
        const fts = raw[index];
        const own = engine[index];
        const kept = again[index];
        out(
          `| \`${figures.query.replace(/library=[^&]+/g, 'library=…')}\` | ${ms(figures.p50)} | ${ms(figures.p95)} | ${ms(kept?.p50)} | ${ms(own?.p50)} | ${ms(fts?.p50)} | ${ratio(fts?.p50, figures.p50)} | ${ratio(fts?.p50, kept?.p50)} | ${ratio(fts?.p50, own?.p50)} |`,
        );
      });
      out('');
      const seconds = (milliseconds: number) => `${(milliseconds / 1000).toFixed(1)} s`;
      out(
        `The load on the writing instance began ${seconds(loadStarted - written)} after the write and ran ${seconds(loadEnded - loadStarted)}; its followers were done ${seconds(followersDone - loadEnded)} after it ended (the process's CPU quiet).`,
      );
      out('');
      for (const [how, figures] of [
        ['afresh, on the writing instance right after the write', afterWrite],
        ['afresh', load],
        ['asked again', loadAgain],
      ] as const)
        out(
          `${clients} clients, ${figures.requests} requests, ${how}: ${figures.perSecond.toFixed(0)} requests/s, p50 ${ms(figures.p50)}, p95 ${ms(figures.p95)}, p99 ${ms(figures.p99)}, failures ${figures.failures}.`,
        );
      if (load.failures + loadAgain.failures + afterWrite.failures > 0) process.exitCode = 1;
    } finally {
      await server.stop();
    }
  }
}
