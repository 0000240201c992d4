/**
 * The search engine against another build of itself, in one process: the same
 * generated resources are put into this checkout's `MemoryIndex` and into the
 * one of `--base` (another checkout of the project, with its dependencies),
 * and every query of the benchmark's mix is asked of both in turn, round after
 * round, so that the machine's mood falls on both alike. What a change to the
 * engine's code costs, without HTTP, threads or a database around it.
 *
 *   node --import tsx bench/search-engine-ab.ts --base ../before [--resources 100000]
 *                                               [--rounds 7] [--per-query 200]
 */
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { FamilyRegistry } from '../src/refdata/families/registry.js';
import { indexedDocument } from '../src/refdata/search/documents.js';
import type { IndexQuery, MemoryIndex } from '../src/refdata/search/memory-index.js';
import { foldedName, queryWords } from '../src/refdata/search/words.js';
import { positive } from './options.js';
import { percentiles, searchCorpus, searchQueries } from './refdata-search.js';

const out = (text: string) => process.stdout.write(`${text}\n`);

const { values } = parseArgs({
  options: {
    base: { type: 'string' },
    resources: { type: 'string', default: '100000' },
    rounds: { type: 'string', default: '7' },
    'per-query': { type: 'string', default: '200' },
  },
});
if (!values.base) throw new Error('--base names the checkout to compare with');
const resources = positive('resources', values.resources);
const rounds = positive('rounds', values.rounds);
const perQuery = positive('per-query', values['per-query']);

type Engine = Pick<MemoryIndex, 'put' | 'search' | 'freezeStatistics'>;
const baseModule = (await import(
  pathToFileURL(resolve(values.base, 'src/refdata/search/memory-index.ts')).href
)) as { MemoryIndex: new () => Engine };
const { MemoryIndex: ThisIndex } = await import('../src/refdata/search/memory-index.js');

const families = new FamilyRegistry();
const { libraries, resources: corpus } = searchCorpus('https://bench.example/lib', resources);
const documents = [...corpus].map((resource, index) =>
  indexedDocument(
    {
      id: index + 1,
      iri: resource.iri,
      family: resource.family,
      name: resource.name,
      status: resource.status ?? 'Draft',
      body: JSON.stringify(resource.body),
      library: resource.libraryKey,
    },
    families,
  ),
);

function built(make: new () => Engine): { engine: Engine; ms: number } {
  const started = performance.now();
  const engine = new make();
  for (const document of documents) engine.put(document);
  engine.freezeStatistics();
  return { engine, ms: performance.now() - started };
}

function asked(query: string): IndexQuery {
  const parameters = new URLSearchParams(query);
  const q = parameters.get('q');
  const filters: IndexQuery['filters'] = {};
  for (const dimension of ['family', 'library', 'status'] as const) {
    if (parameters.has(dimension)) filters[dimension] = new Set(parameters.getAll(dimension));
  }
  return {
    words: q === null ? [] : queryWords(q),
    phrase: q === null ? '' : foldedName(q),
    filters,
    limit: Number(parameters.get('limit') ?? 20),
    after: undefined,
  };
}

const builds = { base: [] as number[], this: [] as number[] };
const engines: Record<'base' | 'this', Engine> = {
  base: built(baseModule.MemoryIndex).engine,
  this: built(ThisIndex).engine,
};
// Builds timed in turn as well (each round in the other order: the garbage of
// one build is collected during the next), after one unmeasured build of each.
for (let round = 0; round < 6; round += 1) {
  const order = round % 2 === 0 ? (['base', 'this'] as const) : (['this', 'base'] as const);
  for (const side of order)
    builds[side].push(built(side === 'base' ? baseModule.MemoryIndex : ThisIndex).ms);
}

const queries = searchQueries(libraries);
const latencies = new Map(
  queries.map((query) => [query, { base: [] as number[], this: [] as number[] }]),
);
for (const query of queries) {
  // Once unmeasured: the first asking works out frequencies and impacts.
  engines.base.search(asked(query));
  engines.this.search(asked(query));
}
for (let round = 0; round < rounds; round += 1) {
  for (const side of round % 2 === 0 ? (['base', 'this'] as const) : (['this', 'base'] as const)) {
    for (const query of queries) {
      const question = asked(query);
      const times = latencies.get(query)?.[side] as number[];
      for (let n = 0; n < perQuery; n += 1) {
        const started = performance.now();
        engines[side].search(question);
        times.push(performance.now() - started);
      }
    }
  }
}

const ms = (value: number) => (value < 0.1 ? value.toFixed(3) : value.toFixed(2));
const median = (list: number[]) =>
  [...list].sort((a, b) => a - b)[Math.floor(list.length / 2)] as number;
out(`${resources} resources, ${rounds} rounds of ${perQuery} askings per query and side`);
out('');
out('| query | base p50 | this p50 | this / base | base p95 | this p95 |');
out('|---|---|---|---|---|---|');
for (const query of queries) {
  const { base, this: now } = latencies.get(query) as { base: number[]; this: number[] };
  const a = percentiles(base);
  const b = percentiles(now);
  out(
    `| \`${query.replace(/library=[^&]+/, 'library=…')}\` | ${ms(a.p50)} ms | ${ms(b.p50)} ms | ${(b.p50 / a.p50).toFixed(2)} | ${ms(a.p95)} ms | ${ms(b.p95)} ms |`,
  );
}
out(
  `| build (put all, freeze), median of 6 | ${median(builds.base).toFixed(0)} ms | ${median(builds.this).toFixed(0)} ms | ${(median(builds.this) / median(builds.base)).toFixed(2)} | | |`,
);
