import { Type } from '@sinclair/typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { HttpError, problem } from '../../platform/http/problem.js';
import type { HttpApp } from '../../platform/http/server.js';
import { authorize, principalOf } from '../auth/authenticate.js';
import { READ_ROLES, WRITE_ROLES } from '../auth/roles.js';
import type { Refdata } from '../context.js';
import type { Family, FamilyKey, ReferencedResource, RuleContext } from '../families/family.js';
import { FAMILIES, familyByKey } from '../families/registry.js';
import {
  DuplicateResource,
  etagOf,
  LifecycleConflict,
  type NewResource,
  type OwnedChanges,
  type ResourceContent,
  type ResourceRow,
} from './store.js';
import { cleanBody } from './text.js';

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

export function notFound(iri: string): HttpError {
  return new HttpError(problem(404, 'not-found', `No resource has the IRI ${iri}.`));
}

/** 410 for a resource that was removed, 404 for one that never was. */
export async function missing(refdata: Refdata, iri: string): Promise<HttpError> {
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

/** `If-Match` against the resource's ETag; a mismatch means the write is stale. */
export function checkIfMatch(request: FastifyRequest, row: ResourceRow): void {
  const header = request.headers['if-match'];
  if (header === undefined || header.trim() === '*') return;
  const tags = header.split(',').map((tag) => tag.trim().replace(/^W\//, ''));
  if (!tags.includes(etagOf(row))) {
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
export function ruleContext(refdata: Refdata, self: string | undefined): RuleContext {
  const cache = new Map<string, Promise<ReferencedResource | undefined>>();
  return {
    iriBase: refdata.iriBase,
    self,
    catalogues: refdata.catalogues,
    find(iri) {
      let found = cache.get(iri);
      if (!found) {
        found = refdata.store.findByIri(iri).then((row) =>
          row
            ? {
                iri: row.iri,
                family: row.family as FamilyKey,
                status: row.status,
                body: JSON.parse(row.body) as Record<string, unknown>,
              }
            : undefined,
        );
        cache.set(iri, found);
      }
      return found;
    },
  };
}

/** Why `ontology` is fixed: a term's library is where it was made. */
const FIXED_FOR_EVERY_FAMILY = {
  ontology: 'a term stays in the library it was created in (a new term can replace it)',
};

function fixedFields(family: Family): [string, string][] {
  return Object.entries({ ...FIXED_FOR_EVERY_FAMILY, ...family.fixed });
}

/** An update that leaves a fixed field out keeps the stored value. */
function keepFixed(
  family: Family,
  body: Record<string, unknown>,
  stored: Record<string, unknown>,
): Record<string, unknown> {
  const kept = { ...body };
  for (const [field] of fixedFields(family)) {
    if (kept[field] === undefined && stored[field] !== undefined) kept[field] = stored[field];
  }
  return kept;
}

function fixedFieldErrors(
  family: Family,
  body: Record<string, unknown>,
  stored: Record<string, unknown>,
): { field: string; detail: string }[] {
  return fixedFields(family)
    .filter(([field]) => stored[field] !== undefined && body[field] !== stored[field])
    .map(([field, why]) => ({
      field: `/${field}`,
      detail: `cannot change after create (${why}); it is ${JSON.stringify(stored[field])}`,
    }));
}

async function completed(
  family: Family,
  body: Record<string, unknown>,
  context: RuleContext,
): Promise<Record<string, unknown>> {
  return family.complete ? await family.complete(body as never, context) : body;
}

function ruleProblem(family: Family, errors: { field: string; detail: string }[]): HttpError {
  return new HttpError(
    problem(
      400,
      'domain-rule',
      errors.map((error) => `${error.field} ${error.detail}`).join('; '),
      {
        title: `The ${family.label} breaks a rule`,
        errors: errors.map((error) => ({ in: 'body' as const, ...error })),
      },
    ),
  );
}

/** What is stored for a body: the justification belongs to the revision, not the resource. */
function contentOf(family: Family, body: Record<string, unknown>): ResourceContent {
  const { changeJustification: _why, ...rest } = body;
  const stored = family.ownedValues ? { ...rest, picklistValues: undefined } : rest;
  return {
    name: String(body.name),
    libraryKey: family.libraryKey(body as never),
    parentIri: family.parentIri?.(body as never) ?? null,
    replacesIri: typeof body.replaces === 'string' ? body.replaces : null,
    body: JSON.parse(JSON.stringify(stored)) as Record<string, unknown>,
  };
}

/** The JSON a write answers with, and the read returns. */
export function representation(
  refdata: Refdata,
  row: ResourceRow,
  children: ResourceRow[] = [],
  replacedBy?: string,
) {
  const family = familyByKey(row.family);
  const encoded = encodeURIComponent(row.iri);
  return {
    iri: row.iri,
    family: row.family,
    status: row.status,
    ...(JSON.parse(row.body) as Record<string, unknown>),
    ...(family?.ownedValues
      ? { picklistValues: children.map((child) => ({ id: child.iri, ...valueFields(child) })) }
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
  const body = JSON.parse(row.body) as { name?: string; description?: string };
  return { name: body.name, description: body.description, status: row.status };
}

/** New values and changes to existing ones that a picklist body asks for. */
async function ownedChanges(
  refdata: Refdata,
  family: Family,
  body: Record<string, unknown>,
  parentIri: string,
  existing: ResourceRow[],
  justification: string,
): Promise<OwnedChanges> {
  const valueFamily = familyByKey('picklist-value') as Family;
  const wanted = family.ownedValues?.(body as never) ?? [];
  const changes: OwnedChanges = { create: [], update: [], remove: [] };
  const kept = new Set<string>();
  for (const value of wanted) {
    const valueBody = {
      changeJustification: justification,
      name: value.name,
      description: value.description,
      picklist: parentIri,
      ontology: body.ontology,
    };
    const content = contentOf(valueFamily, valueBody);
    const current =
      value.id === undefined ? undefined : existing.find((row) => row.iri === value.id);
    if (current) {
      kept.add(current.iri);
      changes.update.push({ row: current, content });
    } else {
      const iri = await valueFamily.mintIri(valueBody as never, ruleContext(refdata, undefined));
      changes.create.push({ iri, family: valueFamily.key, ...content });
    }
  }
  changes.remove = existing.filter((row) => !kept.has(row.iri));
  return changes;
}

export async function readRow(refdata: Refdata, family: Family, iri: string): Promise<ResourceRow> {
  const row = await refdata.store.findByIri(iri);
  if (!row) throw await missing(refdata, iri);
  if (row.family !== family.key) {
    const actual = familyByKey(row.family);
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

/** POST, PUT and GET for every family in the registry. */
export function registerResourceRoutes(app: HttpApp, refdata: Refdata): void {
  for (const family of FAMILIES) {
    const tags = ['authoring'];

    app.post(family.route, {
      schema: { summary: `Create a ${family.label} as a Draft`, tags, body: family.schema },
      onRequest: authorize(refdata.verifier, WRITE_ROLES),
      handler: async (request, reply) => {
        const principal = principalOf(request);
        const context = ruleContext(refdata, undefined);
        const body = await completed(
          family,
          cleanBody(request.body as Record<string, unknown>),
          context,
        );
        const errors = await family.rules(body as never, context);
        if (errors.length > 0) throw ruleProblem(family, errors);
        const iri = await family.mintIri(body as never, context);
        const owned = family.ownedValues
          ? (await ownedChanges(refdata, family, body, iri, [], String(body.changeJustification)))
              .create
          : undefined;
        const resource: NewResource = { iri, family: family.key, ...contentOf(family, body) };
        let row: ResourceRow;
        try {
          row = await refdata.store.create(resource, owned, {
            actor: principal.subject,
            justification: String(body.changeJustification),
          });
        } catch (error) {
          throw conflictProblem(error);
        }
        const children = family.ownedValues ? await refdata.store.childrenOf(iri) : [];
        return reply
          .status(201)
          .header('location', `${refdata.publicUrl}${family.route}?iri=${encodeURIComponent(iri)}`)
          .header('etag', etagOf(row))
          .send(representation(refdata, row, children));
      },
    });

    app.put(family.route, {
      schema: {
        summary: `Replace a Draft ${family.label}'s content`,
        tags,
        querystring: IRI_QUERY,
        body: family.schema,
      },
      onRequest: authorize(refdata.verifier, WRITE_ROLES),
      handler: async (request, reply: FastifyReply) => {
        const principal = principalOf(request);
        const { iri } = request.query as { iri: string };
        const row = await readRow(refdata, family, iri);
        if (row.status !== 'Draft') {
          throw new HttpError(
            problem(409, 'not-draft', `${iri} is ${row.status}; only a Draft can be changed.`),
          );
        }
        checkIfMatch(request, row);
        const context = ruleContext(refdata, iri);
        const stored = JSON.parse(row.body) as Record<string, unknown>;
        const body = await completed(
          family,
          keepFixed(family, cleanBody(request.body as Record<string, unknown>), stored),
          context,
        );
        const errors = [
          ...fixedFieldErrors(family, body, await completed(family, stored, context)),
          ...(await family.rules(body as never, context)),
        ];
        if (errors.length > 0) throw ruleProblem(family, errors);
        const justification = String(body.changeJustification);
        const owned = family.ownedValues
          ? await ownedChanges(
              refdata,
              family,
              body,
              iri,
              await refdata.store.childrenOf(iri),
              justification,
            )
          : undefined;
        try {
          const updated = await refdata.store.update(row, contentOf(family, body), owned, {
            actor: principal.subject,
            justification,
          });
          return reply.status(204).header('etag', etagOf(updated)).send();
        } catch (error) {
          throw conflictProblem(error);
        }
      },
    });

    if (family.ownReadRoute) continue;
    app.get(family.route, {
      schema: { summary: `A ${family.label} as JSON, by IRI`, tags, querystring: IRI_QUERY },
      onRequest: authorize(refdata.verifier, READ_ROLES),
      handler: async (request, reply) => {
        const { iri } = request.query as { iri: string };
        const row = await readRow(refdata, family, iri);
        const children = family.ownedValues ? await refdata.store.childrenOf(iri) : [];
        return reply
          .header('etag', etagOf(row))
          .send(representation(refdata, row, children, await refdata.store.replacementOf(row.iri)));
      },
    });
  }

  // Present in some deployments of the platform, not supported here (spec section 4).
  for (const route of ['/rdl/terms/annotationproperty', '/rdl/shapes']) {
    app.all(route, { schema: { hide: true } }, async () => {
      throw new HttpError(
        problem(
          404,
          'unsupported-route',
          `${route} is not supported by this service and must not be used.`,
        ),
      );
    });
  }
}
