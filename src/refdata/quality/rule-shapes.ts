import { DataFactory, Parser, type Quad, Store } from 'n3';
import { readAsset } from '../../platform/web/assets.js';
import { type RuleId, ruleOfIri } from './rules.js';

const SH = 'http://www.w3.org/ns/shacl#';

export const parseAsset = (name: string): Quad[] =>
  new Parser({ format: 'text/turtle' }).parse(
    readAsset(new URL(`assets/${name}`, import.meta.url)),
  );

/** The quality rules that SHACL can say, as shapes (read once per thread that asks). */
export const RULE_SHAPES = new Store(parseAsset('refdata-quality.shacl.ttl'));

/**
 * The predicates the rules' shapes read (their paths, the types `sh:class`
 * reads, what targets them): the triples handed to the engine, which then
 * indexes a third of a resource's triples rather than all of them.
 */
export const SHAPED_PREDICATES = new Set([
  ...RULE_SHAPES.getObjects(null, `${SH}path`, null).map((term) => term.value),
  ...RULE_SHAPES.getObjects(null, `${SH}targetSubjectsOf`, null).map((term) => term.value),
  'http://www.w3.org/1999/02/22-rdf-syntax-ns#type',
]);

/** The node shape a result came from: itself, or the one holding it as a property shape. */
export function ruleOfShape(shape: { termType: string; value: string }): RuleId | undefined {
  if (shape.termType === 'NamedNode') return ruleOfIri(shape.value);
  if (shape.termType !== 'BlankNode') return undefined;
  const holder = RULE_SHAPES.getSubjects(
    `${SH}property`,
    DataFactory.blankNode(shape.value),
    null,
  )[0];
  return holder ? ruleOfIri(holder.value) : undefined;
}
