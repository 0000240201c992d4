/**
 * Every page of a demonstration data set, reached as people reach them, by
 * following links from the home page: as a visitor and signed in. Each must
 * answer (a page, or a download it links), and none may show a blank node's
 * label (`n3-73`, `_:b0`), which means nothing to a reader and changes with
 * every request. The data has every family, each field that makes blank
 * nodes (OWL restrictions, IMF references, mapping targets, structured
 * sources, symbol positions), labels in other languages, every status, and
 * the whole CFIHOS v2.0 Core set as IOGP publishes it.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  approve,
  create,
  createLibrary,
  iriQuery,
  type Refdata,
  startRefdata,
  uniqueName,
} from './helpers.js';
import { finished, startImport } from './import-client.js';
import { Browser } from './page-client.js';

const IMF = 'http://ns.imfid.org/imf#';
const CFIHOS = join(import.meta.dirname, '../../datasets/cfihos-v2.0-core');
/** Enough to reach every page of the small set and a good part of CFIHOS's, in half a minute. */
const MAX_PAGES = 2500;
/** What blank nodes are called by the libraries that make them (n3, jsonld, rdf-ext, Turtle). */
const BLANK_NODE_LABEL = /\bn3-\d+\b|_:[A-Za-z][\w-]*|\bdf_\d+_\d+\b/;

/** Seeds the demonstration data; answers the IRIs a crawl starts from: published, and all. */
async function seedDemo(service: Refdata): Promise<{ published: string[]; all: string[] }> {
  const library = await createLibrary(service, {
    name: uniqueName('Demo plant library'),
    upperOntologies: ['https://example.org/upper'],
  });
  await approve(service, library);
  const published: string[] = [library];
  const all: string[] = [library];
  const add = async (route: string, body: Record<string, unknown>, publish = true) => {
    const created = await create(service, route, { ontology: library, ...body });
    if (publish) {
      await approve(service, created.iri);
      published.push(created.iri);
    }
    all.push(created.iri);
    return created.iri;
  };
  const dimension = await add('/cfihos/dimension', {
    name: uniqueName('Length'),
    dimensionCode: 'L',
  });
  await add('/cfihos/unitofmeasure', {
    name: uniqueName('Metre'),
    dimensionRef: dimension,
    measurementSystem: 'SI',
    symbol: 'm',
  });
  const picklist = await add('/cfihos/picklist', {
    name: uniqueName('Seal kinds'),
    subClassOf: 'http://x.example/picklist',
    picklistValues: [
      { name: 'Mechanical', description: 'A mechanical seal' },
      {
        name: 'Packing',
        description: 'Gland packing',
        translations: [{ language: 'nb', name: 'Pakning' }],
      },
    ],
  });
  const property = await add('/general/property', {
    name: uniqueName('Seal kind'),
    types: ['controlledText'],
    range: picklist,
    relatedTerms: [{ relationType: 'closeMatch', targetLibrary: 'Other', targetIdentifier: 'P-1' }],
  });
  const length = await add('/general/property', {
    name: uniqueName('Length'),
    types: ['number'],
    range: dimension,
    definitionSources: [
      {
        sourceName: 'ISO 14224',
        sourceId: 'A.2',
        sourceUrl: 'https://www.iso.org/standard/64076.html',
      },
    ],
  });
  const equipment = await add('/cfihos/entity', {
    name: uniqueName('Rotating equipment'),
    entityType: 'equipment',
    propertyReferences: [{ propertyUri: length, minCardinality: 0, maxCardinality: 1 }],
  });
  await add('/cfihos/entity', {
    name: uniqueName('Pump'),
    entityType: 'equipment',
    superEntity: equipment,
    propertyReferences: [{ propertyUri: property, minCardinality: 1, maxCardinality: 1 }],
    translations: [{ language: 'nb', name: 'Pumpe', description: 'Flytter væske' }],
    synonyms: [{ language: 'de', label: 'Pumpe' }],
  });
  const parent = await add('/rdl/terms/subclass', {
    name: uniqueName('Valve'),
    subClassOf: ['https://example.org/Equipment'],
  });
  await add('/rdl/terms/subclass', { name: uniqueName('Ball valve'), subClassOf: [parent] }, false);
  const attribute = await add('/imf/attributetypes', {
    name: uniqueName('Temperature'),
    predicate: 'http://example.org/temperature',
    rangeQualifier: `${IMF}maximumQualifier`,
  });
  const terminal = await add('/imf/terminaltypes', {
    name: uniqueName('Outlet'),
    aspect: `${IMF}productAspect`,
    direction: 'output',
    referenceTerms: [],
    attributeReferences: [{ entityUri: attribute, minCardinality: 1, maxCardinality: 1 }],
  });
  await add('/imf/blocktypes', {
    name: uniqueName('Transmitter'),
    aspect: `${IMF}functionAspect`,
    referenceTerms: [],
    attributeReferences: [{ entityUri: attribute, minCardinality: 0 }],
    terminalReferences: [{ entityUri: terminal, minCardinality: 1, maxCardinality: 2 }],
    hasPartBlockReferences: [],
  });
  await add('/esl/engineeringSymbols', {
    name: uniqueName('Check valve'),
    dcIdentifier: `CV${Date.now()}`,
    width: 96,
    height: 48,
    shape:
      '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 96 48"><path d="M0 0 L96 48 L96 0 L0 48 Z"/></svg>',
    centerOfRotation: { x: 48, y: 24 },
    connectionPoints: [
      { id: 'inlet', x: 0, y: 24, direction: 180 },
      { id: 'outlet', x: 96, y: 24, direction: 0 },
    ],
  });
  // A Rejected class and a Deprecated one with its replacement.
  const rejected = await add(
    '/rdl/terms/subclass',
    {
      name: uniqueName('Not a valve'),
      subClassOf: [parent],
    },
    false,
  );
  expect((await service.call('PUT', `/status/submit?${iriQuery(rejected)}`)).statusCode).toBe(204);
  expect(
    (
      await service.call('PUT', `/status/reject?${iriQuery(rejected)}`, {
        roles: ['Reviewer'],
        body: { justification: 'Not a valve' },
      })
    ).statusCode,
  ).toBe(204);
  await add('/rdl/terms/subclass', {
    name: uniqueName('Gate valve'),
    subClassOf: [parent],
    replaces: parent,
  });
  // The whole CFIHOS Core set, as Drafts of a library of its own.
  const cfihos = await createLibrary(service, {
    cfihosPrefix: 'CORE',
    upperOntologies: ['https://posccaesar.org/cfihos/rdl/2.0'],
  });
  const files = readdirSync(CFIHOS)
    .filter((name) => name.endsWith('.csv'))
    .map((name) => ({ name, bytes: readFileSync(join(CFIHOS, name)) }));
  const started = await startImport(service, { library: cfihos, mode: 'valid-only' }, files);
  expect(started.statusCode, started.body).toBe(202);
  expect((await finished(service, started.headers.location as string)).error).toBeNull();
  return { published, all: [...all, cfihos] };
}

