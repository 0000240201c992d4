/**
 * Schemas of what refdata answers, for its routes' `schema.response`: the API
 * description says what comes back, and the contract test holds every response
 * of the test suite to it.
 */
import { type TSchema, Type } from '@sinclair/typebox';
import { RETRY_AFTER, wwwAuthenticate } from '../platform/http/described-headers.js';
import { STATUSES } from './db/tables.js';
import { COMMON_FIELDS } from './families/common.js';
import type { Family } from './families/family.js';
import { RDF_FORMATS, RDF_MEDIA_TYPES } from './rdf/serialize.js';

/** A lifecycle status. */
export const StatusSchema = Type.Union(STATUSES.map((status) => Type.Literal(status)));

/** A JSON-LD document as our writer makes it: a context and a flat graph. */
export const JsonLdDocument = Type.Object({
  '@context': Type.Unknown(),
  '@graph': Type.Array(Type.Unknown()),
});

/** RFC 9457 Problem Details, as `problemDetailsRenderer` writes them. */
const Problem = Type.Object(
  {
    type: Type.String({ description: 'A problem type documented at its address, or about:blank' }),
    title: Type.String(),
    status: Type.Integer(),
    detail: Type.Optional(Type.String()),
    instance: Type.String({ description: 'The path of the request' }),
    traceId: Type.String({ description: 'Quote it when reporting a problem' }),
    errors: Type.Optional(
      Type.Array(
        Type.Object(
          {
            pointer: Type.Optional(Type.String({ description: 'A JSON pointer into the body' })),
            parameter: Type.Optional(Type.String()),
            header: Type.Optional(Type.String()),
            detail: Type.String(),
          },
          { additionalProperties: false },
        ),
      ),
    ),
  },
  { additionalProperties: false, title: 'Problem Details' },
);

const WHY: Record<number, string> = {
  400: 'A parameter or field is missing, malformed or breaks a rule (validation, domain-rule)',
  401: 'No bearer token, or one refdata does not accept (invalid-token, with WWW-Authenticate)',
  403: 'The token lacks the role the operation needs (missing-role)',
  404: 'Nothing at this IRI, or it was removed',
  406: 'None of the representations the Accept header allows is offered',
  409: 'A duplicate, a resource not in the state the step starts from, or changed meanwhile',
  410: 'The resource was removed (a value its picklist no longer lists)',
  413: 'The body is larger than the limit',
  415: 'The body is in a type the operation does not take',
  500: 'An unforeseen failure (internal), with the traceId to quote',
  503: 'Search or the SPARQL dataset is being built, busy or down (Retry-After)',
};

/** Headers an error answer carries that a client acts on. */
const PROBLEM_HEADERS: Partial<Record<number, Record<string, unknown>>> = {
  401: wwwAuthenticate('Bearer, with error and error_description (RFC 6750)'),
  503: RETRY_AFTER,
};

/**
 * The errors an operation can answer, by status: Problem Details for programs,
 * or a page for a browser that asked for HTML without a token.
 */
export function problems(...statuses: (keyof typeof WHY)[]): Record<number, unknown> {
  return Object.fromEntries(
    statuses.map((status) => [
      status,
      {
        description: WHY[status],
        ...(PROBLEM_HEADERS[status] ? { headers: PROBLEM_HEADERS[status] } : {}),
        content: {
          'application/problem+json': { schema: Problem },
          'text/html': { schema: Type.String({ description: 'The same, as a page' }) },
        },
      },
    ]),
  );
}

/** Headers a success answer carries, for `answer` and `noContent`. */
export const HEADERS = {
  etag: { type: 'string', description: "The resource's version: send it as If-Match" },
  location: { type: 'string', description: 'Where the new resource is read' },
  'cache-status': {
    type: 'string',
    description:
      'RFC 9211: `refdata-search; hit` when answered from the answers kept, else `refdata-search; fwd=miss` (none kept), `fwd=request` (one kept, but the request asked afresh) or `fwd=bypass` (none are kept), with `; stored` when this answer was kept',
  },
} as const;

/** A success answer in one content type, with the headers that matter. */
export function answer(
  description: string,
  mediaType: string,
  schema: TSchema,
  headers: (keyof typeof HEADERS)[] = [],
): unknown {
  return {
    description,
    ...(headers.length > 0 ? { headers: pick(headers) } : {}),
    content: { [mediaType]: { schema } },
  };
}

/** A success answer without a body. */
export function noContent(description: string, headers: (keyof typeof HEADERS)[] = []): unknown {
  return { description, type: 'null', ...(headers.length > 0 ? { headers: pick(headers) } : {}) };
}

function pick(names: (keyof typeof HEADERS)[]) {
  return Object.fromEntries(names.map((name) => [name, HEADERS[name]]));
}

const Time = Type.String({ format: 'date-time' });

/**
 * A resource of `family` as JSON (`representation` in resources/lookup.ts): its
 * body's fields as they were written, without the change justification, and
 * what the service adds.
 */
export function representationSchema(family: Family): TSchema {
  const { changeJustification: _, ...fields } = family.schema.properties;
  const link = Type.String({ format: 'uri' });
  return Type.Object(
    {
      iri: Type.String({ format: 'uri' }),
      family: Type.Literal(family.key),
      status: StatusSchema,
      ...fields,
      ...(family.aggregate
        ? {
            [family.aggregate.field]: Type.Array(
              Type.Object({
                id: Type.String({ format: 'uri' }),
                name: Type.String(),
                description: Type.Optional(Type.String()),
                translations: COMMON_FIELDS.translations,
                synonyms: COMMON_FIELDS.synonyms,
                status: StatusSchema,
              }),
            ),
          }
        : {}),
      replacedBy: Type.Optional(Type.String({ description: 'The Approved resource replacing it' })),
      version: Type.Integer({ minimum: 1, description: 'The ETag is made from it' }),
      createdBy: Type.String(),
      createdAt: Time,
      updatedBy: Type.String(),
      updatedAt: Time,
      links: Type.Object({
        self: link,
        update: Type.Optional(link),
        submit: Type.Optional(link),
        revisions: link,
      }),
    },
    { title: `${family.label} as JSON` },
  );
}

/** The content of an answer in any RDF format refdata writes, each as text. */
export function rdfContent(): Record<string, { schema: TSchema }> {
  return Object.fromEntries(
    RDF_MEDIA_TYPES.map((mediaType) => [
      mediaType,
      { schema: Type.String({ description: RDF_FORMATS[mediaType].label }) },
    ]),
  );
}
