/**
 * Search on a realistic library: a generator writes N resources across the families
 * (labels built from an engineering vocabulary, descriptions, mapping targets,
 * several libraries and statuses) straight into the server's database and its
 * index, then a mix of queries runs with 10 concurrent clients; latencies are
 * measured per request on the client.
 */
import { randomUUID } from 'node:crypto';
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
): Promise<string[]> {
  const next = random(42);
  const pick = <T>(items: readonly T[]): T => items[Math.floor(next() * items.length)] as T;
  const weighted = FAMILIES.flatMap(([family, weight]) =>
    Array.from({ length: weight }, () => family),
  );
  const libraries = Array.from({ length: 10 }, (_, index) => `${server.refs.library}-${index}`);
  function* corpus(): Generator<SeedResource> {
    for (let n = 0; n < count; n += 1) {
      const noun = pick(NOUNS);
      const name = `${pick(ADJECTIVES)} ${noun}${next() < 0.4 ? ` ${pick(PARTS)}` : ''} ${n}`;
      const family = pick(weighted);
      const library = pick(libraries);
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
  await seedResources(server, corpus());
  return libraries;
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

export async function measureSearch(
  server: RefdataBenchServer,
  queries: readonly string[],
  requests: number,
  concurrency: number,
): Promise<SearchFigures> {
  const latencies: number[] = [];
  let failures = 0;
  let issued = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (issued < requests) {
        const query = queries[issued % queries.length];
        issued += 1;
        const sent = performance.now();
        const response = await fetch(`${server.url}/search/search-index?${query}`, {
          headers: { authorization: `Bearer ${server.token}` },
        });
        await response.arrayBuffer();
        latencies.push(performance.now() - sent);
        if (response.status !== 200) failures += 1;
      }
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  latencies.sort((a, b) => a - b);
  const at = (fraction: number) =>
    latencies[Math.min(latencies.length - 1, Math.floor(latencies.length * fraction))] ?? 0;
  return {
    requests: latencies.length,
    seconds,
    perSecond: latencies.length / seconds,
    p50: at(0.5),
    p95: at(0.95),
    p99: at(0.99),
    failures,
  };
}
