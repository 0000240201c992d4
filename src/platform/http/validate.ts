import type { ValidateFunction } from 'ajv';
import { fieldErrorsOf } from './errors.js';
import type { FieldError } from './problem.js';
import { schemaValidator } from './server.js';

/** The validator request bodies get (no coercion), for values that arrive another way. */
const bodies = schemaValidator({ coerceTypes: false });
const compiled = new WeakMap<object, ValidateFunction>();

/**
 * What validating `value` against `schema` as a JSON request body would say, in
 * the same words: a form that builds a body checks it exactly as the API would.
 */
export function bodyErrors(schema: object, value: unknown): FieldError[] {
  let validate = compiled.get(schema);
  if (!validate) {
    validate = bodies.compile(schema);
    compiled.set(schema, validate);
  }
  if (validate(value)) return [];
  return fieldErrorsOf(validate.errors ?? [], 'body');
}
