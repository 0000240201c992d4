import { STATUS_CODES } from 'node:http';

/** Where an invalid value was found. */
export type FieldLocation = 'body' | 'query' | 'path' | 'header';

export interface FieldError {
  in: FieldLocation;
  /** A JSON pointer into the body, or the parameter or header name. */
  field: string;
  detail: string;
}

/**
 * A service-neutral description of a failed request. Each service renders it in
 * its own wire shape (GitLab-style messages, RFC 9457 Problem Details, ...).
 */
export interface Problem {
  status: number;
  /** Stable machine-readable kind, e.g. `not-found`, `validation`. */
  code: string;
  /** Short human summary of the kind; defaults to the HTTP reason phrase. */
  title: string;
  /** Explanation specific to this occurrence; never internals. */
  detail?: string;
  errors?: FieldError[];
  /** Response headers that belong to the problem, e.g. `Allow` on 405. */
  headers?: Record<string, string>;
}

export function problem(
  status: number,
  code: string,
  detail?: string,
  extra: Partial<Omit<Problem, 'status' | 'code' | 'detail'>> = {},
): Problem {
  return {
    status,
    code,
    title: extra.title ?? STATUS_CODES[status] ?? 'Error',
    ...(detail === undefined ? {} : { detail }),
    ...(extra.errors ? { errors: extra.errors } : {}),
    ...(extra.headers ? { headers: extra.headers } : {}),
  };
}

/** 400 listing every invalid field, each in plain words. */
export function validationProblem(errors: FieldError[]): Problem {
  return problem(
    400,
    'validation',
    errors.map((error) => `${error.field || error.in} ${error.detail}`).join('; '),
    { title: 'Invalid request', errors },
  );
}

/** Thrown by route code to answer with a problem; the error handler renders it. */
export class HttpError extends Error {
  override readonly name = 'HttpError';
  constructor(readonly problem: Problem) {
    super(problem.detail ?? problem.title);
  }
}

/** What an address that names nothing answers, whatever its surface. */
export const GENERIC_NOT_FOUND = 'No resource exists at this address.';
