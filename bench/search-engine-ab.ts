/**
 * The search engine against another build of itself, in one process: the same
 * generated resources are put into this checkout's `MemoryIndex` and into the
 * one of `--base` (another checkout of the project, with its dependencies),
 * and every query of the benchmark's mix is asked of both in turn, round after
 * round, so that the machine's mood falls on both alike. What a change to the
 * engine's code costs, without HTTP, threads or a database around it.
 *
 * Each side indexes the resources as its own code makes documents of them
 * (`search/documents.ts` of its checkout), so a change to what is indexed
 * (labels in other languages, say) is measured with it. With `--languages`,
 * every third resource has its name and definition in two more languages and
 * a synonym, and the mix adds a search in another language and one kept to a
 * language (which a base without language filters answers unfiltered).
 *
 *   node --import tsx bench/search-engine-ab.ts --base ../before [--resources 100000]
 *                                               [--rounds 7] [--per-query 200] [--languages]
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
    languages: { type: 'boolean', default: false },
  },
});
if (!values.base) throw new Error('--base names the checkout to compare with');
const resources = positive('resources', values.resources);
const rounds = positive('rounds', values.rounds);
const perQuery = positive('per-query', values['per-query']);

type Engine = Pick<MemoryIndex, 'put' | 'search' | 'freezeStatistics'>;
const fromBase = (path: string) => import(pathToFileURL(resolve(values.base as string, path)).href);
const baseModule = (await fromBase('src/refdata/search/memory-index.ts')) as {
  MemoryIndex: new () => Engine;
};
const baseDocuments = (await fromBase('src/refdata/search/documents.ts')) as {
  indexedDocument: typeof indexedDocument;
};
const baseRegistry = (await fromBase('src/refdata/families/registry.ts')) as {
  FamilyRegistry: typeof FamilyRegistry;
};
const { MemoryIndex: ThisIndex } = await import('../src/refdata/search/memory-index.js');

const { libraries, resources: corpus } = searchCorpus('https://bench.example/lib', resources, {
  languages: values.languages,
});
const rows = [...corpus].map((resource, index) => ({
  id: index + 1,
  iri: resource.iri,
  family: resource.family,
  name: resource.name,
  status: resource.status ?? 'Draft',
  body: JSON.stringify(resource.body),
  library: resource.libraryKey,
  language: 'en',
}));
const documents = {
  base: rows.map((row) => baseDocuments.indexedDocument(row, new baseRegistry.FamilyRegistry())),
  this: rows.map((row) => indexedDocument(row, new FamilyRegistry())),
};

function built(make: new () => Engine, side: 'base' | 'this'): { engine: Engine; ms: number } {
  const started = performance.now();
  const engine = new make();
  for (const document of documents[side]) engine.put(document);
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
  const languages = parameters.getAll('language');
  return {
    ...(languages.length > 0 ? { languages: new Set(languages) } : {}),
    words: q === null ? [] : queryWords(q),
    phrase: q === null ? '' : foldedName(q),
    filters,
    limit: Number(parameters.get('limit') ?? 20),
    after: undefined,
  };
}

const builds = { base: [] as number[], this: [] as number[] };
const engines: Record<'base' | 'this', Engine> = {
  base: built(baseModule.MemoryIndex, 'base').engine,
  this: built(ThisIndex, 'this').engine,
};
// Builds timed in turn as well (each round in the other order: the garbage of
// one build is collected during the next), after one unmeasured build of each.
for (let round = 0; round < 6; round += 1) {
  const order = round % 2 === 0 ? (['base', 'this'] as const) : (['this', 'base'] as const);
  for (const side of order)
    builds[side].push(built(side === 'base' ? baseModule.MemoryIndex : ThisIndex, side).ms);
}

const queries = [
  ...searchQueries(libraries),
  ...(values.languages ? ['q=pumpe', 'q=pump&language=de'] : []),
];
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
out(
  `${resources} resources${values.languages ? ', a third with two more languages' : ''}, ${rounds} rounds of ${perQuery} askings per query and side`,
);
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
