/**
 * Search on a realistic library: a generator writes N resources across the families
 * (labels built from an engineering vocabulary, descriptions, mapping targets,
 * several libraries and statuses) straight into the server's database and its
 * index, then a mix of queries runs with 10 concurrent clients; latencies are
 * measured per request on the client.
 */
import { randomUUID } from 'node:crypto';
import autocannon from 'autocannon';
import type { Status } from '../src/refdata/db/tables.js';
import { type SeedResource, seedResources } from './bulk.js';
import type { RefdataBenchServer } from './refdata-server.js';

const NOUNS = [
  'pump',
  'valve',
  'compressor',
  'motor',
  'transmitter',
  'sensor',
  'heat exchanger',
  'separator',
  'vessel',
  'turbine',
  'filter',
  'fan',
  'cooler',
  'heater',
  'agitator',
  'actuator',
  'flange',
  'pipe',
  'nozzle',
  'bearing',
];
const ADJECTIVES = [
  'centrifugal',
  'reciprocating',
  'rotary',
  'axial',
  'electric',
  'pneumatic',
  'hydraulic',
  'stainless',
  'subsea',
  'vertical',
  'horizontal',
  'high pressure',
  'low noise',
  'explosion proof',
  'submersible',
  'diaphragm',
  'gear',
  'screw',
  'ball',
  'gate',
];
const PARTS = [
  'casing',
  'impeller',
  'seal',
  'shaft',
  'housing',
  'coupling',
  'bracket',
  'cover',
  'inlet',
  'outlet',
];
/** The nouns in Norwegian and German, for labels in other languages. */
const NOUNS_NB: Record<string, string> = {
  pump: 'pumpe',
  valve: 'ventil',
  compressor: 'kompressor',
  motor: 'motor',
  transmitter: 'transmitter',
  sensor: 'føler',
  'heat exchanger': 'varmeveksler',
  separator: 'utskiller',
  vessel: 'beholder',
  turbine: 'turbin',
  filter: 'filter',
  fan: 'vifte',
  cooler: 'kjøler',
  heater: 'varmer',
  agitator: 'omrører',
  actuator: 'aktuator',
  flange: 'flens',
  pipe: 'rør',
  nozzle: 'dyse',
  bearing: 'lager',
};
const NOUNS_DE: Record<string, string> = {
  pump: 'Pumpe',
  valve: 'Ventil',
  compressor: 'Verdichter',
  motor: 'Motor',
  transmitter: 'Messumformer',
  sensor: 'Fühler',
  'heat exchanger': 'Wärmetauscher',
  separator: 'Abscheider',
  vessel: 'Behälter',
  turbine: 'Turbine',
  filter: 'Filter',
  fan: 'Lüfter',
  cooler: 'Kühler',
  heater: 'Erhitzer',
  agitator: 'Rührwerk',
  actuator: 'Stellantrieb',
  flange: 'Flansch',
  pipe: 'Rohr',
  nozzle: 'Düse',
  bearing: 'Lager',
};

const FAMILIES: [string, number][] = [
  ['class', 40],
  ['property', 20],
  ['cfihos-entity', 10],
  ['imf-block', 5],
  ['imf-terminal', 3],
  ['imf-attribute', 4],
  ['unit', 4],
  ['dimension', 2],
  ['picklist', 4],
  ['symbol', 8],
];
const STATUSES: Status[] = ['Draft', 'Draft', 'Submitted', 'Approved', 'Approved', 'Approved'];
const IMF = 'http://ns.imfid.org/imf#';

/** What each family's schema requires beyond the common fields, so every body is one the API would take. */
const OWN_FIELDS: Record<string, (n: number) => Record<string, unknown>> = {
  class: () => ({ subClassOf: ['http://example.org/Equipment'] }),
  property: () => ({ types: ['freeText'] }),
  'cfihos-entity': () => ({ entityType: 'equipment', propertyReferences: [] }),
  'imf-block': () => ({
    aspect: `${IMF}functionAspect`,
    referenceTerms: [],
    attributeReferences: [],
    terminalReferences: [],
    hasPartBlockReferences: [],
  }),
  'imf-terminal': () => ({
    aspect: `${IMF}productAspect`,
    direction: 'input',
    referenceTerms: [],
    attributeReferences: [],
  }),
  'imf-attribute': () => ({ predicate: 'http://example.org/flow' }),
  unit: () => ({ dimensionRef: 'http://example.org/length', measurementSystem: 'SI', symbol: 'm' }),
  dimension: (n) => ({ dimensionCode: `D${n}` }),
  picklist: () => ({ subClassOf: 'http://example.org/Colour' }),
  symbol: (n) => ({
    dcIdentifier: `S${n}`,
    width: 10,
    height: 10,
    shape:
      '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 10 10"><path d="M0 5L10 5"/></svg>',
    centerOfRotation: { x: 5, y: 5 },
  }),
};

