import { spawnSync } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DATABASE_KINDS } from '../harness.js';
import {
  create,
  createLibrary,
  expectRefused,
  iriQuery,
  type Refdata,
  startRefdata,
  uniqueName,
} from './helpers.js';

const PYTHON = '/usr/bin/python3';
const rdflibThere = spawnSync(PYTHON, ['-c', 'import rdflib'], { encoding: 'utf8' }).status === 0;

/** The six RDF serializations, with the format rdflib reads each as. */
const RDF_FORMATS = [
  ['text/turtle', 'turtle'],
  ['application/ld+json', 'json-ld'],
  ['application/rdf+xml', 'xml'],
  ['application/n-triples', 'nt'],
  ['application/trig', 'trig'],
  ['application/n-quads', 'nquads'],
] as const;

/** What rdflib (an independent parser) reads as the resource's SKOS labels, language by language. */
function labelsByRdflib(text: string, format: string, iri: string) {
  const script = `
import sys, json
from rdflib import ConjunctiveGraph, URIRef, Namespace
SKOS = Namespace("http://www.w3.org/2004/02/skos/core#")
data = json.load(sys.stdin)
g = ConjunctiveGraph()
g.parse(data=data["text"], format=data["format"])
s = URIRef(data["iri"])
def read(p):
  return sorted([[o.language or "", str(o)] for o in g.objects(s, p)])
print(json.dumps({"pref": read(SKOS.prefLabel), "alt": read(SKOS.altLabel), "definition": read(SKOS.definition)}))`;
  const run = spawnSync(PYTHON, ['-c', script], {
    input: JSON.stringify({ text, format, iri }),
    encoding: 'utf8',
  });
  expect(run.status, run.stderr).toBe(0);
  return JSON.parse(run.stdout) as { pref: string[][]; alt: string[][]; definition: string[][] };
}

