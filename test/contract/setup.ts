/**
 * Runs the contract check after each test file (vitest's setupFiles). A response
 * the API description does not cover fails the file, unless it is listed in
 * known-gaps.txt: the operations not yet described, a list that only shrinks.
 * With CONTRACT_GAPS_OUT=<file>, every gap is appended there instead (how the
 * list is made: run the suite, sort the file, keep each line once).
 */
import { appendFileSync, readFileSync } from 'node:fs';
import { afterAll } from 'vitest';
import { contractViolations } from './recorder.js';

const knownGaps = new Set(
  readFileSync(new URL('./known-gaps.txt', import.meta.url), 'utf8')
    .split('\n')
    .filter((line) => line.trim() !== '' && !line.startsWith('#'))
    .map((line) => line.split(': ')[0]),
);

afterAll(() => {
  const violations = contractViolations();
  const output = process.env.CONTRACT_GAPS_OUT;
  if (output) {
    appendFileSync(output, violations.map((violation) => `${violation}\n`).join(''));
    return;
  }
  const unexpected = violations.filter((violation) => !knownGaps.has(violation.split(': ')[0]));
  if (unexpected.length > 0) {
    throw new Error(
      `Responses the API description does not cover (describe them, or list them in test/contract/known-gaps.txt):\n${unexpected.join('\n')}`,
    );
  }
});
