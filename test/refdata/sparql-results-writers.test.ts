/**
 * The results formats an external store's JSON answer is written in: each as
 * its W3C specification gives it, read back by a parser other than ours where
 * there is one.
 */
import { Parser } from 'n3';
import { SaxesParser } from 'saxes';
import { describe, expect, it } from 'vitest';
import {
  type JsonResults,
  RESULTS_WRITERS,
  readJsonResults,
} from '../../src/refdata/sparql/external/results-writers.js';

/** As Virtuoso answers: SPARQL 1.0's typed-literal, its blank node labels, extra keys. */
const VIRTUOSO: JsonResults = readJsonResults(
  JSON.stringify({
    head: { link: [], vars: ['s', 'o'] },
    results: {
      distinct: false,
      ordered: true,
      bindings: [
        {
          s: { type: 'uri', value: 'https://rdl.example.org/a' },
          o: { type: 'literal', value: 'line one\r\nline "two"\tand, a comma', 'xml:lang': 'en' },
        },
        {
          s: { type: 'bnode', value: 'nodeID://b10004' },
          o: {
            type: 'typed-literal',
            datatype: 'http://www.w3.org/2001/XMLSchema#integer',
            value: '42',
          },
        },
        { s: { type: 'bnode', value: 'a.b' } },
        { s: { type: 'bnode', value: 'a_b' } },
      ],
    },
  }),
);

const write = (format: string, results: JsonResults) => {
  const writer = RESULTS_WRITERS[format];
  if (!writer) throw new Error(format);
  return writer(results);
};

describe('SPARQL results written from a store’s JSON', () => {
  it('writes JSON as SPARQL 1.1 gives it: literal with a datatype, labels of its own', () => {
    const json = JSON.parse(write('application/sparql-results+json', VIRTUOSO));
    expect(json.head).toEqual({ vars: ['s', 'o'] });
    expect(json.results.bindings[1].o).toEqual({
      type: 'literal',
      value: '42',
      datatype: 'http://www.w3.org/2001/XMLSchema#integer',
    });
    const labels = json.results.bindings.map(
      (binding: { s: { value: string } }) => binding.s.value,
    );
    // Two labels stay two: `a.b` and `a_b` do not become one.
    expect(new Set(labels.slice(2)).size).toBe(2);
    expect(labels[1]).toMatch(/^[A-Za-z0-9_][A-Za-z0-9_-]*$/);
    expect(
      JSON.parse(write('application/sparql-results+json', { head: {}, boolean: true })),
    ).toEqual({
      head: {},
      boolean: true,
    });
  });

  it('writes XML a parser reads back whole, a carriage return kept', () => {
    const xml = write('application/sparql-results+xml', VIRTUOSO);
    let text = '';
    let inLiteral = false;
    const parser = new SaxesParser();
    parser.on('opentag', (tag) => {
      inLiteral = tag.name === 'literal';
    });
    parser.on('text', (chunk) => {
      if (inLiteral) text += chunk;
    });
    parser.on('closetag', () => {
      inLiteral = false;
    });
    parser.write(xml).close();
    expect(text).toContain('line one\r\nline "two"\tand, a comma');
  });

  it('writes CSV and TSV as SPARQL 1.1 CSV and TSV give them', () => {
    const csv = write('text/csv', VIRTUOSO);
    expect(csv.startsWith('s,o\r\n')).toBe(true);
    // Quoted where a value holds a quote, a comma or a line break; quotes doubled.
    expect(csv).toContain('https://rdl.example.org/a,"line one\r\nline ""two""\tand, a comma"\r\n');
    const tsv = write('text/tab-separated-values', VIRTUOSO).split('\n');
    expect(tsv[0]).toBe('?s\t?o');
    expect(tsv[1]).toBe(
      '<https://rdl.example.org/a>\t"line one\\r\\nline \\"two\\"\\tand, a comma"@en',
    );
    expect(tsv[2]).toMatch(/^_:\S+\t"42"\^\^<http:\/\/www\.w3\.org\/2001\/XMLSchema#integer>$/);
    // Each TSV term is a term of Turtle.
    const [subject, object] = (tsv[1] ?? '').split('\t');
    const [triple] = new Parser().parse(`${subject} <http://e/p> ${object} .`);
    expect(triple?.object.value).toBe('line one\r\nline "two"\tand, a comma');
  });
});
