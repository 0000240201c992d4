/**
 * The complete IMF SHACL checked against the IMF authors' own grammars for type
 * shapes (test/fixtures/imf, copied unchanged from ns.imfid.org): the types grammar,
 * run with rdf-validate-shacl, and the terms grammar, a SPARQL constraint, run with
 * oxigraph. docs/shacl.md lists the rules met and the ones where PCA's style wins.
 */
import { readFileSync } from 'node:fs';
import { DataFactory, Parser, type Quad, Store, Writer } from 'n3';
import * as oxigraph from 'oxigraph';
import SHACLValidator from 'rdf-validate-shacl';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DATABASE_KINDS } from '../harness.js';
import {
  create,
  createLibrary,
  guidOf,
  iriQuery,
  type Refdata,
  startRefdata,
  uniqueName,
} from './helpers.js';

const { namedNode, quad } = DataFactory;
const IMF = 'http://ns.imfid.org/imf#';
const SH = 'http://www.w3.org/ns/shacl#';
const RDFS = 'http://www.w3.org/2000/01/rdf-schema#';
const SKOS = 'http://www.w3.org/2004/02/skos/core#';

const fixture = (name: string) =>
  readFileSync(new URL(`../fixtures/imf/${name}`, import.meta.url), 'utf8');
const parse = (text: string): Quad[] => new Parser({ format: 'text/turtle' }).parse(text);

const TYPES_GRAMMAR = parse(fixture('imf-types-grammar.shacl.ttl'));
const TERMS_GRAMMAR = parse(fixture('imf-terms-grammar.shacl.ttl'));
const ONTOLOGY = new Store(parse(fixture('imf-ontology.owl.ttl')));

const PROPERTY_TARGET_WARNING = 'sh:property target';
const ATTRIBUTE_PREDICATE_WARNING = 'The AttributeType does not specify a imf:predicate.';

interface Finding {
  severity: string;
  focus: string;
  /** The grammar's sh:name and sh:message of the property shape that found it. */
  name: string;
  message: string;
}

/**
 * Runs the types grammar over a type SHACL graph. Its TypeShape targets `imf:Type`,
 * a class of the grammar's IMF release that IMF 0.3.0 no longer declares, so the
 * data here states `imf:BlockType` and `imf:TerminalType` as its subclasses for the
 * shape to apply. Of its imports, the terms grammar is SPARQL (run below
 * through oxigraph) and SHACL's own shapes-for-shapes are not shipped, so both
 * import as empty graphs.
 */
async function runTypesGrammar(shacl: Quad[]): Promise<Finding[]> {
  const validator = new SHACLValidator(new Store(TYPES_GRAMMAR), {
    importGraph: () => new Store(),
  });
  const data = new Store(shacl);
  for (const kind of ['BlockType', 'TerminalType'])
    data.addQuad(
      quad(namedNode(IMF + kind), namedNode(`${RDFS}subClassOf`), namedNode(`${IMF}Type`)),
    );
  const report = await validator.validate(data);
  const names = new Store(TYPES_GRAMMAR);
  return report.results.map((result) => {
    const text = (predicate: string) =>
      names.getObjects(result.sourceShape, namedNode(SH + predicate), null)[0]?.value ?? '';
    return {
      severity: result.severity.value.replace(SH, ''),
      focus: result.focusNode.value,
      name: text('name'),
      message: text('message'),
    };
  });
}

/** The IMF IRIs in a graph that the terms grammar does not recognise. */
function unrecognisedImfTerms(shacl: Quad[]): string[] {
  const selects = new Store(TERMS_GRAMMAR).getObjects(null, namedNode(`${SH}select`), null);
  expect(selects).toHaveLength(1);
  const store = new oxigraph.Store();
  store.load(new Writer({ format: 'N-Triples' }).quadsToString(shacl), {
    format: 'application/n-triples',
  });
  const rows = store.query((selects[0] as { value: string }).value) as Map<string, oxigraph.Term>[];
  return rows.map((row) => (row.get('value') as oxigraph.Term).value).sort();
}

