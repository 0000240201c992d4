import { Type } from '@sinclair/typebox';
import type { FastifyRequest } from 'fastify';
import type { HttpApp } from '../../platform/http/server.js';
import { authorize, principalOf } from '../auth/authenticate.js';
import { READ_ROLES, REVIEW_ROLES, SUBMIT_ROLES } from '../auth/roles.js';
import type { Refdata } from '../context.js';
import { answer, noContent, problems, StatusSchema } from '../described-responses.js';
import { checkIfMatch, IF_MATCH_HEADER, IRI_QUERY, notFound } from '../resources/lookup.js';
import { etagOf, type ResourceRow } from '../resources/store.js';
import { requiredText } from '../resources/text.js';
import { type Move, moveResource } from './steps.js';

const DECISION = Type.Object(
  { justification: Type.String({ minLength: 1, maxLength: 2000 }) },
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
      ['create', 'update', 'submit', 'approve', 'reject', 'deprecate', 'remove'].map((action) =>
        Type.Literal(action),
      ),
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

  const step = async (
    request: FastifyRequest,
    row: ResourceRow,
    move: Omit<Move, 'actor'>,
  ): Promise<ResourceRow> => {
    checkIfMatch(request, row);
    return moveResource(refdata, row, { ...move, actor: principalOf(request).subject });
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
    onRequest: authorize(refdata.verifier, SUBMIT_ROLES),
    handler: async (request, reply) => {
      const row = await existing(request.query.iri);
      const moved = await step(request, row, {
        from: 'Draft',
        to: 'Submitted',
        action: 'submit',
        justification: 'Submitted for review',
      });
      return reply.status(204).header('etag', etagOf(moved)).send();
    },
  });

  for (const [decision, to] of [
    ['approve', 'Approved'],
    ['reject', 'Rejected'],
  ] as const) {
    app.put(`/status/${decision}`, {
      schema: {
        summary: `${decision === 'approve' ? 'Approve' : 'Reject'} a Submitted resource (Reviewers), with a justification`,
        tags: ['lifecycle'],
        querystring: IRI_QUERY,
        headers: IF_MATCH_HEADER,
        body: DECISION,
        response: {
          204: noContent(decision === 'approve' ? 'Approved' : 'Rejected', ['etag']),
          ...problems(400, 401, 403, 404, 409, 413, 415),
        },
      },
      onRequest: authorize(refdata.verifier, REVIEW_ROLES),
      handler: async (request, reply) => {
        const justification = requiredText(request.body.justification, '/justification');
        const row = await existing(request.query.iri);
        const moved = await step(request, row, {
          from: 'Submitted',
          to,
          action: decision,
          justification,
        });
        return reply.status(204).header('etag', etagOf(moved)).send();
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
    onRequest: authorize(refdata.verifier, READ_ROLES),
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
