/**
 * A literal stored with a malformed language tag (data from before the rule
 * that refuses them; the quality report finds it) must neither make a
 * library's RDF unreadable nor keep the SPARQL dataset from being built: the
 * writers never emit a tag no reader takes (docs/rdf.md).
 */
import { Parser } from 'n3';
import { describe, expect, it } from 'vitest';
import type { RefdataTables } from '../../src/refdata/db/tables.js';
import { writableLanguage } from '../../src/refdata/rdf/writable-terms.js';
import {
  anotherInstance,
  approve,
  create,
  createLibrary,
  refdataForTests,
  uniqueName,
} from './helpers.js';

describe('a stored literal with a malformed language tag', () => {
  const service = refdataForTests('sqlite');

  it('is written without the tag, so that the RDF reads and the SPARQL dataset builds', async () => {
    const library = await createLibrary(service);
    await approve(service, library);
    const name = uniqueName('Pump');
    const made = await create(service, '/rdl/terms/subclass', {
      name,
      ontology: library,
      subClassOf: ['http://x.example/E'],
      translations: [{ language: 'nb', name: 'Pumpe' }],
    });
    await approve(service, made.iri);
    // As data from before the rule holds it: a tag no BCP 47 reader takes.
    const row = await service.db
      .selectFrom('resources')
      .select(['id', 'body'])
      .where('iri', '=', made.iri)
      .executeTakeFirstOrThrow();
    const body = JSON.parse(row.body) as { translations: { language: string }[] };
    for (const translation of body.translations) translation.language = 'nb NO!';
    await service.db
      .updateTable('resources' as keyof RefdataTables)
      .set({ body: JSON.stringify(body) } as never)
      .where('id', '=', row.id)
      .execute();

    // The library's Turtle reads.
    const turtle = await service.call('GET', `${new URL(library).pathname}?detailLevel=3`, {
      roles: ['Reader'],
      headers: { accept: 'text/turtle' },
    });
    expect(turtle.statusCode).toBe(200);
    const quads = new Parser({ format: 'text/turtle' }).parse(turtle.body);
    expect(quads.some((quad) => quad.object.value === 'Pumpe')).toBe(true);
    // The resource's own N-Triples too.
    const own = await service.call('GET', new URL(made.iri).pathname, {
      roles: ['Reader'],
      headers: { accept: 'application/n-triples' },
    });
    expect(own.statusCode, own.body).toBe(200);
    expect(() => new Parser({ format: 'N-Triples' }).parse(own.body)).not.toThrow();

    // An instance starting on this database builds its dataset, and answers.
    const other = await anotherInstance(service);
    try {
      const query = `ASK { <${made.iri}> <http://www.w3.org/2004/02/skos/core#prefLabel> "Pumpe" }`;
      const answer = await other.inject({
        url: `/sparql?query=${encodeURIComponent(query)}`,
        headers: { accept: 'application/sparql-results+json' },
      });
      expect(answer.statusCode, answer.body).toBe(200);
      expect(answer.json().boolean).toBe(true);
    } finally {
      await other.close();
    }
  });

  it.each([
    ['en', 'en'],
    ['nb-NO', 'nb-NO'],
    ['x-private-1', 'x-private-1'],
    ['nb NO!', ''],
    ['en_GB', ''],
    ['', ''],
    ['-en', ''],
  ])('writableLanguage(%j) is %j', (tag, written) => {
    expect(writableLanguage(tag)).toBe(written);
  });
});
