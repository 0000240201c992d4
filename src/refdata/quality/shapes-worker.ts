/**
 * A thread that runs the quality rules' SHACL shapes (rdf-validate-shacl) over
 * the triples it is handed: the engine's work, seconds for a large library,
 * is kept off the thread that serves requests, and runs beside the reading
 * of the next batch there.
 */
import { Store } from 'n3';
import SHACLValidator from 'rdf-validate-shacl';
import { answerCalls } from '../../platform/threads/worker-calls.js';
import { RULE_SHAPES, ruleOfShape } from './rule-shapes.js';
import type { RuleId } from './rules.js';
import { decodeTriples, type EncodedTriples } from './shape-triples.js';

/** What a shape found, in terms a message carries. */
export interface ShapeResult {
  focus: string;
  rule: RuleId;
  message: string | undefined;
  violation: boolean;
  component: string | undefined;
}

const SH = 'http://www.w3.org/ns/shacl#';
// Made once (compiling the shapes is its cost), used for every batch after.
const validator = new SHACLValidator(RULE_SHAPES);

export const shapesApi = {
  async validate(triples: EncodedTriples): Promise<ShapeResult[]> {
    const report = await validator.validate(new Store(decodeTriples(triples)));
    const results: ShapeResult[] = [];
    for (const result of report.results) {
      const rule = result.sourceShape ? ruleOfShape(result.sourceShape) : undefined;
      if (!rule || !result.focusNode) continue;
      results.push({
        focus: result.focusNode.value,
        rule,
        message: result.message[0]?.value,
        violation: result.severity?.value === `${SH}Violation`,
        component: result.sourceConstraintComponent?.value,
      });
    }
    return results;
  },
};

answerCalls(shapesApi);
