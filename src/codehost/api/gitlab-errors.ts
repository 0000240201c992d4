import { HttpError } from '../../platform/http/problem.js';
import { GITLAB_RECORD_INVALID, GITLAB_VERBATIM } from '../errors.js';
import { problem } from '../problem-codes.js';
import { RecordInvalid } from '../record-invalid.js';

/** An API error whose message GitLab words exactly. */
export function gitlabError(status: number, message: string): HttpError {
  return new HttpError(problem(status, GITLAB_VERBATIM, message));
}

/** GitLab's `not_found!('Group')`: also the answer for what the caller may not read. */
export function notFound(what: 'Group' | 'Project' | 'User'): HttpError {
  return gitlabError(404, `404 ${what} Not Found`);
}

export function forbidden(): HttpError {
  return gitlabError(403, '403 Forbidden');
}

/** A parameter of the wrong type or form: `400 Bad request - level is invalid`. */
export function badParameter(detail: string): HttpError {
  return new HttpError(problem(400, 'invalid-parameter', detail));
}

export function recordInvalidError(invalid: RecordInvalid): HttpError {
  return new HttpError(
    problem(400, GITLAB_RECORD_INVALID, invalid.message, {
      errors: Object.entries(invalid.errors).flatMap(([field, messages]) =>
        messages.map((detail) => ({ in: 'body' as const, field, detail })),
      ),
    }),
  );
}

/** Runs a write, answering a record its store refuses as GitLab does (400, messages per attribute). */
export async function recordWrite<T>(write: () => Promise<T>): Promise<T> {
  try {
    return await write();
  } catch (error) {
    if (error instanceof RecordInvalid) throw recordInvalidError(error);
    throw error;
  }
}