/** A deterministic pseudo-random sequence, so every run seeds the same library. */
function random(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state * 1103515245 + 12345) % 2147483648;
    return state / 2147483648;
  };
}

export async function seedSearchCorpus(
  server: RefdataBenchServer,
  count: number,
  options: { languages?: boolean } = {},
): Promise<string[]> {
  const { libraries, resources } = searchCorpus(server.refs.library, count, options);
  await seedResources(server, resources);
  return libraries;
}

/**
 * The generated corpus: `count` resources over ten libraries named after
 * `libraryBase`. With `languages`, every third carries its name and definition
 * in two more languages (Norwegian and German) and a German synonym, as a
 * multilingual library would.
 */
export function searchCorpus(
  libraryBase: string,
  count: number,
  options: { languages?: boolean } = {},
): { libraries: string[]; resources: Iterable<SeedResource> } {
  const next = random(42);
  const pick = <T>(items: readonly T[]): T => items[Math.floor(next() * items.length)] as T;
  const weighted = FAMILIES.flatMap(([family, weight]) =>
    Array.from({ length: weight }, () => family),
  );
  const libraries = Array.from({ length: 10 }, (_, index) => `${libraryBase}-${index}`);
  function* corpus(): Generator<SeedResource> {
    for (let n = 0; n < count; n += 1) {
      const noun = pick(NOUNS);
      const name = `${pick(ADJECTIVES)} ${noun}${next() < 0.4 ? ` ${pick(PARTS)}` : ''} ${n}`;
      const family = pick(weighted);
      const library = pick(libraries);
      const multilingual = options.languages === true && n % 3 === 0;
      yield {
        iri: `${library}/${randomUUID()}`,
        family,
        name,
        libraryKey: library,
        status: pick(STATUSES),
        body: {
          name,
          description: `A ${noun} used in process plants; ${pick(ADJECTIVES)} design, ${pick(PARTS)} included.`,
          ontology: library,
          ...OWN_FIELDS[family]?.(n),
          ...(multilingual
            ? {
                translations: [
                  {
                    language: 'nb',
                    name: `${NOUNS_NB[noun]} ${n}`,
                    description: `En ${NOUNS_NB[noun]} brukt i prosessanlegg.`,
                  },
                  {
                    language: 'de',
                    name: `${NOUNS_DE[noun]} ${n}`,
                    description: `Ein ${NOUNS_DE[noun]} für Prozessanlagen.`,
                  },
                ],
                synonyms: [{ language: 'de', label: `${NOUNS_DE[noun]} Bauart ${n % 50}` }],
              }
            : {}),
          ...(next() < 0.2
            ? {
                relatedTerms: [
                  {
                    relationType: 'exactMatch',
                    targetLibrary: 'ETIM',
                    targetIdentifier: `EC${String(n % 9999).padStart(6, '0')}`,
                    targetVersion: '10.0',
                  },
                ],
              }
            : {}),
        },
      };
    }
  }
  return { libraries, resources: corpus() };
}

/** The query mix: what people type as they look for things, and what programs filter by. */
export function searchQueries(libraries: readonly string[]): string[] {
  const library = encodeURIComponent(libraries[0] as string);
  return [
    'q=pump',
    'q=cent',
    'q=centrifugal%20pump',
    'q=stainless%20valve%20seal',
    'q=exch',
    'q=subsea%20compressor&status=Approved',
    'q=impeller&family=class',
    `q=motor&library=${library}`,
    'q=ec000123',
    'family=symbol&status=Draft',
    `library=${library}&family=property&limit=50`,
    'q=zzzz',
  ];
}

export interface SearchFigures {
  requests: number;
  seconds: number;
  perSecond: number;
  p50: number;
  p95: number;
  p99: number;
  failures: number;
}

/**
 * How a benchmark's searches treat the answers the server keeps: `afresh`
 * sends `Cache-Control: no-cache`, so that every search is matched and ranked
 * (the engine's own speed); `again` lets a query asked again be answered from
 * those kept.
 */
export type Asking = 'afresh' | 'again';

