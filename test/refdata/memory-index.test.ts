import { describe, expect, it } from 'vitest';
import { leadingCode } from '../../src/refdata/search/leading-code.js';
import {
  type IndexedDocument,
  type IndexQuery,
  MemoryIndex,
} from '../../src/refdata/search/memory-index.js';
import type { RankKey } from '../../src/refdata/search/ranking.js';
import { foldedName, queryWords, wordsOf } from '../../src/refdata/search/words.js';

interface Fixture {
  id: number;
  label: string;
  identifier?: string;
  mappings?: string;
  description?: string;
  family?: string;
  library?: string;
  status?: string;
  types?: string[];
  languages?: string[];
}

function document(fixture: Fixture): IndexedDocument {
  return {
    id: fixture.id,
    name: foldedName(fixture.label),
    family: fixture.family ?? 'class',
    library: fixture.library ?? 'L1',
    status: fixture.status ?? 'Draft',
    types: fixture.types ?? [],
    languages: fixture.languages ?? ['en'],
    words: {
      label: wordsOf(fixture.label),
      identifier: wordsOf(fixture.identifier ?? ''),
      mappings: wordsOf(fixture.mappings ?? ''),
      description: wordsOf(fixture.description ?? ''),
    },
    shown: {
      iri: `urn:test:${fixture.id}`,
      label: fixture.label,
      description: fixture.description,
    },
  };
}

function indexOf(fixtures: readonly Fixture[]): MemoryIndex {
  const index = new MemoryIndex();
  for (const fixture of fixtures) index.put(document(fixture));
  return index;
}

function ask(index: MemoryIndex, q: string, options: Partial<IndexQuery> = {}) {
  return index.search({
    words: queryWords(q),
    phrase: foldedName(q),
    filters: {},
    countLanguages: true,
    limit: 20,
    after: undefined,
    ...options,
  });
}

const ids = (hits: readonly RankKey[]) => hits.map((hit) => hit.id);