/** Same-site page addresses a page links to: not downloads, feeds, scripts or signing out. */
function linksOf(page: string): string[] {
  const links: string[] = [];
  for (const match of page.matchAll(/<a [^>]*href="([^"]+)"/g)) {
    const href = (match[1] ?? '').replaceAll('&amp;', '&').split('#')[0] ?? '';
    if (!href.startsWith('/') || href.startsWith('//')) continue;
    if (/[?&]format=|^\/(changes|assets|docs|sparql|vocab)\b|^\/sign-out/.test(href)) continue;
    links.push(href);
  }
  return links;
}

describe('every page of the demonstration data', () => {
  let service: Refdata;
  let demo: { published: string[]; all: string[] };
  const pathOf = (iri: string) => iri.replace(service.config.settings.refdata.iriBase, '');
  beforeAll(async () => {
    service = await startRefdata('sqlite');
    demo = await seedDemo(service);
  }, 180_000);
  afterAll(async () => {
    await service?.close();
  });

  const crawl = async (browser: Browser, start: string[]) => {
    const seen = new Set<string>();
    const queue = [...start];
    const linkedFrom = new Map<string, string>();
    const failures: string[] = [];
    while (queue.length > 0 && seen.size < MAX_PAGES) {
      const path = queue.shift() as string;
      if (seen.has(path)) continue;
      seen.add(path);
      const answer = await browser.get(path);
      if (answer.statusCode !== 200) {
        failures.push(`${path} (linked from ${linkedFrom.get(path)}): ${answer.statusCode}`);
        continue;
      }
      if (!String(answer.headers['content-type']).startsWith('text/html')) continue;
      const label = BLANK_NODE_LABEL.exec(answer.body);
      if (label) failures.push(`${path}: shows ${label[0]}`);
      for (const link of linksOf(answer.body))
        if (!seen.has(link)) {
          queue.push(link);
          if (!linkedFrom.has(link)) linkedFrom.set(link, path);
        }
    }
    return { seen, failures };
  };

  it('shows a visitor no blank-node label on any page, and every link answers', async () => {
    const published = demo.published.map(pathOf);
    const { seen, failures } = await crawl(new Browser(service), ['/', '/symbols', ...published]);
    expect(failures).toEqual([]);
    expect(seen.size).toBeGreaterThan(40);
  }, 180_000);

  it('shows someone signed in none either, Drafts and CFIHOS classes included', async () => {
    const reader = new Browser(service);
    await reader.signInWithToken(await service.token(['Reader'], 'rolf'));
    const { seen, failures } = await crawl(reader, ['/', ...demo.all.map(pathOf)]);
    expect(failures).toEqual([]);
    // A quality report offers a Draft's form to its author alone (others get its page).
    const quality = `/quality?library=${encodeURIComponent(demo.all[0] as string)}&view=working`;
    const report = (await reader.get(quality)).body;
    expect(report).toContain('Open it');
    expect(report).not.toContain('Edit the Draft');
    const author = new Browser(service);
    await author.signInWithToken(await service.token(['Creator'], 'alice'));
    expect((await author.get(quality)).body).toContain('Edit the Draft');
    // The crawl reached CFIHOS classes, whose properties are OWL restrictions in RDF.
    expect(
      [...seen].filter((path) => path.startsWith('/cfihos/equipmentClass/')).length,
    ).toBeGreaterThan(100);
  }, 180_000);
});
