/**
 * What a typo must not be able to break: IRIs outside RFC 3987, characters XML
 * cannot hold, text that is not Unicode, and one name in two normal forms. Each
 * is refused on the way in (400 naming the field, nothing stored), and a value
 * stored before these checks still leaves every export readable.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DATABASE_KINDS } from '../harness.js';
import {
  create,
  createLibrary,
  iriQuery,
  type Refdata,
  startRefdata,
  uniqueName,
} from './helpers.js';
import { READERS, sameGraphInEveryFormat } from './rdf-readers.js';

const NOT_IRI_CHARACTERS = [
  '<',
  '>',
  '"',
  '{',
  '}',
  '|',
  '\\',
  '^',
  '`',
  ' ',
  '\u0001',
  '[x]',
  // Bidirectional formatting (RFC 3987 section 4.1): a link that reads as another address.
  '\u202E',
  '\u200F',
  '\u2066',
];
/** Characters XML 1.0 forbids (and the C0 controls besides tab, LF and CR). */
const NOT_TEXT_CHARACTERS = [
  '\u0001',
  '\u0008',
  '\u000B',
  '\u000C',
  '\u001F',
  '\u007F',
  '\uFFFE',
  '\uFFFF',
];

describe.each(DATABASE_KINDS)('refdata text and IRIs on %s', (kind) => {
  let service: Refdata;
  let library: string;
  beforeAll(async () => {
    service = await startRefdata(kind);
    library = await createLibrary(service);
  });
  afterAll(async () => service?.close());

  const count = async () =>
    Number(
      (
        await service.db
          .selectFrom('resources')
          .select((eb) => eb.fn.countAll<number>().as('n'))
          .executeTakeFirstOrThrow()
      ).n,
    );
  const dimension = (extra: Record<string, unknown>) => ({
    changeJustification: 'For a test',
    name: uniqueName('Length'),
    description: 'A dimension',
    ontology: library,
    dimensionCode: 'L',
    ...extra,
  });
  const pointersOf = (response: { json(): { errors?: { pointer: string }[] } }) =>
    (response.json().errors ?? []).map((error) => error.pointer);

  it('refuses an IRI holding a character RFC 3987 does not allow, in every IRI field, naming it', async () => {
    const before = await count();
    for (const character of NOT_IRI_CHARACTERS) {
      const bad = `http://example.org/a${character}b`;
      for (const [body, pointer] of [
        [dimension({ ontology: bad }), '#/ontology'],
        [dimension({ replaces: bad }), '#/replaces'],
        [dimension({ definitionSources: [{ sourceIri: bad }] }), '#/definitionSources/0/sourceIri'],
      ] as const) {
        const response = await service.call('POST', '/cfihos/dimension', { body });
        expect(response.statusCode, `${pointer} ${JSON.stringify(character)}`).toBe(400);
        expect(pointersOf(response), JSON.stringify(character)).toContain(pointer);
      }
      const picklist = await service.call('POST', '/cfihos/picklist', {
        body: {
          changeJustification: 'For a test',
          name: uniqueName('Colours'),
          description: 'A picklist',
          ontology: library,
          subClassOf: bad,
        },
      });
      expect(picklist.statusCode, JSON.stringify(character)).toBe(400);
      expect(pointersOf(picklist)).toContain('#/subClassOf');
    }
    // What RFC 3987 does allow still goes in: non-ASCII letters, %-escapes, a query.
    const fine = await service.call('POST', '/cfihos/dimension', {
      body: dimension({
        definitionSources: [{ sourceIri: 'https://example.org/Straße/%41?x=1&y=2#part' }],
      }),
    });
    expect(fine.statusCode).toBe(201);
    expect(await count()).toBe(before + 1);
  });

  it('refuses text holding a character XML 1.0 forbids, in every text field, naming it', async () => {
    const before = await count();
    for (const character of NOT_TEXT_CHARACTERS) {
      for (const [body, pointer] of [
        [dimension({ name: `Len${character}gth` }), '#/name'],
        [dimension({ description: `A${character}` }), '#/description'],
        [dimension({ changeJustification: `Why${character}` }), '#/changeJustification'],
        [
          dimension({ definitionSources: [{ sourceName: `Book${character}` }] }),
          '#/definitionSources/0/sourceName',
        ],
      ] as const) {
        const response = await service.call('POST', '/cfihos/dimension', { body });
        expect(response.statusCode, `${pointer} ${JSON.stringify(character)}`).toBe(400);
        expect(response.headers['content-type']).toMatch(/^application\/problem\+json/);
        expect(pointersOf(response)).toEqual([pointer]);
      }
    }
    // Tab, line feed and carriage return are text.
    const multiline = await service.call('POST', '/cfihos/dimension', {
      body: dimension({ description: 'Line one\r\nLine two\tand a tab' }),
    });
    expect(multiline.statusCode).toBe(201);
    expect(await count()).toBe(before + 1);
  });

  it('refuses a body that is not UTF-8, or a lone surrogate, instead of storing U+FFFD', async () => {
    const before = await count();
    const token = await service.token(['Creator']);
    const send = (payload: Buffer | string) =>
      service.app.inject({
        method: 'POST',
        url: '/cfihos/dimension',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        payload,
      });
    const json = JSON.stringify(dimension({ name: 'Caf_' }));
    const invalid = Buffer.from(json, 'utf8');
    invalid[invalid.indexOf('_')] = 0xff;
    const notUtf8 = await send(invalid);
    expect(notUtf8.statusCode).toBe(400);
    expect(notUtf8.json().detail).toMatch(/not valid UTF-8/);
    // An overlong encoding of "/" and an encoded surrogate are not UTF-8 either.
    for (const bytes of [
      [0xc0, 0xaf],
      [0xed, 0xa0, 0x80],
    ]) {
      const body = Buffer.concat([
        Buffer.from(json.slice(0, json.indexOf('Caf_'))),
        Buffer.from(bytes),
        Buffer.from(json.slice(json.indexOf('Caf_'))),
      ]);
      expect((await send(body)).statusCode).toBe(400);
    }
    const lone = await send(json.replace('Caf_', 'Caf\\ud800'));
    expect(lone.statusCode).toBe(400);
    expect(pointersOf(lone)).toEqual(['#/name']);
    expect(await count()).toBe(before);
  });

  it('stores text in NFC, so one name typed in NFD is the same name', async () => {
    const nfc = 'Caf\u00e9 pressure';
    const nfd = nfc.normalize('NFD');
    expect(nfd).not.toBe(nfc);
    const first = await create(service, '/cfihos/dimension', {
      name: nfd,
      description: `About ${nfd}`,
      ontology: library,
      dimensionCode: 'P',
    });
    const read = await service.call('GET', `/cfihos/dimension?${iriQuery(first.iri)}`, {
      roles: ['Reader'],
      headers: { accept: 'application/json' },
    });
    expect(read.json().name).toBe(nfc);
    expect(read.json().description).toBe(`About ${nfc}`);
    const again = await service.call('POST', '/cfihos/dimension', {
      body: dimension({ name: nfc, dimensionCode: 'P' }),
    });
    expect(again.statusCode).toBe(409);
  });

  it('writes every format readable even around an IRI and text stored before these checks', async () => {
    const term = await create(service, '/cfihos/dimension', {
      name: uniqueName('Mass'),
      ontology: library,
      dimensionCode: 'M',
      definitionSources: [{ sourceIri: 'https://example.org/good' }],
    });
    // As an older version of the service could have stored it.
    const row = await service.db
      .selectFrom('resources')
      .select(['body'])
      .where('iri', '=', term.iri)
      .executeTakeFirstOrThrow();
    const body = JSON.parse(row.body as string);
    body.definitionSources = [{ sourceIri: 'http://example.org/a>b c' }];
    body.description = 'Broken\u0001 text\u000b';
    await service.db
      .updateTable('resources')
      .set({ body: JSON.stringify(body) })
      .where('iri', '=', term.iri)
      .execute();
    const path = new URL(library).pathname;
    for (const level of ['1', '2', '3']) {
      const graph = await sameGraphInEveryFormat(
        (accept) =>
          service.call('GET', `${path}?detailLevel=${level}`, {
            roles: ['Reader'],
            headers: { accept },
          }),
        `the library at level ${level}`,
      );
      if (level === '3') {
        expect(graph.some((quad) => quad.object.value === 'http://example.org/a%3Eb%20c')).toBe(
          true,
        );
        expect(graph.some((quad) => quad.object.value === 'Broken\ufffd text\ufffd')).toBe(true);
      }
    }
    for (const [accept, read] of Object.entries(READERS)) {
      const single = await service.call('GET', new URL(term.iri).pathname, {
        roles: ['Reader'],
        headers: { accept },
      });
      expect(single.statusCode, accept).toBe(200);
      await expect(Promise.resolve(read(single.body)), accept).resolves.toBeDefined();
    }
  });
});