/** The property shape of `type` whose path is `path`. */
function propertyShapeOn(store: Store, type: string, path: string): Quad['subject'] {
  const shape = store
    .getObjects(type, `${SH}property`, null)
    .find((node) => store.countQuads(node, `${SH}path`, path, null) > 0);
  if (shape?.termType !== 'BlankNode') throw new Error(`${type} has no property shape on ${path}`);
  return shape;
}

function count(values: string[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const value of values) counts[value] = (counts[value] ?? 0) + 1;
  return counts;
}

describe.each(DATABASE_KINDS)(
  "complete IMF SHACL against the IMF authors' grammars on %s",
  (kind) => {
    let service: Refdata;
    let temperature: string;
    let pressure: string;
    let inlet: string;
    let outlet: string;
    let element: string;
    let transmitter: string;
    beforeAll(async () => {
      service = await startRefdata(kind);
      const ontology = await createLibrary(service);
      temperature = (
        await create(service, '/imf/attributetypes', {
          name: uniqueName('Temperature'),
          ontology,
          predicate: 'http://example.org/temperature',
          uom: 'http://qudt.org/vocab/unit/DEG_C',
          rangeQualifier: `${IMF}maximumQualifier`,
          provenanceQualifier: `${IMF}measuredQualifier`,
          regularityQualifier: `${IMF}continuousQualifier`,
          scopeQualifier: `${IMF}operatingQualifier`,
        })
      ).iri;
      pressure = (
        await create(service, '/imf/attributetypes', {
          name: uniqueName('Pressure'),
          ontology,
          predicate: 'http://example.org/pressure',
        })
      ).iri;
      const terminal = async (name: string, direction: string, attributes: string[]) =>
        (
          await create(service, '/imf/terminaltypes', {
            name: uniqueName(name),
            ontology,
            aspect: `${IMF}productAspect`,
            direction,
            referenceTerms: [],
            attributeReferences: attributes.map((entityUri) => ({
              entityUri,
              minCardinality: 0,
              maxCardinality: 1,
            })),
          })
        ).iri;
      inlet = await terminal('Process inlet', 'input', [pressure]);
      outlet = await terminal('Signal out', 'output', []);
      const block = (name: string, body: Record<string, unknown>) =>
        create(service, '/imf/blocktypes', {
          name: uniqueName(name),
          ontology,
          aspect: `${IMF}productAspect`,
          referenceTerms: [],
          attributeReferences: [],
          terminalReferences: [],
          hasPartBlockReferences: [],
          ...body,
        });
      element = (
        await block('Sensor element', {
          terminalReferences: [{ entityUri: inlet, minCardinality: 1, maxCardinality: 1 }],
        })
      ).iri;
      transmitter = (
        await block('Transmitter', {
          attributeReferences: [
            { entityUri: temperature, minCardinality: 1, maxCardinality: 1 },
            { entityUri: pressure, minCardinality: 0 },
          ],
          terminalReferences: [
            { entityUri: inlet, minCardinality: 1, maxCardinality: 1 },
            { entityUri: outlet, minCardinality: 0, maxCardinality: 2 },
          ],
          hasPartBlockReferences: [{ entityUri: element, minCardinality: 1, maxCardinality: 1 }],
        })
      ).iri;
      // The element also has the transmitter as a part: a cycle.
      const cycle = await service.call('PUT', `/imf/blocktypes?${iriQuery(element)}`, {
        body: {
          changeJustification: 'Cycle',
          name: uniqueName('Sensor element'),
          description: 'd',
          ontology,
          aspect: `${IMF}productAspect`,
          referenceTerms: [],
          attributeReferences: [],
          terminalReferences: [{ entityUri: inlet, minCardinality: 1, maxCardinality: 1 }],
          hasPartBlockReferences: [{ entityUri: transmitter, minCardinality: 0 }],
        },
      });
      expect(cycle.statusCode).toBe(204);
    });
    afterAll(async () => service?.close());

    async function completeShacl(route: 'blocks' | 'terminals', iri: string): Promise<Quad[]> {
      const parameter = route === 'blocks' ? 'blockId' : 'terminalId';
      const response = await service.call(
        'GET',
        `/api/${route}/complete-imf-shacl?${parameter}=${guidOf(iri)}`,
        { roles: ['Reader'], headers: { accept: 'text/turtle' } },
      );
      expect(response.statusCode).toBe(200);
      return parse(response.body);
    }

    describe('the types grammar', () => {
      it('finds no violation, only the warnings where PCA style leaves a property shape without a value target', async () => {
        const findings = await runTypesGrammar(await completeShacl('blocks', transmitter));
        expect(findings.filter((finding) => finding.severity === 'Violation')).toEqual([]);
        // TypeShape's "sh:property target" warning: attribute references and the
        // qualified terminal and part references name no sh:class, sh:datatype and
        // the like; the aspect and direction shapes (sh:hasValue) pass.
        const targetWarnings = findings.filter((f) => f.name === PROPERTY_TARGET_WARNING);
        expect(targetWarnings.every((f) => f.severity === 'Warning')).toBe(true);
        expect(count(targetWarnings.map((f) => f.focus))).toEqual({
          [transmitter]: 2 + 2 + 1,
          [element]: 1 + 1,
          [inlet]: 1,
        });
        // AttributeShape's warning: attribute types carry imf:predicate directly, as
        // PCA's punned datatype properties, not in a property shape on imf:predicate.
        const attributeWarnings = findings.filter((f) => f.message === ATTRIBUTE_PREDICATE_WARNING);
        expect(attributeWarnings.every((f) => f.severity === 'Warning')).toBe(true);
        // Both its sh:hasValue and its sh:minCount find nothing, so each attribute type
        // gets the warning twice.
        expect(count(attributeWarnings.map((f) => f.focus))).toEqual({
          [temperature]: 2,
          [pressure]: 2,
        });
        expect(findings).toHaveLength(targetWarnings.length + attributeWarnings.length);
      });

      it('finds no violation in a terminal on its own', async () => {
        const findings = await runTypesGrammar(await completeShacl('terminals', outlet));
        expect(findings.filter((finding) => finding.severity === 'Violation')).toEqual([]);
      });

      it('would report a qualified shape without sh:minCount, and a range facet without a datatype', async () => {
        const shacl = await completeShacl('blocks', transmitter);
        const store = new Store(shacl);
        const terminalShape = propertyShapeOn(store, transmitter, `${IMF}hasTerminal`);
        const withoutMinCount = shacl.filter(
          (q) => !(q.subject.equals(terminalShape) && q.predicate.value === `${SH}minCount`),
        );
        expect(withoutMinCount.length).toBe(shacl.length - 1);
        const violations = (await runTypesGrammar(withoutMinCount)).filter(
          (f) => f.severity === 'Violation',
        );
        expect(violations.map((f) => f.focus)).toEqual([transmitter]);

        const attributeShape = propertyShapeOn(store, transmitter, temperature);
        const withFacet = [
          ...shacl,
          quad(attributeShape, namedNode(`${SH}minInclusive`), DataFactory.literal('0')),
        ];
        const facetViolations = (await runTypesGrammar(withFacet)).filter(
          (f) => f.severity === 'Violation',
        );
        expect(facetViolations.map((f) => f.focus)).toEqual([transmitter]);
      });
    });

    describe('the terms grammar', () => {
      it('recognises every IMF term but the direction terms, which IMF 0.3.0 added after the grammar', async () => {
        const unknown = unrecognisedImfTerms(await completeShacl('blocks', transmitter));
        expect(unknown).toEqual([
          `${IMF}direction`,
          `${IMF}inputDirection`,
          `${IMF}outputDirection`,
        ]);
        for (const term of unknown) {
          const notes = ONTOLOGY.getObjects(term, `${SKOS}changeNote`, null).map((n) => n.value);
          expect(
            notes.some((note) => note.startsWith('0.3.0')),
            term,
          ).toBe(true);
        }
      });

      it('would report a misspelt IMF term', async () => {
        const shacl = await completeShacl('blocks', transmitter);
        const misspelt = [
          ...shacl,
          quad(namedNode(transmitter), namedNode(`${IMF}hasTerminals`), namedNode(outlet)),
        ];
        expect(unrecognisedImfTerms(misspelt)).toContain(`${IMF}hasTerminals`);
      });
    });
  },
);
