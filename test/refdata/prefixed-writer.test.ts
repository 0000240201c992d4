import { DataFactory, Parser, type Quad, Writer } from 'n3';
import { describe, expect, it } from 'vitest';
import { preparePrefixes, writeAll } from '../../src/refdata/rdf/prefixed-writer.js';
import { PREFIXES } from '../../src/refdata/rdf/vocabulary.js';

const { namedNode, literal, quad, blankNode, defaultGraph } = DataFactory;

/** What n3 writes for `quads` with a writer of its own: the output to match. */
function plain(quads: Quad[], format: 'Turtle' | 'TriG'): Promise<string> {
  return writeAll(new Writer({ format, prefixes: PREFIXES }), quads);
}

const RDL = 'https://w3id.org/refdata/vocab#';
const OWL = 'http://www.w3.org/2002/07/owl#';
const XSD = 'http://www.w3.org/2001/XMLSchema#';
const subject = namedNode('http://localhost:3000/rdl/ec000123');

const graphs: Record<string, string> = {
  'a class as dereferenced': `
    @prefix rdl: <${RDL}>. @prefix owl: <${OWL}>.
    @prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#>.
    @prefix skos: <http://www.w3.org/2004/02/skos/core#>.
    <http://localhost:3000/rdl/ec000123> a owl:Class, rdl:Class;
      rdfs:label "centrifugal pump"@en; skos:definition "Moves \\"fluid\\"\\n by rotation."@en;
      rdfs:subClassOf <http://localhost:3000/rdl/ec000001>;
      rdl:created "2026-01-01T00:00:00Z"^^<${XSD}dateTime>;
      skos:exactMatch <http://data.posccaesar.org/rdl/RDS12345>.
    <http://localhost:3000/rdl/ec000001> rdfs:label "pump"@en, "Pumpe"@de.`,
  'blank nodes, nested and shared': `
    @prefix sh: <http://www.w3.org/ns/shacl#>.
    <http://localhost:3000/rdl/shape> sh:property [ sh:path <${RDL}a>; sh:minCount 1 ],
      [ sh:path <${RDL}b>; sh:in (<${RDL}x> <${RDL}y>) ].
    _:shared <${RDL}p> _:shared.`,
  'IRIs a prefix begins but cannot abbreviate': `
    <${OWL}a/b> <${RDL}has.dot.> <${RDL}>.
    <${RDL}-dash> <${RDL}p> <rdl:looks-prefixed>, <urn:x-y:z>, <http://example.org/é>.`,
};

describe('Turtle and TriG with prepared prefixes', () => {
  const prepared = preparePrefixes(PREFIXES);

  it("shares the template writer's matcher under the locked n3 (not the fallback)", () => {
    expect(prepared.shared).toBe(true);
  });

  it('begins with the same prefix block as a plain writer, and writes it for no triples', async () => {
    expect(prepared.header).toBe(await plain([], 'Turtle'));
    expect(prepared.header).toContain(`@prefix rdl: <${RDL}>.\n`);
    expect(await prepared.write([], 'Turtle')).toBe(prepared.header);
  });

  for (const [shape, turtle] of Object.entries(graphs)) {
    it(`writes ${shape} exactly as a plain writer does`, async () => {
      const quads = new Parser().parse(turtle);
      expect(quads.length).toBeGreaterThan(2);
      const written = await prepared.write(quads, 'Turtle');
      expect(written).toBe(await plain(quads, 'Turtle'));
      // And reads back as the same triples.
      expect(new Parser().parse(written)).toHaveLength(quads.length);
    });
  }

  it('abbreviates with the shared matcher across many writers, one after another', async () => {
    const first = await prepared.write(
      [quad(subject, namedNode(`${RDL}status`), namedNode(`${RDL}Published`))],
      'Turtle',
    );
    const second = await prepared.write(
      [quad(subject, namedNode(`${OWL}sameAs`), blankNode('b1'))],
      'Turtle',
    );
    expect(first.slice(prepared.header.length)).toBe(
      '<http://localhost:3000/rdl/ec000123> rdl:status rdl:Published.\n',
    );
    expect(second.slice(prepared.header.length)).toBe(
      '<http://localhost:3000/rdl/ec000123> owl:sameAs _:b1.\n',
    );
  });

  it('writes named graphs in TriG as a plain writer does', async () => {
    const graph = namedNode('http://localhost:3000/rdl/graph');
    const quads = [
      quad(subject, namedNode(`${RDL}p`), literal('1', namedNode(`${XSD}integer`)), graph),
      quad(subject, namedNode(`${RDL}q`), literal('x'), defaultGraph()),
    ];
    const written = await prepared.write(quads, 'TriG');
    expect(written).toBe(await plain(quads, 'TriG'));
    expect(written).toContain('<http://localhost:3000/rdl/graph> {');
  });
});