describe('the in-memory search index', () => {
  it('puts the exact label first, then labels that start with the query, then by score', () => {
    const index = indexOf([
      { id: 1, label: 'Pump casing', description: 'The casing of a centrifugal pump' },
      { id: 2, label: 'Centrifugal pump' },
      { id: 3, label: 'Centrifugal pump impeller' },
      { id: 4, label: 'Impeller', description: 'Part of a centrifugal pump' },
      { id: 5, label: 'Vertical centrifugal pump' },
      { id: 6, label: 'Gate valve' },
    ]);
    const answer = ask(index, 'centrifugal pump');
    expect(answer.hits[0]).toMatchObject({ id: 2, tier: 0 });
    expect(answer.hits[1]).toMatchObject({ id: 3, tier: 1 });
    // Both words in the label outweigh both in the description.
    expect(ids(answer.hits).slice(2)).toEqual([5, 1, 4]);
    expect(answer.total).toBe(5);
    const scores = answer.hits.slice(2).map((hit) => hit.score);
    expect([...scores].sort((a, b) => b - a)).toEqual(scores);
  });

  it('tells exact and leading label matches apart for short, long and accented queries', () => {
    const index = indexOf([
      { id: 1, label: 'Check valve' },
      { id: 2, label: 'Valve body' },
      { id: 3, label: 'Vālve seat' },
      { id: 4, label: 'Valve' },
      { id: 5, label: 'V' },
      { id: 6, label: 'Σωλήνας' },
    ]);
    const tiers = (q: string) => ask(index, q).hits.map((hit) => [hit.id, hit.tier]);
    // Accents count no more in the tiers than in the words: 'Vālve seat' starts with 'valve'.
    expect(tiers('valve')).toEqual([
      [4, 0],
      [2, 1],
      [3, 1],
      [1, 2],
    ]);
    expect(tiers('v').slice(0, 1)).toEqual([[5, 0]]);
    expect(
      new Set(
        tiers('v')
          .slice(1, 4)
          .map(([, tier]) => tier),
      ),
    ).toEqual(new Set([1]));
    expect(tiers('v')[4]).toEqual([1, 2]);
    expect(tiers('Vālve se')[0]).toEqual([3, 1]);
    // Letters beyond Latin, with their accents dropped alike.
    expect(tiers('σωληνας')).toEqual([[6, 0]]);
    expect(tiers('ΣΩΛ')).toEqual([[6, 1]]);
  });

  it('tells the tiers apart alike for resources in the name order and those added after it was made', () => {
    const index = indexOf([
      { id: 1, label: 'Valve' },
      { id: 2, label: 'Valve body' },
      { id: 3, label: 'Check valve' },
      { id: 4, label: 'Valves' },
    ]);
    // The first search freezes the statistics and sorts the names; the rest come after.
    expect(ask(index, 'valve').total).toBe(4);
    for (const fixture of [
      { id: 5, label: 'Valve' },
      { id: 6, label: 'Valve seat' },
      { id: 7, label: 'Gate valve' },
      { id: 8, label: 'Valvf' },
    ])
      index.put(document(fixture));
    const tiers = (q: string) =>
      Object.fromEntries(ask(index, q).hits.map((hit) => [hit.id, hit.tier]));
    // "Valvf" is one typo away: found, but never a leading match.
    expect(tiers('valve')).toEqual({ 1: 0, 5: 0, 2: 1, 4: 1, 6: 1, 3: 2, 7: 2, 8: 2 });
    expect(tiers('valve b')).toEqual({ 2: 1 });
    expect(tiers('valves')).toEqual({ 4: 0, 1: 2, 2: 2, 3: 2, 5: 2, 6: 2, 7: 2 });
    // A replaced resource is tiered by its new label, wherever its old one sorted.
    index.put(document({ id: 1, label: 'Plug valve' }));
    expect(tiers('valve')).toMatchObject({ 1: 2, 5: 0 });
  });

  it('packs the leading characters so that a text and its beginning agree on them', () => {
    for (const [text, start] of [
      ['valve body', 'val'],
      ['vālve', 'vā'],
      ['ĀĀĀĀĀ', 'ĀĀ'],
      ['ab', 'ab'],
      ['x', ''],
    ] as const) {
      const shift = 8 * Math.max(0, 4 - start.length);
      if (shift < 32) expect(leadingCode(text) >>> shift).toBe(leadingCode(start) >>> shift);
    }
    expect(leadingCode('abcd')).not.toBe(leadingCode('abce'));
    expect(leadingCode('ab')).not.toBe(leadingCode('abc'));
  });

  it('weighs the label above identifiers above mapping targets above the description', () => {
    const index = indexOf([
      { id: 1, label: 'Something', description: 'flange' },
      { id: 2, label: 'Other', mappings: 'ETIM flange' },
      { id: 3, label: 'Third', identifier: 'flange' },
      { id: 4, label: 'Flange adapter' },
    ]);
    expect(ids(ask(index, 'flange').hits)).toEqual([4, 3, 2, 1]);
  });

  it('finds words by their beginning, and a longer word by a typo', () => {
    const index = indexOf([
      { id: 1, label: 'Heat exchanger' },
      { id: 2, label: 'Centrifugal compressor' },
      { id: 3, label: 'Compression spring' },
    ]);
    expect(ids(ask(index, 'exch').hits)).toEqual([1]);
    expect(ids(ask(index, 'compresor').hits)).toEqual([2]);
    expect(ids(ask(index, 'centrifugl compressor').hits)).toEqual([2]);
    // Short words and codes must be typed right.
    expect(ask(index, 'hewt').total).toBe(0);
    // A word typed right outranks one found through a typo.
    index.put(document({ id: 4, label: 'Compresor brand' }));
    expect(ids(ask(index, 'compresor').hits)[0]).toBe(4);
  });

  it('requires every word, in any field', () => {
    const index = indexOf([
      { id: 1, label: 'Subsea compressor' },
      { id: 2, label: 'Compressor', description: 'For subsea use' },
      { id: 3, label: 'Subsea valve' },
    ]);
    expect(ids(ask(index, 'subsea compressor').hits).sort()).toEqual([1, 2]);
    expect(ask(index, 'subsea zzzz').total).toBe(0);
  });

  it('counts facets that match the filtered totals, each ignoring its own filter', () => {
    const fixtures: Fixture[] = [];
    const families = ['class', 'property', 'symbol'];
    const statuses = ['Draft', 'Approved'];
    for (let n = 0; n < 60; n += 1)
      fixtures.push({
        id: n + 1,
        label: `pump ${n}`,
        family: families[n % 3],
        status: statuses[n % 2],
        library: `L${n % 4}`,
      });
    fixtures.push({ id: 100, label: 'valve', family: 'class' });
    const index = indexOf(fixtures);
    const unfiltered = ask(index, 'pump');
    expect(unfiltered.total).toBe(60);
    expect(Object.fromEntries(unfiltered.facets.family)).toEqual({
      class: 20,
      property: 20,
      symbol: 20,
    });
    const filtered = ask(index, 'pump', {
      filters: { family: new Set(['class']), status: new Set(['Approved']) },
    });
    const brute = fixtures.filter(
      (f) => f.label.startsWith('pump') && f.family === 'class' && f.status === 'Approved',
    );
    expect(filtered.total).toBe(brute.length);
    // The family facet ignores the family filter (other families still show what they would give)...
    expect(filtered.facets.family.get('property')).toBe(
      fixtures.filter(
        (f) => f.label.startsWith('pump') && f.family === 'property' && f.status === 'Approved',
      ).length,
    );
    // ...and each value's count is what choosing it would give.
    const libraries = [...filtered.facets.library.values()].reduce((a, b) => a + b, 0);
    expect(libraries).toBe(filtered.total);
    for (const [library, count] of filtered.facets.library) {
      const chosen = ask(index, 'pump', {
        filters: {
          family: new Set(['class']),
          status: new Set(['Approved']),
          library: new Set([library]),
        },
      });
      expect(chosen.total).toBe(count);
    }
  });

  it('filters by language before counting: totals and facets count only documents with a label in it', () => {
    // Forty languages: past the 32 a slot's mask holds, the rest are listed beside it.
    const many = Array.from({ length: 40 }, (_, n) => `x${String.fromCharCode(97 + (n % 26))}${n}`);
    const index = indexOf([
      { id: 1, label: 'Pump one', languages: ['en', 'de', 'de-ch'], status: 'Approved' },
      { id: 2, label: 'Pump two', languages: ['en', 'nb'], status: 'Draft' },
      { id: 3, label: 'Pump three', languages: ['en'], status: 'Approved' },
      ...many.map((language, n) => ({ id: 10 + n, label: `Valve ${n}`, languages: [language] })),
      { id: 99, label: 'Pump rare', languages: ['en', many[39] as string] },
    ]);
    const german = ask(index, 'pump', { languages: new Set(['de']) });
    expect(ids(german.hits)).toEqual([1]);
    expect(german.total).toBe(1);
    expect(german.facets.status).toEqual(new Map([['Approved', 1]]));
    expect(ids(ask(index, 'pump', { languages: new Set(['nb', 'de-ch']) }).hits).sort()).toEqual([
      1, 2,
    ]);
    // The rare language (code 40 and up) is found, with words and without.
    const rare = new Set([many[39] as string]);
    expect(ids(ask(index, 'pump', { languages: rare }).hits)).toEqual([99]);
    expect(ids(ask(index, '', { languages: rare }).hits).sort((a, b) => a - b)).toEqual([49, 99]);
    expect(ask(index, '', { languages: rare }).total).toBe(2);
    // Without words: everything in the language, by name; a language nobody has finds nothing.
    expect(ids(ask(index, '', { languages: new Set(['en']) }).hits)).toEqual([1, 99, 3, 2]);
    expect(ask(index, '', { languages: new Set(['fr']) }).total).toBe(0);
    expect(ask(index, 'pump').total).toBe(4);
    // Counts per language, and a removed document no longer counts.
    expect(ask(index, 'pump').languages.get('de')).toBe(1);
    index.remove(1);
    expect(ask(index, 'pump').languages.has('de')).toBe(false);
    expect(ask(index, 'pump', { languages: new Set(['de']) }).total).toBe(0);
    expect(ask(index, '').languages.get('en')).toBe(3);
  });

  it('counts languages among what the reader may see and the words match, the language filter aside', () => {
    const index = indexOf([
      { id: 1, label: 'Pump one', languages: ['en', 'de'], status: 'Approved' },
      { id: 2, label: 'Pump two', languages: ['en', 'nb'], status: 'Draft' },
      { id: 3, label: 'Valve', languages: ['en'], status: 'Approved' },
      { id: 4, label: 'Valve two', languages: ['nb'], status: 'Draft' },
    ]);
    const visitor = { filters: { status: new Set(['Approved']) } };
    // Without words: every document the reader may see (a visitor: no Drafts).
    expect(ask(index, '', visitor).languages).toEqual(
      new Map([
        ['en', 2],
        ['de', 1],
      ]),
    );
    expect(ask(index, '').languages).toEqual(
      new Map([
        ['en', 3],
        ['de', 1],
        ['nb', 2],
      ]),
    );
    // With words: only what they match.
    expect(ask(index, 'valve', visitor).languages).toEqual(new Map([['en', 1]]));
    expect(ask(index, 'pump').languages).toEqual(
      new Map([
        ['en', 2],
        ['de', 1],
        ['nb', 1],
      ]),
    );
    // A language ticked still shows what the others would add.
    const ticked = ask(index, 'pump', { languages: new Set(['de']) });
    expect(ticked.total).toBe(1);
    expect(ticked.languages.get('nb')).toBe(1);
    expect(ask(index, '', { ...visitor, languages: new Set(['de']) }).languages.get('en')).toBe(2);
    // Words nobody matches count nothing.
    expect(ask(index, 'compressor').languages.size).toBe(0);
    // A removed document leaves the counts of its combination.
    index.remove(1);
    expect(ask(index, '', visitor).languages).toEqual(new Map([['en', 1]]));
    // Not asked for (the API shows none), nothing is counted.
    expect(ask(index, 'valve', { countLanguages: false }).languages.size).toBe(0);
  });

  it('lists everything the filters let through by name when there are no words', () => {
    const index = indexOf([
      { id: 1, label: 'b', family: 'symbol' },
      { id: 2, label: 'a', family: 'symbol' },
      { id: 3, label: 'c', family: 'class' },
    ]);
    const answer = ask(index, '', {
      words: [],
      phrase: '',
      filters: { family: new Set(['symbol']) },
    });
    expect(ids(answer.hits)).toEqual([2, 1]);
    expect(answer.total).toBe(2);
  });

  it('pages without gaps or duplicates while other resources are written', () => {
    const index = new MemoryIndex();
    for (let n = 0; n < 500; n += 1)
      index.put(
        document({
          id: n + 1,
          label: `${n % 7 === 0 ? 'pump' : 'motor'} unit ${n}`,
          description: n % 3 === 0 ? 'pump pump' : 'a pump',
        }),
      );
    const expected = ids(ask(index, 'pump', { limit: 1000 }).hits);
    expect(expected.length).toBe(500);
    const seen: number[] = [];
    let after: RankKey | undefined;
    let written = 1000;
    do {
      const page = ask(index, 'pump', { limit: 37, after });
      seen.push(...ids(page.hits));
      after = page.next;
      // Between pages: new matches and new non-matches, which change the collection's
      // statistics, but by less than the tenth at which they are frozen anew.
      for (let k = 0; k < 3; k += 1) {
        written += 1;
        index.put(document({ id: written, label: written % 2 ? 'pump new' : 'valve new' }));
      }
      index.freezeStatistics(0.1, 0);
      expect(page.generation).toBe(1);
    } while (after);
    const original = seen.filter((id) => id <= 500);
    expect(new Set(seen).size).toBe(seen.length);
    expect(original).toEqual(expected);
  });

  it('freezes its statistics anew once the documents changed by more than the fraction', () => {
    const index = indexOf([{ id: 1, label: 'pump' }]);
    expect(ask(index, 'pump').generation).toBe(1);
    for (let n = 2; n <= 10; n += 1) index.put(document({ id: n, label: `pump ${n}` }));
    const before = ask(index, 'pump');
    index.freezeStatistics(0.1, 0);
    const after = ask(index, 'pump');
    expect(after.generation).toBe(2);
    // With more documents holding the word, it says less: the scores fall.
    expect(after.hits[0]?.score).toBeLessThan(before.hits[0]?.score as number);
    index.freezeStatistics(0.1, 0);
    expect(ask(index, 'pump').generation).toBe(2);
  });

  it('forgets removed and replaced documents, also after compacting', () => {
    const index = new MemoryIndex();
    for (let n = 0; n < 3000; n += 1) index.put(document({ id: n + 1, label: `pump ${n}` }));
    for (let n = 0; n < 2000; n += 1) index.remove(n + 1);
    index.put(document({ id: 2500, label: 'valve 2500' }));
    expect(index.size).toBe(1000);
    const answer = ask(index, 'pump', { limit: 100 });
    expect(answer.total).toBe(999);
    expect(answer.hits.every((hit) => hit.id > 2000 && hit.id !== 2500)).toBe(true);
    expect(ids(ask(index, 'valve').hits)).toEqual([2500]);
  });

  it("keeps each document's RDF types, replaced with the document and gone with it", () => {
    const owlClass = 'http://www.w3.org/2002/07/owl#Class';
    const concept = 'http://www.w3.org/2004/02/skos/core#Concept';
    const index = indexOf([
      { id: 1, label: 'pump', types: [owlClass, concept] },
      { id: 2, label: 'valve', types: [owlClass, concept] },
      { id: 3, label: 'colour', types: [] },
    ]);
    expect(index.typesOf(1)).toEqual([owlClass, concept]);
    expect(index.typesOf(3)).toEqual([]);
    index.put(document({ id: 1, label: 'pump', types: [concept] }));
    expect(index.typesOf(1)).toEqual([concept]);
    expect(index.typesOf(2)).toEqual([owlClass, concept]);
    index.remove(2);
    expect(index.typesOf(2)).toEqual([]);
    expect(index.typesOf(99)).toEqual([]);
  });

  it('answers what a hit shows as it was last put, and nothing once it is removed', () => {
    const index = indexOf([
      { id: 1, label: 'Pump', description: 'Moves liquids', family: 'class', status: 'Draft' },
      { id: 2, label: 'Valve', library: '', family: 'unit', status: 'Approved' },
    ]);
    expect(index.hitOf(1)).toEqual({
      shown: { iri: 'urn:test:1', label: 'Pump', description: 'Moves liquids' },
      family: 'class',
      status: 'Draft',
      library: 'L1',
      types: [],
    });
    index.put(
      document({ id: 1, label: 'Pump set', family: 'class', status: 'Submitted', library: 'L2' }),
    );
    expect(index.hitOf(1)).toMatchObject({
      shown: { label: 'Pump set', description: undefined },
      status: 'Submitted',
      library: 'L2',
    });
    // A resource outside every library (the empty key) shows none.
    expect(index.hitOf(2)).toMatchObject({ family: 'unit', library: undefined });
    index.remove(1);
    expect(index.hitOf(1)).toBeUndefined();
  });

  it('keeps a score put when another resource gains its word, and when removed ones are compacted away', () => {
    // Descriptions of different lengths give each resource its own BM25 weight for "gasket".
    const index = indexOf(
      Array.from({ length: 1300 }, (_, n) => ({
        id: n + 1,
        label: `Part ${n}`,
        description: `gasket ${'word '.repeat(n % 7)}`,
      })),
    );
    index.put(document({ id: 5000, label: 'Spiral wound gasket' }));
    const scoreOf = (id: number, q: string) =>
      ask(index, q, { limit: 100 }).hits.find((hit) => hit.id === id)?.score;
    const alone = scoreOf(5000, 'spiral');
    const gasket = scoreOf(5000, 'gasket');
    expect(alone).toBeGreaterThan(0);
    // "spiral" was held by one resource; now by two.
    index.put(document({ id: 5001, label: 'Spiral staircase' }));
    expect(scoreOf(5000, 'spiral')).toBe(alone);
    expect(scoreOf(5001, 'spiral')).toBeGreaterThan(0);
    // Removing 1,200 of 1,302 compacts the postings: slots move within them.
    for (let id = 1; id <= 1200; id += 1) index.remove(id);
    expect(scoreOf(5000, 'gasket')).toBe(gasket);
    const survivors = ask(index, 'gasket', { limit: 100 }).hits;
    expect(survivors).toHaveLength(100);
    expect(survivors.map((hit) => hit.id)).toContain(5000);
    index.freezeStatistics();
    for (const hit of ask(index, 'gasket', { limit: 100 }).hits.filter((hit) => hit.id !== 5000)) {
      const shape = `gasket ${'word '.repeat((hit.id - 1) % 7)}`;
      const twin = ask(index, 'gasket', { limit: 100 }).hits.find(
        (other) =>
          other.id !== hit.id && other.id !== 5000 && (other.id - 1) % 7 === (hit.id - 1) % 7,
      );
      // Resources alike in length score alike, whichever slots they moved to.
      if (twin) expect(twin.score, shape).toBe(hit.score);
    }
  });
});
