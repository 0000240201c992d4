import { Type } from '@sinclair/typebox';
import { HttpError } from '../../platform/http/problem.js';
import type { HttpApp } from '../../platform/http/server.js';
import { principalOf } from '../auth/authenticate.js';
import { READ_ROLES, REVIEW_ROLES, SUBMIT_ROLES, WRITE_ROLES } from '../auth/roles.js';
import type { Refdata } from '../context.js';
import { answer, problems, StatusSchema } from '../described-responses.js';
import { isLibrary } from '../families/family.js';
import { CHANGE_REQUEST, DECISION } from '../lifecycle/routes.js';
import { problem } from '../problem-codes.js';
import { IRI_QUERY, notFound, representation } from '../resources/lookup.js';
import { etagOf, type ResourceRow } from '../resources/rows.js';
import { requiredText } from '../resources/text.js';
import { PACKAGE_PLACE } from './authorship.js';
import { copyRejected } from './copies.js';
import { type Decision, decide, submitTogether, submittableDraftsIn } from './decisions.js';
import { draftsBehind, type Named, namedBy } from './dependencies.js';
import { PACKAGE_STATES, type PackageRow, stateOf } from './packages.js';

const LINK_IRI = Type.String({ minLength: 1, maxLength: 2048 });
const ID_PARAMS = Type.Object(
  { id: Type.Integer({ minimum: 1, maximum: 2 ** 31 - 1 }) },
  { additionalProperties: false },
);
/** The most resources one package is submitted with. */
const MOST_IN_PACKAGE = 500;
/** The most packages one list answers. */
const LISTED = 200;

const NamedResource = Type.Object({
  iri: Type.String(),
  name: Type.String(),
  family: Type.String(),
  status: StatusSchema,
  namedBy: Type.String({ description: 'The resource whose field names it' }),
  field: Type.String({ description: "A JSON pointer into that resource's body" }),
});
const Item = Type.Object({
  iri: Type.String(),
  name: Type.String(),
  family: Type.String(),
  status: StatusSchema,
  version: Type.Integer(),
});
const PackageJson = Type.Object({
  id: Type.Integer(),
  name: Type.String(),
  library: Type.String(),
  submittedBy: Type.String(),
  submittedAt: Type.String({ format: 'date-time' }),
  state: Type.Union(PACKAGE_STATES.map((state) => Type.Literal(state))),
  counts: Type.Record(Type.String(), Type.Integer()),
  items: Type.Optional(Type.Array(Item)),
  links: Type.Object({ self: Type.String({ format: 'uri' }) }),
});

function namedJson(named: Named) {
  return {
    iri: named.row.iri,
    name: named.row.name,
    family: named.row.family,
    status: named.row.status,
    namedBy: named.by,
    field: named.pointer,
  };
}

/**
 * The review process's API beyond the single steps (docs/review.md): what a
 * Draft depends on, packages submitted and decided together, and copies of
 * Rejected resources.
 */
