import type { BodyTextPolicy } from '../../platform/http/body-parsers.js';
import { type FieldError, HttpError } from '../../platform/http/problem.js';
import { problem } from '../problem-codes.js';

/**
 * What every body's text must be: text ends up in RDF/XML and every other
 * format, so no character XML cannot hold, and one spelling of each name
 * (search already treats NFC and NFD as one). Imported records are held to it too.
 */
export const REFDATA_TEXT_POLICY: BodyTextPolicy = {
  normalizeNfc: true,
  refuseControlCharacters: true,
};

/** Fields people write prose in: stored without surrounding white space. */
const PROSE_FIELDS = new Set(['name', 'description', 'changeJustification', 'packageName']);

/** JSON pointers of body strings that are blank or hold NUL, with why. */
function textErrors(value: unknown, pointer = ''): FieldError[] {
  if (typeof value === 'string') {
    if (value.includes('\u0000'))
      return [{ in: 'body', field: pointer, detail: 'must not contain NUL' }];
    if (value.trim() === '')
      return [{ in: 'body', field: pointer, detail: 'must not be empty or only white space' }];
    return [];
  }
  if (Array.isArray(value))
    return value.flatMap((item, index) => textErrors(item, `${pointer}/${index}`));
  if (value !== null && typeof value === 'object') {
    return Object.entries(value).flatMap(([key, item]) =>
      textErrors(item, `${pointer}/${key.replaceAll('~', '~0').replaceAll('/', '~1')}`),
    );
  }
  return [];
}

function trimProse(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(trimProse);
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(
    Object.entries(value).map(([key, item]) => [
      key,
      typeof item === 'string' && PROSE_FIELDS.has(key) ? item.trim() : trimProse(item),
    ]),
  );
}

function invalid(errors: FieldError[]): HttpError {
  return new HttpError(
    problem(400, 'validation', errors.map((error) => `${error.field} ${error.detail}`).join('; '), {
      errors,
    }),
  );
}

/**
 * A write body ready for the rules: no text field blank or holding NUL (which no
 * field may hold, nor PostgreSQL store), and prose trimmed as it will be stored.
 */
export function cleanBody<T extends object>(body: T): T {
  const errors = textErrors(body);
  if (errors.length > 0) throw invalid(errors);
  return trimProse(body) as T;
}

/** One required text value, trimmed; blank is refused like a missing one. */
export function requiredText(value: string, pointer: string): string {
  const errors = textErrors(value, pointer);
  if (errors.length > 0) throw invalid(errors);
  return value.trim();
}
