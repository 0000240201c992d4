import { DataFactory } from 'n3';
import { describe, expect, it } from 'vitest';
import { decodeTriples, encodeTriples } from '../../src/refdata/quality/shape-triples.js';

const { namedNode, blankNode, literal, quad } = DataFactory;
const XSD = 'http://www.w3.org/2001/XMLSchema#';

describe('triples handed to the shapes thread', () => {
  it('come back as the same terms: IRIs, blank nodes, and literals with a language or a datatype', () => {
    const subject = namedNode('https://example.org/rdl/pump');
    const triples = [
      quad(
        subject,
        namedNode('http://www.w3.org/2004/02/skos/core#prefLabel'),
        literal('Pump', 'en'),
      ),
      // A tag no BCP 47 reader takes, with a colon: still a language, not a datatype.
      quad(subject, namedNode('http://www.w3.org/2000/01/rdf-schema#label'), literal('x', 'en:x')),
      quad(
        subject,
        namedNode('https://example.org/count'),
        literal('3', namedNode(`${XSD}integer`)),
      ),
      quad(subject, namedNode('https://example.org/plain'), literal('plain text')),
      quad(subject, namedNode('https://example.org/part'), blankNode('b0')),
      quad(blankNode('b0'), namedNode('https://example.org/of'), subject),
    ];
    const back = decodeTriples(encodeTriples(triples));
    expect(back).toHaveLength(triples.length);
    for (const [at, triple] of back.entries())
      expect(triple.equals(triples[at] as (typeof triples)[number])).toBe(true);
  });
});
