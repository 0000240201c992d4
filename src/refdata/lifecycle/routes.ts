import { Type } from '@sinclair/typebox';
import type { HttpApp } from '../../platform/http/server.js';
import { principalOf } from '../auth/authenticate.js';
import { READ_ROLES, REVIEW_ROLES, SUBMIT_ROLES } from '../auth/roles.js';
import type { Refdata } from '../context.js';
import { answer, noContent, problems, StatusSchema } from '../described-responses.js';
import { checkIfMatch, IF_MATCH_HEADER, IRI_QUERY, notFound } from '../resources/lookup.js';
import { etagOf, type ResourceRow } from '../resources/rows.js';
import { requiredText } from '../resources/text.js';
import { decide, submitTogether } from '../review/decisions.js';
import { checkMovesAlone } from './steps.js';

/** A decision's body: approve and reject take a justification. */
export const DECISION = Type.Object(
  { justification: Type.String({ minLength: 1, maxLength: 2000 }) },
  { additionalProperties: false },
);
/** What a reviewer asks to be changed: shown on top of the Draft's page and form. */
export const CHANGE_REQUEST = Type.Object(
  { comment: Type.String({ minLength: 1, maxLength: 2000 }) },
  { additionalProperties: false },
);

/**
 * The lifecycle: submit (Draft to Submitted), and the review the platform has and
 * the spec leaves out: approve or reject (from Submitted), each with a reason.
 * Approving a resource that `replaces` another deprecates that one.
 */

/** What `GET /revisions` lists. */
const Revisions = Type.Array(
  Type.Object({
    version: Type.Integer(),
    action: Type.Union(
      [
        'create',
        'update',
        'submit',
        'approve',
        'reject',
        'request-changes',
        'deprecate',
        'remove',
      ].map((action) => Type.Literal(action)),
    ),
    status: StatusSchema,
    actor: Type.String(),
    justification: Type.String(),
    at: Type.String({ format: 'date-time' }),
    body: Type.Unknown({ description: 'The resource as it was after this change' }),
  }),
);
export function registerLifecycleRoutes(app: HttpApp, refdata: Refdata): void {
  const existing = async (iri: string): Promise<ResourceRow> => {
    const row = await refdata.store.findByIri(iri);
    if (!row) throw notFound(iri);
    return row;
  };

  app.put('/status/submit', {
    schema: {
      summary: 'Submit a Draft for review (a picklist with all its values)',
      tags: ['lifecycle'],
      querystring: IRI_QUERY,
      headers: IF_MATCH_HEADER,
      response: {
        204: noContent('Submitted', ['etag']),
        ...problems(400, 401, 403, 404, 409),
      },
    },
    config: { access: { roles: SUBMIT_ROLES } },
    handler: async (request, reply) => {
      const row = await existing(request.query.iri);
      checkIfMatch(request, row);
      checkMovesAlone(refdata, row);
      // A Draft sent back with changes requested goes back into its package.
      const { rows } = await submitTogether(refdata, row, [], principalOf(request));
      return reply
        .status(204)
        .header('etag', etagOf(rows[0] as ResourceRow))
        .send();
    },
  });

  /** The single-resource decisions: what each is called, its body and the field its text is in. */
  const DECISIONS = [
    {
      decision: 'approve',
      summary: 'Approve a Submitted resource (Reviewers), with a justification',
      done: 'Approved',
      body: DECISION,
      field: 'justification',
    },
    {
      decision: 'reject',
      summary: 'Reject a Submitted resource (Reviewers), with a justification',
      done: 'Rejected',
      body: DECISION,
      field: 'justification',
    },
    {
      decision: 'request-changes',
      summary:
        'Send a Submitted resource back to its author as a Draft (Reviewers), saying what to change',
      done: 'Back to Draft',
      body: CHANGE_REQUEST,
      field: 'comment',
    },
  ] as const;
  for (const { decision, summary, done, body, field } of DECISIONS) {
    app.put(`/status/${decision}`, {
      schema: {
        summary,
        tags: ['lifecycle'],
        querystring: IRI_QUERY,
        headers: IF_MATCH_HEADER,
        body,
        response: {
          204: noContent(done, ['etag']),
          ...problems(400, 401, 403, 404, 409, 413, 415),
        },
      },
      config: { access: { roles: REVIEW_ROLES } },
      handler: async (request, reply) => {
        const fields = request.body as Record<string, string>;
        const text = requiredText(fields[field] ?? '', `/${field}`);
        const row = await existing(request.query.iri);
        checkIfMatch(request, row);
        const [moved] = await decide(refdata, [row], decision, principalOf(request), text);
        return reply
          .status(204)
          .header('etag', etagOf(moved as ResourceRow))
          .send();
      },
    });
  }

  app.get('/revisions', {
    schema: {
      summary: 'Every change of a resource, oldest first',
      tags: ['lifecycle'],
      querystring: IRI_QUERY,
      response: {
        200: answer('Its revisions', 'application/json', Revisions),
        ...problems(400, 401, 403, 404),
      },
    },
    config: { access: { roles: READ_ROLES } },
    handler: async (request) => {
      const { iri } = request.query;
      // A removed value's history outlives it, ending with its `remove` revision.
      const id =
        (await refdata.store.findByIri(iri))?.id ??
        (await refdata.store.findRemoved(iri))?.resource_id;
      if (id === undefined) throw notFound(iri);
      const revisions = await refdata.store.revisions(id);
      return revisions.map((revision) => ({
        version: revision.version,
        action: revision.action,
        status: revision.status,
        actor: revision.actor,
        justification: revision.justification,
        at: new Date(Number(revision.created_at)).toISOString(),
        body: JSON.parse(revision.body) as unknown,
      }));
    },
  });
}
