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

/** What a problem may say beyond its status, code and detail. */
export type ProblemExtra = Partial<Omit<Problem, 'status' | 'code' | 'detail'>>;

/** The codes the platform itself raises, in every service (docs/errors.md lists them). */
export const PLATFORM_PROBLEM_CODES = [
  'validation',
  'malformed-body',
  'payload-too-large',
  'unsupported-media-type',
  'bad-request',
  'internal',
  'method-not-allowed',
  'not-found',
  'unstorable-text',
  'conflict',
  'control-character',
  'invalid-authenticity-token',
  'rate-limited',
  'request-timeout',
  'headers-too-large',
  'malformed-request',
] as const;
export type PlatformProblemCode = (typeof PLATFORM_PROBLEM_CODES)[number];

/**
 * A service's problem codes: the platform's and its own, declared once, as
 * Fastify's `createError` list is a catalogue of its errors. The catalogue's
 * `problem` takes only its codes, so an undeclared code does not compile, and a
 * test holds docs/errors.md to listing every one.
 */
export interface ProblemCatalogue<Code extends string> {
  readonly codes: readonly Code[];
  problem(status: number, code: Code, detail?: string, extra?: ProblemExtra): Problem;
}

export function problemCatalogue<const Own extends string>(
  own: readonly Own[],
): ProblemCatalogue<Own | PlatformProblemCode> {
  return {
    codes: [...PLATFORM_PROBLEM_CODES, ...own],
    problem: createProblem,
  };
}

/** A problem of the platform's own (services use their catalogue's `problem`). */
export function problem(
  status: number,
  code: PlatformProblemCode,
  detail?: string,
  extra: ProblemExtra = {},
): Problem {
  return createProblem(status, code, detail, extra);
}

function createProblem(
  status: number,
  code: string,
  detail?: string,
  extra: ProblemExtra = {},
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
