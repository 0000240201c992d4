import { Type } from '@sinclair/typebox';
import type { FastifyRequest } from 'fastify';
import { HttpError } from '../../platform/http/problem.js';
import type { Family, ReferencedResource, RuleContext } from '../families/family.js';
import { problem } from '../problem-codes.js';
import type { ResourceContext } from './resource-context.js';
import { DuplicateResource, etagOf, LifecycleConflict, type ResourceRow } from './rows.js';

/** Finding resources for a request, and the answers when they are not there or moved on. */

export const IRI_QUERY = Type.Object(
  {
    iri: Type.String({
      minLength: 1,
      maxLength: 2048,
      description: 'The resource IRI, URL-encoded',
    }),
  },
  { additionalProperties: false },
);

/** What `checkIfMatch` reads: optional, so a client that never reads first still writes. */
export const IF_MATCH_HEADER = Type.Object({
  'if-match': Type.Optional(
    Type.String({
      description:
        'The ETag the change is based on (or *); if the resource has moved on, 409 stale-write',
    }),
  ),
});

export function notFound(iri: string): HttpError {
  return new HttpError(problem(404, 'not-found', `No resource has the IRI ${iri}.`));
}

/** 410 for a resource that was removed, 404 for one that never was. */
export async function missing(refdata: ResourceContext, iri: string): Promise<HttpError> {
  const removed = await refdata.store.findRemoved(iri);
  if (!removed) return notFound(iri);
  return new HttpError(
    problem(
      410,
      'removed',
      `${iri} was removed on ${new Date(Number(removed.removed_at)).toISOString()}; its history is at /revisions?iri=${encodeURIComponent(iri)}.`,
    ),
  );
}

/** Turns the store's refusals into 409 problems. */
export function conflictProblem(error: unknown): unknown {
  if (error instanceof DuplicateResource)
    return new HttpError(problem(409, 'duplicate', error.message));
  if (error instanceof LifecycleConflict)
    return new HttpError(problem(409, error.kind, error.message));
  return error;
}

/**
 * `If-Match` against the resource's version; a mismatch means the write is
 * stale. The API's ETag is the version (`"3"`); a representation's, which a
 * GET of the resource's IRI gives, is the version and its form (`"3-json"`,
 * `"3-turtle"`, a library's with more after): each names the version it was
 * read at, and is taken as that version.
 */
export function checkIfMatch(request: FastifyRequest, row: ResourceRow): void {
  const header = request.headers['if-match'];
  if (header === undefined || header.trim() === '*') return;
  const tags = header.split(',').map((tag) => tag.trim().replace(/^W\//, ''));
  const version = etagOf(row);
  const representation = `${version.slice(0, -1)}-`;
  if (!tags.some((tag) => tag === version || tag.startsWith(representation))) {
    throw new HttpError(
      problem(
        409,
        'stale-write',
        `The resource is at version ${etagOf(row)}; the request was based on ${header}.`,
      ),
    );
  }
}

/** A rule context reading the store, each IRI at most once per request. */
export function ruleContext(refdata: ResourceContext, self: string | undefined): RuleContext {
  const cache = new Map<string, Promise<ReferencedResource | undefined>>();
  return {
    iriBase: refdata.iriBase,
    self,
    catalogues: refdata.catalogues,
    labelOf: (family) => refdata.families.labelOf(family),
    find(iri) {
      let found = cache.get(iri);
      if (!found) {
        found = refdata.store.findByIri(iri).then((row) =>
          row
            ? {
                iri: row.iri,
                family: row.family,
                status: row.status,
                body: JSON.parse(row.body) as Record<string, unknown>,
                parentIri: row.parent_iri,
              }
            : undefined,
        );
        cache.set(iri, found);
      }
      return found;
    },
  };
}

export async function readRow(
  refdata: ResourceContext,
  family: Pick<Family, 'key' | 'label'>,
  iri: string,
): Promise<ResourceRow> {
  const row = await refdata.store.findByIri(iri);
  if (!row) throw await missing(refdata, iri);
  if (row.family !== family.key) {
    const actual = refdata.families.byKey(row.family);
    throw new HttpError(
      problem(
        400,
        'wrong-family',
        `${iri} is a ${actual?.label ?? row.family}, not a ${family.label}; use ${actual?.route ?? 'its own route'}.`,
      ),
    );
  }
  return row;
}

/** The JSON a write answers with, and the read returns. */
export function representation(
  refdata: ResourceContext,
  row: ResourceRow,
  children: ResourceRow[] = [],
  replacedBy?: string,
) {
  const family = refdata.families.byKey(row.family);
  const encoded = encodeURIComponent(row.iri);
  return {
    iri: row.iri,
    family: row.family,
    status: row.status,
    ...(JSON.parse(row.body) as Record<string, unknown>),
    ...(family?.aggregate
      ? {
          [family.aggregate.field]: children.map((child) => ({
            id: child.iri,
            ...valueFields(child),
          })),
        }
      : {}),
    ...(replacedBy ? { replacedBy } : {}),
    version: row.version,
    createdBy: row.created_by,
    createdAt: new Date(Number(row.created_at)).toISOString(),
    updatedBy: row.updated_by,
    updatedAt: new Date(Number(row.updated_at)).toISOString(),
    links: {
      self: `${refdata.publicUrl}${family?.route}?iri=${encoded}`,
      ...(row.status === 'Draft'
        ? {
            update: `${refdata.publicUrl}${family?.route}?iri=${encoded}`,
            // A value is submitted with its picklist, never alone.
            ...(family?.parentIri
              ? {}
              : { submit: `${refdata.publicUrl}/status/submit?iri=${encoded}` }),
          }
        : {}),
      revisions: `${refdata.publicUrl}/revisions?iri=${encoded}`,
    },
  };
}

function valueFields(row: ResourceRow) {
  const body = JSON.parse(row.body) as {
    name?: string;
    description?: string;
    translations?: unknown;
    synonyms?: unknown;
  };
  return {
    name: body.name,
    description: body.description,
    ...(body.translations === undefined ? {} : { translations: body.translations }),
    ...(body.synonyms === undefined ? {} : { synonyms: body.synonyms }),
    status: row.status,
  };
}
