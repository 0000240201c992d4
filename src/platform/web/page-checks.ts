import type { FastifyRequest } from 'fastify';
import { HttpError, problem } from '../http/problem.js';
import { constantTimeEqual } from '../security/secrets.js';
import { fieldWithControlCharacter } from './forms.js';

/** The form field that carries the session's synchronizer token (Rails' name). */
export const CSRF_FIELD = 'authenticity_token';

/** One text field of a submitted form ('' when absent; the first when repeated). */
export function formField(body: unknown, name: string): string {
  const value = (body as Record<string, unknown> | undefined)?.[name];
  if (Array.isArray(value)) return typeof value[0] === 'string' ? value[0] : '';
  return typeof value === 'string' ? value : '';
}

/**
 * What every page request of either service is checked for, before its
 * handler runs (routes set `attachValidation`, so these checks decide):
 * - a malformed ID in the address is a page that is not there (404), not a
 *   lesson in schema validation; a signed-out visitor is sent to sign in first,
 *   so the handler runs and does that;
 * - a POST carries the session's form token (compared in constant time; 422 as
 *   in Rails), and no field holds a control character (400 naming the field).
 */
export function checkPageRequest(
  request: FastifyRequest,
  session: { csrf: string; signedIn: boolean } | undefined,
): void {
  const invalid = request.validationError;
  if (invalid) {
    if ((invalid as { validationContext?: string }).validationContext !== 'params') throw invalid;
    if (session?.signedIn) {
      throw new HttpError(problem(404, 'not-found', 'There is no page at this address.'));
    }
  }
  if (request.method !== 'POST') return;
  const sent = formField(request.body, CSRF_FIELD);
  if (!session || !sent || !constantTimeEqual(sent, session.csrf)) {
    throw new HttpError(
      problem(
        422,
        'invalid-authenticity-token',
        'The form has expired or did not come from this site. Go back, reload the page and try again.',
      ),
    );
  }
  const unusable = fieldWithControlCharacter(request.body);
  if (unusable !== undefined) {
    throw new HttpError(
      problem(
        400,
        'control-character',
        `The field ${unusable} contains a control character (such as NUL), which is not accepted. Remove it and try again.`,
      ),
    );
  }
}
