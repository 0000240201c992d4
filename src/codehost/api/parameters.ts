import { type TObject, type TSchema, Type } from '@sinclair/typebox';
import type { FastifyRequest } from 'fastify';
import type { VisibilityLevel } from '../db/tables.js';
import { isVisibilityLevel, VISIBILITY_LEVELS } from '../namespaces/levels.js';
import { badParameter } from './gitlab-errors.js';

export type Parameters = Readonly<Record<string, unknown>>;

/**
 * The request's parameters as GitLab (Grape) sees them: the query string, with a
 * form or JSON body over it. Clients send all three. Path parameters are kept
 * apart, so that a stray `?id=` can never stand in for the `:id` of the path.
 */
export function requestParameters(request: FastifyRequest): Parameters {
  const query = (request.query ?? {}) as Record<string, unknown>;
  const body = request.body;
  if (body === undefined || body === null || body === '') return query;
  if (typeof body !== 'object' || Array.isArray(body)) {
    throw badParameter('The request body must be a JSON object or a form.');
  }
  return { ...query, ...(body as Record<string, unknown>) };
}

/** A single value: a repeated parameter or a nested object is not one. */
function scalar(parameters: Parameters, name: string): unknown {
  const value = parameters[name];
  if (value !== null && typeof value === 'object') throw badParameter(`${name} is invalid`);
  return value;
}

export function stringParameter(parameters: Parameters, name: string): string | undefined {
  const value = scalar(parameters, name);
  if (value === undefined || value === null) return undefined;
  if (typeof value === 'string') {
    // No text parameter has a use for NUL, and PostgreSQL cannot hold it.
    if (value.includes('\u0000')) throw badParameter(`${name} is invalid`);
    return value;
  }
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  throw badParameter(`${name} is invalid`);
}

export function requiredString(parameters: Parameters, name: string): string {
  const value = stringParameter(parameters, name);
  if (value === undefined) throw badParameter(`${name} is missing`);
  return value;
}

export function integerParameter(parameters: Parameters, name: string): number | undefined {
  const value = scalar(parameters, name);
  if (value === undefined || value === null || value === '') return undefined;
  const text = typeof value === 'number' ? String(value) : value;
  if (typeof text !== 'string' || !/^-?\d{1,15}$/.test(text.trim())) {
    throw badParameter(`${name} is invalid`);
  }
  return Number(text);
}

export function requiredInteger(parameters: Parameters, name: string): number {
  const value = integerParameter(parameters, name);
  if (value === undefined) throw badParameter(`${name} is missing`);
  return value;
}

/** The words Grape (through Virtus) accepts as true and false, in any letter case. */
const TRUE_WORDS = new Set(['1', 'on', 't', 'true', 'y', 'yes']);
const FALSE_WORDS = new Set(['0', 'off', 'f', 'false', 'n', 'no']);

/** A boolean, or `invalid` when the value is not one; undefined when absent. */
export function parseBoolean(value: unknown): boolean | 'invalid' | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value === 'boolean') return value;
  if (value === 1 || value === 0) return value === 1;
  if (typeof value === 'string') {
    const word = value.trim().toLowerCase();
    if (TRUE_WORDS.has(word)) return true;
    if (FALSE_WORDS.has(word)) return false;
  }
  return 'invalid';
}

export function booleanParameter(parameters: Parameters, name: string): boolean | undefined {
  const value = parseBoolean(parameters[name]);
  if (value === 'invalid') throw badParameter(`${name} is invalid`);
  return value;
}

/** A value from a fixed list; Grape's wording when it is not one of them. */
export function choiceParameter<T extends string>(
  parameters: Parameters,
  name: string,
  choices: readonly T[],
): T | undefined {
  const value = stringParameter(parameters, name);
  if (value === undefined) return undefined;
  if (!(choices as readonly string[]).includes(value)) {
    throw badParameter(`${name} does not have a valid value`);
  }
  return value as T;
}

export const ID_PARAMS = Type.Object({
  id: Type.String({
    minLength: 1,
    maxLength: 1300,
    description: 'Numeric id, or the URL-encoded full path',
  }),
});

/** The values `sort` takes. */
export const SORT_ORDERS = ['asc', 'desc'] as const;

/**
 * A route's parameters as its description shows them, read by the handler
 * itself (query string, form or JSON body, each leniently) and refused in
 * GitLab's words, so the framework checks nothing here. Reads take them in the
 * query string; writes in a form or JSON body (the query string works too).
 */
export const describedQuery = (parameters: TObject) => ({ described: { querystring: parameters } });
export const describedBody = (parameters: TObject) => ({
  consumes: ['application/json', 'application/x-www-form-urlencoded'],
  described: { body: parameters },
});

/** An optional parameter that takes one of `choices`. */
export function choiceOf(choices: readonly string[], description?: string): TSchema {
  return Type.Optional(
    Type.Union(
      choices.map((choice) => Type.Literal(choice)),
      description === undefined ? {} : { description },
    ),
  );
}

/** The names of the visibility levels, as API v4 takes them. */
export const VISIBILITY_NAMES = Object.keys(
  VISIBILITY_LEVELS,
) as (keyof typeof VISIBILITY_LEVELS)[];

/** What `visibilityParameter` reads. */
export const VISIBILITY_PARAMETERS = {
  visibility: choiceOf(VISIBILITY_NAMES),
  visibility_level: Type.Optional(
    Type.Union(
      Object.values(VISIBILITY_LEVELS).map((level) => Type.Literal(level)),
      { description: 'API v3: 0 private, 10 internal, 20 public' },
    ),
  ),
  public: Type.Optional(
    Type.Boolean({ description: 'API v3: true for public, false for private' }),
  ),
};

/** `visibility` (v4 names) or `visibility_level` (v3 numbers); v3's `public` for projects. */
export function visibilityParameter(parameters: Parameters): VisibilityLevel | undefined {
  const name = choiceParameter(parameters, 'visibility', VISIBILITY_NAMES);
  if (name !== undefined) return VISIBILITY_LEVELS[name];
  const level = integerParameter(parameters, 'visibility_level');
  if (level !== undefined) {
    if (!isVisibilityLevel(level))
      throw badParameter('visibility_level does not have a valid value');
    return level;
  }
  const isPublic = booleanParameter(parameters, 'public');
  return isPublic === undefined ? undefined : isPublic ? 20 : 0;
}

/** The description and visibility a new group or project may be given, as its store takes them. */
export function descriptionAndVisibility(parameters: Parameters) {
  const description = stringParameter(parameters, 'description');
  const visibilityLevel = visibilityParameter(parameters);
  return {
    ...(description !== undefined ? { description } : {}),
    ...(visibilityLevel !== undefined ? { visibilityLevel } : {}),
  };
}
