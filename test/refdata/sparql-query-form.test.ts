import { describe, expect, it } from 'vitest';
import { classify } from '../../src/refdata/sparql/query-form.js';
import { readQuery } from '../../src/refdata/sparql/query-reading.js';

describe("a query's form, read from its start", () => {
  it.each([
    ['SELECT * WHERE { ?s ?p ?o }', 'SELECT'],
    ['  select ?s {}', 'SELECT'],
    ['ASK {}', 'ASK'],
    ['construct where { ?s ?p ?o }', 'CONSTRUCT'],
    ['DESCRIBE <http://a>', 'DESCRIBE'],
    [
      'PREFIX ex: <http://x.example/#> BASE <http://b/> # why\nPREFIX : <http://y/>\nASK { :a ex:b ?c }',
      'ASK',
    ],
    ['# only a comment\n\tCONSTRUCT {} WHERE {}', 'CONSTRUCT'],
  ])('%j is a %s query', (text, form) => {
    expect(classify(text)).toEqual({ kind: 'query', form });
  });

  it.each([
    'INSERT DATA { <http://a> <http://b> <http://c> }',
    'PREFIX x: <http://x/> DELETE WHERE { ?s ?p ?o }',
    'WITH <http://g> DELETE { ?s ?p ?o } WHERE { ?s ?p ?o }',
    'load <http://x/data.ttl>',
    'CLEAR ALL',
    'DROP GRAPH <http://g>',
  ])('%j is an update', (text) => {
    expect(classify(text)).toEqual({ kind: 'update' });
  });

  it.each([
    '',
    'SELECTED * {}',
    'PREFIX x <http://x/> SELECT * {}',
    'PREFIX x: <http://x/ y> SELECT * {}',
    'INSERTS',
  ])('%j is neither (the engine says what is wrong)', (text) => {
    expect(classify(text)).toEqual({ kind: 'unknown' });
  });
});

describe('a query that names its own dataset', () => {
  it.each([
    ['SELECT ?s FROM <http://g> WHERE { ?s ?p ?o }', true],
    ['SELECT ?s from named <http://g> WHERE { GRAPH ?g { ?s ?p ?o } }', true],
    ['PREFIX g: <http://g/> SELECT * FROM g:one { ?s ?p ?o }', true],
    ['SELECT * WHERE { ?s ?p "FROM <http://g>" }', false],
    ["SELECT * WHERE { ?s ?p '''from\nthere''' }", false],
    ['SELECT * WHERE { ?s <http://x/FROM> ?o } # FROM <http://g>', false],
    ['SELECT ?from WHERE { ?from ?p ?o }', false],
    ['PREFIX from: <http://x/> SELECT * WHERE { ?s from:a ?o }', false],
    ['PREFIX ex: <http://x/> SELECT * WHERE { ?s ex:valid-from ?o }', false],
    ['PREFIX ex: <http://x/> SELECT * WHERE { ?s ex:from.to ?o }', false],
  ])('%j: %s', (text, declared) => {
    const reading = readQuery(text, 100);
    expect(reading.readable === true && reading.fromGraphs.length > 0).toBe(declared);
  });
});
