import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { CODEHOST_PROBLEMS } from '../../src/codehost/problem-codes.js';
import { PLATFORM_PROBLEM_CODES } from '../../src/platform/http/problem.js';
import { REFDATA_PROBLEMS } from '../../src/refdata/problem-codes.js';

/** The codes docs/errors.md names, each written as `code`. */
function documentedCodes(): Set<string> {
  const text = readFileSync(new URL('../../docs/errors.md', import.meta.url), 'utf8');
  return new Set([...text.matchAll(/`([a-z_-]+)`/g)].map((match) => match[1] as string));
}

describe('docs/errors.md', () => {
  it.each([
    ['the platform', PLATFORM_PROBLEM_CODES],
    ['codehost', CODEHOST_PROBLEMS.codes],
    ['refdata', REFDATA_PROBLEMS.codes],
  ])('lists every problem code %s can raise', (_owner, codes) => {
    const documented = documentedCodes();
    expect(codes.filter((code) => !documented.has(code))).toEqual([]);
  });
});