export const askingHeaders = (asking: Asking): Record<string, string> =>
  asking === 'afresh' ? { 'cache-control': 'no-cache' } : {};

/**
 * The query mix in turn from `concurrency` autocannon connections (keep-alive,
 * as a program's client would be), every latency recorded for its percentiles.
 */
export async function measureSearch(
  server: RefdataBenchServer,
  queries: readonly string[],
  requests: number,
  concurrency: number,
  asking: Asking = 'afresh',
): Promise<SearchFigures> {
  return measurePaths(
    server,
    queries.map((query) => `/search/search-index?${query}`),
    requests,
    concurrency,
    askingHeaders(asking),
  );
}

/** `requests` GETs of `paths` in turn, with the server's token (and `headers`). */
export async function measurePaths(
  server: RefdataBenchServer,
  paths: readonly string[],
  requests: number,
  concurrency: number,
  headers: Record<string, string> = {},
  /** How long one request may take before it counts as failed (autocannon's 10 s unless given). */
  timeoutSeconds = 10,
): Promise<SearchFigures> {
  const latencies: number[] = [];
  let failures = 0;
  let issued = 0;
  let finished: (result: autocannon.Result) => void = () => undefined;
  let failed: (error: unknown) => void = () => undefined;
  const done = new Promise<autocannon.Result>((resolve, reject) => {
    finished = resolve;
    failed = reject;
  });
  // autocannon ends a run (and reports its duration) on a whole second: the run
  // is timed here instead, from the start to the last response.
  const started = performance.now();
  let last = started;
  const instance = autocannon(
    {
      url: server.url,
      connections: concurrency,
      amount: requests,
      timeout: timeoutSeconds,
      headers: { ...headers, authorization: `Bearer ${server.token}` },
      requests: [
        {
          setupRequest: (request) => {
            request.path = paths[issued % paths.length] as string;
            issued += 1;
            return request;
          },
        },
      ],
    },
    (error, result) => (error ? failed(error) : finished(result)),
  );
  instance.on('response', (_client, status, _bytes, time) => {
    latencies.push(time);
    last = performance.now();
    if (status !== 200) failures += 1;
  });
  const result = await done;
  const seconds = (last - started) / 1000;
  const { p50, p95, p99 } = percentiles(latencies);
  return {
    requests: latencies.length,
    seconds,
    perSecond: latencies.length / seconds,
    p50,
    p95,
    p99,
    failures: failures + result.errors,
  };
}

/**
 * Waits until the server's index holds the `count` resources seeded into
 * `libraries` (it hears of them through the change log, or builds them at start).
 */
export async function waitForIndex(
  server: RefdataBenchServer,
  libraries: readonly string[],
  count: number,
  { timeoutMs = 30 * 60_000, atLeast = false } = {},
): Promise<void> {
  const query = libraries.map((library) => `library=${encodeURIComponent(library)}`).join('&');
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const response = await fetch(`${server.url}/search/search-index?limit=1&${query}`, {
      headers: { authorization: `Bearer ${server.token}` },
    });
    // The body is read either way, so the connection goes back to the pool.
    const body =
      response.status === 200 ? ((await response.json()) as { total: number }) : undefined;
    if (body === undefined) await response.body?.cancel();
    if (body && (atLeast ? body.total >= count : body.total === count)) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`the search index did not hold ${count} resources in time`);
}

/** p50 and p95 of each query asked `times` times in a row by one client, in ms. */
export async function measureEachQuery(
  server: RefdataBenchServer,
  queries: readonly string[],
  times: number,
  asking: Asking,
): Promise<{ query: string; p50: number; p95: number }[]> {
  const figures = [];
  // The whole mix once unmeasured first, so that the first query measured is
  // not the one that pays for compiling the search path.
  await measurePaths(
    server,
    queries.map((query) => `/search/search-index?${query}`),
    queries.length * 10,
    1,
    askingHeaders(asking),
  );
  for (const query of queries) {
    const measured = await measurePaths(
      server,
      [`/search/search-index?${query}`],
      times,
      1,
      askingHeaders(asking),
    );
    if (measured.failures > 0) throw new Error(`${query}: ${measured.failures} failures`);
    figures.push({ query, p50: measured.p50, p95: measured.p95 });
  }
  return figures;
}

export function percentiles(latencies: number[]): { p50: number; p95: number; p99: number } {
  const sorted = [...latencies].sort((a, b) => a - b);
  const at = (fraction: number) =>
    sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * fraction))] ?? 0;
  return { p50: at(0.5), p95: at(0.95), p99: at(0.99) };
}