describe.each(DATABASE_KINDS)('labels in many languages on %s', (kind) => {
  let service: Refdata;
  let library: string;
  const pathOf = (iri: string) => iri.replace(service.config.settings.refdata.iriBase, '');
  beforeAll(async () => {
    service = await startRefdata(kind);
    library = await createLibrary(service, { name: uniqueName('Languages library') });
  });
  afterAll(async () => {
    await service?.close();
  });

  const pump = () => ({
    name: uniqueName('Centrifugal pump'),
    description: 'A pump that moves fluid by a rotating impeller',
    ontology: library,
    subClassOf: ['https://example.org/Pump'],
    translations: [
      { language: 'nb', name: 'Sentrifugalpumpe', description: 'En pumpe med roterende hjul' },
      { language: 'pt-BR', name: 'Bomba centrífuga' },
    ],
    synonyms: [
      { language: 'de', label: 'Kreiselpumpe' },
      { language: 'en', label: 'Rotodynamic pump' },
    ],
  });

  it('keeps translations and synonyms in JSON as written', async () => {
    const body = pump();
    const created = await create(service, '/rdl/terms/subclass', body);
    const read = (await service.call('GET', pathOf(created.iri))).json();
    expect(read.translations).toEqual(body.translations);
    expect(read.synonyms).toEqual(body.synonyms);
    // A body without them reads as before: no empty lists appear.
    const plain = await create(service, '/rdl/terms/subclass', {
      name: uniqueName('Plain pump'),
      ontology: library,
      subClassOf: ['https://example.org/Pump'],
    });
    const plainRead = (await service.call('GET', pathOf(plain.iri))).json();
    expect(plainRead).not.toHaveProperty('translations');
    expect(plainRead).not.toHaveProperty('synonyms');
  });

  it.skipIf(!rdflibThere && process.env.REQUIRE_CLIENTS !== '1')(
    'gives every language its own tag in all six RDF formats, as rdflib reads them',
    async () => {
      const body = pump();
      const created = await create(service, '/rdl/terms/subclass', body);
      for (const [accept, format] of RDF_FORMATS) {
        const answer = await service.call('GET', pathOf(created.iri), { headers: { accept } });
        expect(answer.statusCode, accept).toBe(200);
        const labels = labelsByRdflib(answer.body, format, created.iri);
        expect(labels.pref, accept).toEqual([
          ['en', body.name],
          ['nb', 'Sentrifugalpumpe'],
          ['pt-br', 'Bomba centrífuga'],
        ]);
        expect(labels.alt, accept).toEqual([
          ['de', 'Kreiselpumpe'],
          ['en', 'Rotodynamic pump'],
        ]);
        expect(labels.definition, accept).toEqual([
          ['en', body.description],
          ['nb', 'En pumpe med roterende hjul'],
        ]);
      }
    },
  );

  it("writes a library's terms in its declared language, and keeps that language fixed", async () => {
    const norwegian = await createLibrary(service, {
      name: uniqueName('Norsk bibliotek'),
      defaultLanguage: 'nb',
    });
    const term = await create(service, '/rdl/terms/subclass', {
      name: uniqueName('Pumpe'),
      description: 'Flytter væske',
      ontology: norwegian,
      subClassOf: ['https://example.org/Pump'],
      translations: [{ language: 'en', name: 'Pump' }],
    });
    const turtle = (
      await service.call('GET', pathOf(term.iri), { headers: { accept: 'application/n-triples' } })
    ).body;
    expect(turtle).toContain(`"${term.name}"@nb`);
    expect(turtle).toContain('"Flytter væske"@nb');
    expect(turtle).toContain('"Pump"@en');
    // English is now a translation; Norwegian would be a second preferred label.
    const twice = await service.call('POST', '/rdl/terms/subclass', {
      body: {
        changeJustification: 'Test',
        name: uniqueName('Ventil'),
        description: 'Stenger',
        ontology: norwegian,
        subClassOf: ['https://example.org/Valve'],
        translations: [{ language: 'NB', name: 'Ventil igjen' }],
      },
    });
    expect(twice.statusCode).toBe(400);
    expect(twice.json().errors[0]).toMatchObject({
      pointer: '#/translations/0/language',
      detail: expect.stringContaining('one preferred label per language'),
    });
    const library = (await service.call('GET', pathOf(norwegian))).json();
    const changed = await service.call('PUT', `/ontologies/domains?${iriQuery(norwegian)}`, {
      body: {
        name: library.name,
        description: library.description,
        defaultLanguage: 'sv',
        changeJustification: 'Swedish now',
      },
      headers: { 'if-match': '"1"' },
    });
    expect(changed.statusCode).toBe(400);
    expect(changed.body).toContain('defaultLanguage');
  });

  it('finds a class by its German synonym and by its Norwegian name', async () => {
    const body = pump();
    const created = await create(service, '/rdl/terms/subclass', body);
    const search = async (q: string) =>
      (
        await service.call('GET', `/search/search-index?${new URLSearchParams({ q }).toString()}`)
      ).json() as { hits: { iri: string; label: string }[] };
    for (const words of ['Kreiselpumpe', 'sentrifugalpumpe', 'Bomba centrifuga', 'roterende hjul'])
      expect(
        (await search(words)).hits.map((hit) => hit.iri),
        words,
      ).toContain(created.iri);
    // The hit shows the preferred label in the library's language.
    const hit = (await search('Kreiselpumpe')).hits.find((entry) => entry.iri === created.iri);
    expect(hit?.label).toBe(body.name);
  });

  it('keeps a search to resources with labels in the languages asked for', async () => {
    const word = `Lang${Date.now()}`;
    const swiss = await create(service, '/rdl/terms/subclass', {
      name: `${word} Swiss pump`,
      ontology: library,
      subClassOf: ['https://example.org/Pump'],
      synonyms: [{ language: 'de-CH', label: `${word} Kreiselpumpe` }],
    });
    const english = await create(service, '/rdl/terms/subclass', {
      name: `${word} plain pump`,
      ontology: library,
      subClassOf: ['https://example.org/Pump'],
    });
    const find = async (query: string) => {
      const answer = await service.call('GET', `/search/search-index?q=${word}&${query}`);
      expect(answer.statusCode, answer.body).toBe(200);
      return answer.json() as { total: number; hits: { iri: string }[]; next?: string };
    };
    const iris = async (query: string) => (await find(query)).hits.map((hit) => hit.iri).sort();
    // `de` finds `de-CH` (RFC 4647 basic filtering); case does not matter.
    expect(await iris('language=de')).toEqual([swiss.iri]);
    expect(await iris('language=DE-ch')).toEqual([swiss.iri]);
    expect(await iris('language=en')).toEqual([english.iri, swiss.iri].sort());
    expect(await iris('language=de&language=en')).toEqual([english.iri, swiss.iri].sort());
    expect((await find('language=fr')).total).toBe(0);
    // The filter stays in the next page's link.
    const paged = await find('language=en&limit=1');
    expect(paged.next).toContain('language=en');
    for (const bad of ['language=en_US', 'language=', `language=${'x'.repeat(36)}`]) {
      const refused = await service.call('GET', `/search/search-index?q=${word}&${bad}`);
      expect(refused.statusCode, bad).toBe(400);
      expect(refused.headers['content-type']).toMatch(/^application\/problem\+json/);
    }
  });

  it("gives a picklist's values their own translations and synonyms, in its library's language", async () => {
    const norwegian = await createLibrary(service, {
      name: uniqueName('Verdier'),
      defaultLanguage: 'nb',
    });
    const picklist = await create(service, '/cfihos/picklist', {
      name: uniqueName('Tetningstyper'),
      ontology: norwegian,
      subClassOf: 'http://x.example/picklist',
      picklistValues: [
        {
          name: 'Mekanisk tetning',
          description: 'En mekanisk tetning',
          translations: [{ language: 'en', name: 'Mechanical seal' }],
          synonyms: [{ language: 'de', label: 'Gleitringdichtung' }],
        },
      ],
    });
    const read = (await service.call('GET', pathOf(picklist.iri))).json();
    const [value] = read.picklistValues as {
      id: string;
      translations: unknown;
      synonyms: unknown;
    }[];
    expect(value?.translations).toEqual([{ language: 'en', name: 'Mechanical seal' }]);
    expect(value?.synonyms).toEqual([{ language: 'de', label: 'Gleitringdichtung' }]);
    const triples = (
      await service.call('GET', pathOf(value?.id ?? ''), {
        headers: { accept: 'application/n-triples' },
      })
    ).body;
    expect(triples).toContain('"Mekanisk tetning"@nb');
    expect(triples).toContain('"Mechanical seal"@en');
    expect(triples).toContain('"Gleitringdichtung"@de');
    // A value's translation in the library's own language is refused, as anywhere.
    const twice = await service.call('POST', '/cfihos/picklist', {
      body: {
        changeJustification: 'Test',
        name: uniqueName('Feil'),
        description: 'Feil',
        ontology: norwegian,
        subClassOf: 'http://x.example/picklist',
        picklistValues: [
          { name: 'A', description: 'A', translations: [{ language: 'nb', name: 'B' }] },
        ],
      },
    });
    expect(twice.statusCode).toBe(400);
    expect(twice.body).toContain('one preferred label per language');
  });

  it.each([
    ['a malformed tag', { translations: [{ language: 'en_US', name: 'Pump' }] }, 'BCP 47'],
    ['an unregistered language', { synonyms: [{ language: 'qq-zz', label: 'Pump' }] }, 'BCP 47'],
    ['a deprecated tag', { synonyms: [{ language: 'i-klingon', label: 'Pump' }] }, 'BCP 47'],
    ['a tag too long', { synonyms: [{ language: `de-${'x'.repeat(40)}`, label: 'P' }] }, ''],
    [
      'two preferred labels in one language',
      {
        translations: [
          { language: 'de', name: 'Pumpe' },
          { language: 'DE', name: 'Kreiselpumpe' },
        ],
      },
      'one preferred label per language',
    ],
    [
      "a translation in the library's language",
      { translations: [{ language: 'en', name: 'Pump again' }] },
      "library's language",
    ],
    [
      'a synonym that is the preferred label',
      {
        translations: [{ language: 'de', name: 'Pumpe' }],
        synonyms: [{ language: 'de', label: 'pumpe' }],
      },
      'a synonym is another label',
    ],
    ['a translation without a name', { translations: [{ language: 'de' }] }, 'name'],
    ['an unknown field', { synonyms: [{ language: 'de', label: 'P', lang: 'de' }] }, 'lang'],
    ['a list for an object', { translations: [['de', 'Pumpe']] }, ''],
  ])('refuses %s with a clear message, storing nothing', async (_label, extra, message) => {
    const problem = await expectRefused(
      service,
      {
        method: 'POST',
        url: '/rdl/terms/subclass',
        body: {
          changeJustification: 'Test',
          name: uniqueName('Refused pump'),
          description: 'Moves liquids',
          ontology: library,
          subClassOf: ['https://example.org/Pump'],
          ...extra,
        },
      },
      400,
    );
    expect(JSON.stringify(problem)).toContain(message);
  });
});
