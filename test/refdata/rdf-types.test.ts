import { DataFactory } from 'n3';
import { describe, expect, it } from 'vitest';
import { FamilyRegistry } from '../../src/refdata/families/registry.js';
import { GraphBuilder } from '../../src/refdata/rdf/graph.js';
import { rdfTypesOf } from '../../src/refdata/rdf/rdf-types.js';
import { RDL_NAMESPACE } from '../../src/refdata/rdf/vocabulary.js';

const BASE = 'https://rdl.example.org';
const IMF = 'http://ns.imfid.org/imf#';
const FAMILIES = new FamilyRegistry();
const SAMPLES: Record<string, Record<string, unknown>[]> = {
  library: [{ upperOntologies: [] }],
  class: [{ subClassOf: ['http://x.example/C'] }],
  property: [
    { types: ['number'], range: `${BASE}/d` },
    { types: ['controlledText'], range: `${BASE}/p` },
    { types: ['freeText'] },
    { types: ['boolean'] },
  ],
  'cfihos-entity': [{ entityType: 'tag', propertyReferences: [] }],
  picklist: [{ subClassOf: 'http://x.example/P' }],
  'picklist-value': [{ picklist: `${BASE}/cfihos/propertyPicklist/1` }],
  unit: [{ dimensionRef: `${BASE}/d`, measurementSystem: 'SI', symbol: 'm' }],
  dimension: [{ dimensionCode: 'L' }],
  'imf-attribute': [{ predicate: 'http://x.example/p' }],
  'imf-terminal': [
    {
      aspect: `${IMF}productAspect`,
      direction: 'input',
      referenceTerms: [],
      attributeReferences: [],
    },
  ],
  'imf-block': [
    {
      aspect: `${IMF}productAspect`,
      referenceTerms: [],
      attributeReferences: [],
      terminalReferences: [],
      hasPartBlockReferences: [],
    },
  ],
  symbol: [
    {
      dcIdentifier: 'S1',
      width: 10,
      height: 10,
      shape:
        '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 10 10"><path d="M0 0L10 10"/></svg>',
      centerOfRotation: { x: 5, y: 5 },
    },
  ],
};

describe('the types search lists for a hit', () => {
  it.each(Object.entries(SAMPLES))(
    'match the standard rdf:type triples of a %s',
    (family, bodies) => {
      for (const body of bodies) {
        const graph = new GraphBuilder(BASE, DataFactory.namedNode(`${BASE}/x`));
        FAMILIES.byKey(family)?.rdf(body, graph);
        const fromGraph = graph.quads
          .filter(
            (quad) => quad.predicate.value === 'http://www.w3.org/1999/02/22-rdf-syntax-ns#type',
          )
          .map((quad) => quad.object.value)
          .filter((type) => !type.startsWith(RDL_NAMESPACE));
        expect(rdfTypesOf(FAMILIES.byKey(family), body).sort()).toEqual(fromGraph.sort());
        expect(fromGraph.length).toBeGreaterThan(0);
      }
    },
  );
});

describe('a hit whose stored body its family can no longer map', () => {
  it('is listed without types rather than failing the search', () => {
    // A property stored before `types` was required: its mapping cannot run.
    expect(rdfTypesOf(FAMILIES.byKey('property'), { name: 'Old property' })).toEqual([]);
    expect(rdfTypesOf(FAMILIES.byKey('no-such-family'), {})).toEqual([]);
  });
});