export function registerReviewRoutes(app: HttpApp, refdata: Refdata): void {
  const existing = async (iri: string): Promise<ResourceRow> => {
    const row = await refdata.store.findByIri(iri);
    if (!row) throw notFound(iri);
    return row;
  };

  const packageJson = (row: PackageRow, items: readonly ResourceRow[], withItems: boolean) => {
    const counts: Record<string, number> = {};
    for (const item of items) counts[item.status] = (counts[item.status] ?? 0) + 1;
    return {
      id: row.id,
      name: row.name,
      library: row.library_key,
      submittedBy: row.submitted_by,
      submittedAt: new Date(Number(row.submitted_at)).toISOString(),
      state: stateOf(counts),
      counts,
      ...(withItems
        ? {
            items: items.map((item) => ({
              iri: item.iri,
              name: item.name,
              family: item.family,
              status: item.status,
              version: item.version,
            })),
          }
        : {}),
      links: { self: `${refdata.publicUrl}/packages/${row.id}` },
    };
  };

  const existingPackage = async (id: number) => {
    const row = await refdata.packages.find(id);
    if (!row) throw new HttpError(problem(404, 'not-found', `There is no package ${id}.`));
    return row;
  };

  app.get('/dependencies', {
    schema: {
      summary:
        'What a resource names, and every Draft it depends on (what submitting it offers to submit with it)',
      tags: ['review'],
      querystring: IRI_QUERY,
      response: {
        200: answer(
          'What it names directly, and the Drafts behind it, transitively',
          'application/json',
          Type.Object({ names: Type.Array(NamedResource), drafts: Type.Array(NamedResource) }),
        ),
        ...problems(400, 401, 403, 404),
      },
    },
    config: { access: { roles: READ_ROLES } },
    handler: async (request) => {
      const row = await existing(request.query.iri);
      return {
        names: (await namedBy(refdata, row)).map(namedJson),
        drafts: (await draftsBehind(refdata, row)).map(namedJson),
      };
    },
  });

  app.post('/packages', {
    schema: {
      summary: 'Submit Drafts together as one package, reviewed as one',
      tags: ['review'],
      description:
        "Either `resources`, the Drafts listed, or `library`, every Draft of the caller's in that library (an import's, say; a picklist's values go with it), as one package reviewed as one.",
      body: Type.Object(
        {
          resources: Type.Optional(
            Type.Array(LINK_IRI, {
              minItems: 1,
              maxItems: MOST_IN_PACKAGE,
              description: 'The Drafts, the one the package is about first',
            }),
          ),
          library: Type.Optional(
            Type.String({
              ...LINK_IRI,
              description: "Instead of resources: every Draft of the caller's in this library",
            }),
          ),
          name: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
        },
        { additionalProperties: false },
      ),
      response: {
        201: answer('The new package, with its items', 'application/json', PackageJson, [
          'location',
        ]),
        200: answer(
          'The package they were in before changes were requested, with its items',
          'application/json',
          PackageJson,
          ['location'],
        ),
        ...problems(400, 401, 403, 404, 409, 413, 415),
      },
    },
    config: { access: { roles: SUBMIT_ROLES } },
    handler: async (request, reply) => {
      const { resources, library } = request.body;
      if ((resources === undefined) === (library === undefined))
        throw new HttpError(
          problem(400, 'validation', 'Give either resources (the Drafts) or library, not both.', {
            errors: [
              { in: 'body', field: '/resources', detail: 'or /library is required, not both' },
            ],
          }),
        );
      const rows =
        library === undefined
          ? await listedRows(resources ?? [])
          : await draftsOfIn(library, principalOf(request).subject);
      const name =
        request.body.name === undefined ? undefined : requiredText(request.body.name, '/name');
      const { packageId, created } = await submitTogether(
        refdata,
        rows[0] as ResourceRow,
        rows.slice(1),
        principalOf(request),
        name,
      );
      const made = await existingPackage(packageId);
      // Drafts sent back and submitted again rejoin their package: 200, not a new one.
      return reply
        .status(created ? 201 : 200)
        .header('location', `${refdata.publicUrl}/packages/${packageId}`)
        .send(packageJson(made, await refdata.packages.items(packageId), true));
    },
  });

  /** The resources a submission lists, in its order; 404 for one that does not exist. */
  const listedRows = async (listed: readonly string[]): Promise<ResourceRow[]> => {
    const iris = [...new Set(listed)];
    const found = await refdata.store.findMany(iris);
    const byIri = new Map(found.map((row) => [row.iri, row]));
    const missing = iris.find((iri) => !byIri.has(iri));
    if (missing !== undefined) throw notFound(missing);
    return iris.map((iri) => byIri.get(iri) as ResourceRow);
  };

  /** A library's Drafts by `subject`, the library first if it is one; values go with their picklists. */
  const draftsOfIn = async (libraryIri: string, subject: string): Promise<ResourceRow[]> => {
    const library = await refdata.store.findByIri(libraryIri);
    if (!library || !isLibrary(library)) throw notFound(libraryIri);
    const rows = await submittableDraftsIn(refdata, library, subject);
    if (rows.length === 0)
      throw new HttpError(
        problem(409, 'wrong-state', `You have no Drafts in ${library.name} to submit.`),
      );
    return rows;
  };

  app.get('/packages', {
    schema: {
      summary: 'Packages, newest first (oldest first with state=waiting: the queue), 200 at most',
      tags: ['review'],
      querystring: Type.Object(
        {
          state: Type.Optional(Type.Union(PACKAGE_STATES.map((state) => Type.Literal(state)))),
          library: Type.Optional(LINK_IRI),
        },
        { additionalProperties: false },
      ),
      response: {
        200: answer('Packages', 'application/json', Type.Array(PackageJson)),
        ...problems(400, 401, 403),
      },
    },
    config: { access: { roles: READ_ROLES } },
    handler: async (request) => {
      const listed = await refdata.packages.list(request.query, LISTED);
      return listed.map((entry) => ({
        id: entry.id,
        name: entry.name,
        library: entry.library_key,
        submittedBy: entry.submitted_by,
        submittedAt: new Date(entry.submitted_at).toISOString(),
        state: entry.state,
        counts: entry.counts,
        links: { self: `${refdata.publicUrl}/packages/${entry.id}` },
      }));
    },
  });

  app.get('/packages/:id', {
    schema: {
      summary: 'A package and its items',
      tags: ['review'],
      params: ID_PARAMS,
      response: {
        200: answer('The package', 'application/json', PackageJson),
        ...problems(400, 401, 403, 404),
      },
    },
    config: { access: { roles: READ_ROLES } },
    handler: async (request) => {
      const row = await existingPackage(request.params.id);
      return packageJson(row, await refdata.packages.items(row.id), true);
    },
  });

  const decisions: [Decision, string, typeof CHANGE_REQUEST | typeof DECISION][] = [
    ['approve', 'Approve every Submitted item of a package at once', DECISION],
    ['reject', 'Reject every Submitted item of a package at once', DECISION],
    ['request-changes', 'Send every Submitted item of a package back to Draft', CHANGE_REQUEST],
  ];
  for (const [decision, summary, body] of decisions) {
    app.put(`/packages/:id/${decision}`, {
      schema: {
        summary,
        tags: ['review'],
        params: ID_PARAMS,
        body,
        response: {
          200: answer('The package as decided', 'application/json', PackageJson),
          ...problems(400, 401, 403, 404, 409, 413, 415),
        },
      },
      config: { access: { roles: REVIEW_ROLES } },
      handler: async (request) => {
        const fields = request.body as { justification?: string; comment?: string };
        const text =
          fields.comment === undefined
            ? requiredText(fields.justification ?? '', '/justification')
            : requiredText(fields.comment, '/comment');
        const row = await existingPackage(request.params.id);
        const waiting = (await refdata.packages.items(row.id)).filter(
          (item) => item.status === 'Submitted' && !refdata.families.byKey(item.family)?.parentIri,
        );
        if (waiting.length === 0)
          throw new HttpError(
            problem(409, 'wrong-state', `Nothing in package ${row.id} waits for a decision.`),
          );
        await decide(refdata, waiting, decision, principalOf(request), text, PACKAGE_PLACE);
        return packageJson(row, await refdata.packages.items(row.id), true);
      },
    });
  }

  app.post('/copies', {
    schema: {
      summary: 'Copy a Rejected resource into a new Draft (its author), with the fields to change',
      tags: ['review'],
      querystring: IRI_QUERY,
      body: Type.Record(Type.String({ maxLength: 100 }), Type.Unknown(), {
        maxProperties: 100,
        description:
          "Fields that replace the Rejected resource's ({} for none); a symbol needs a new dcIdentifier",
      }),
      response: {
        201: answer('The new Draft', 'application/json', Type.Unknown(), ['location', 'etag']),
        ...problems(400, 401, 403, 404, 409, 413, 415),
      },
    },
    config: { access: { roles: WRITE_ROLES } },
    handler: async (request, reply) => {
      const rejected = await existing(request.query.iri);
      const row = await copyRejected(refdata, rejected, principalOf(request).subject, request.body);
      const family = refdata.families.byKey(row.family);
      return reply
        .status(201)
        .header(
          'location',
          `${refdata.publicUrl}${family?.route}?iri=${encodeURIComponent(row.iri)}`,
        )
        .header('etag', etagOf(row))
        .send(
          representation(
            refdata,
            row,
            family?.aggregate ? await refdata.store.childrenOf(row.iri) : [],
          ),
        );
    },
  });
}
