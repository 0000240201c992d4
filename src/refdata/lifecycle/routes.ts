import { Type } from '@sinclair/typebox';
import type { FastifyRequest } from 'fastify';
import { HttpError, problem } from '../../platform/http/problem.js';
import type { HttpApp } from '../../platform/http/server.js';
import { authorize, principalOf } from '../auth/authenticate.js';
import { READ_ROLES, REVIEW_ROLES, SUBMIT_ROLES } from '../auth/roles.js';
import type { Refdata } from '../context.js';
import type { Status } from '../db/tables.js';
import { checkIfMatch, conflictProblem, IRI_QUERY, notFound } from '../resources/lookup.js';
import { etagOf, type ResourceRow } from '../resources/store.js';
import { requiredText } from '../resources/text.js';

type Step = 'submit' | 'approve' | 'reject';

function wrongState(row: ResourceRow, action: Step, from: Status): HttpError {
  return new HttpError(
    problem(409, 'wrong-state', `${row.iri} is ${row.status}; ${action} takes a ${from} resource.`),
  );
}

const DECISION = Type.Object(
  { justification: Type.String({ minLength: 1, maxLength: 2000 }) },
  { additionalProperties: false },
);

/**
 * The lifecycle: submit (Draft to Submitted), and the review the platform has and
 * the spec leaves out: approve or reject (from Submitted), each with a reason.
 * Approving a resource that `replaces` another deprecates that one.
 */
export function registerLifecycleRoutes(app: HttpApp, refdata: Refdata): void {
  const existing = async (iri: string): Promise<ResourceRow> => {
    const row = await refdata.store.findByIri(iri);
    if (!row) throw notFound(iri);
    return row;
  };

  /**
   * Moves a resource from `from` to `to`, a picklist with every value, or says
   * why not: values never move alone, and each step starts from one state.
   */
  const step = async (
    request: FastifyRequest,
    row: ResourceRow,
    move: { from: Status; to: Status; action: Step; justification: string },
  ): Promise<ResourceRow> => {
    const family = refdata.families.byKey(row.family);
    // A value an aggregate owns (a picklist value) moves only with it.
    if (family?.parentIri) {
      throw new HttpError(
        problem(
          409,
          'moves-with-picklist',
          `A picklist value is submitted, approved and rejected with its picklist (${row.parent_iri}), never alone.`,
        ),
      );
    }
    checkIfMatch(request, row);
    if (row.status !== move.from) throw wrongState(row, move.action, move.from);
    const aggregate = family?.aggregate !== undefined;
    const values = aggregate ? await refdata.store.childrenOf(row.iri) : [];
    const behind = values.find((value) => value.status !== move.from);
    if (behind) {
      throw new HttpError(
        problem(
          409,
          'wrong-state',
          `The picklist's value ${behind.iri} is ${behind.status}, not ${move.from}; values move with their picklist.`,
        ),
      );
    }
    // Approving a replacement deprecates what it replaces, if that is still in use.
    const replaced =
      move.action === 'approve' && row.replaces_iri
        ? await refdata.store.findByIri(row.replaces_iri)
        : undefined;
    try {
      return await refdata.store.transition(
        [row, ...values],
        move.from,
        move.to,
        move.action,
        { actor: principalOf(request).subject, justification: move.justification },
        {
          alsoDeprecate: replaced?.status === 'Approved' ? replaced : undefined,
          ...(aggregate ? { values } : {}),
        },
      );
    } catch (error) {
      throw conflictProblem(error);
    }
  };

  app.put('/status/submit', {
    schema: {
      summary: 'Submit a Draft for review (a picklist with all its values)',
      tags: ['lifecycle'],
      querystring: IRI_QUERY,
    },
    onRequest: authorize(refdata.verifier, SUBMIT_ROLES),
    handler: async (request, reply) => {
      const row = await existing((request.query as { iri: string }).iri);
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
        body: DECISION,
      },
      onRequest: authorize(refdata.verifier, REVIEW_ROLES),
      handler: async (request, reply) => {
        const justification = requiredText(
          (request.body as { justification: string }).justification,
          '/justification',
        );
        const row = await existing((request.query as { iri: string }).iri);
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
    },
    onRequest: authorize(refdata.verifier, READ_ROLES),
    handler: async (request) => {
      const { iri } = request.query as { iri: string };
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
