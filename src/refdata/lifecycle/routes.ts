import { Type } from '@sinclair/typebox';
import { HttpError, problem } from '../../platform/http/problem.js';
import type { HttpApp } from '../../platform/http/server.js';
import { requireRole } from '../auth/authenticate.js';
import { READ_ROLES, REVIEW_ROLES, SUBMIT_ROLES } from '../auth/roles.js';
import type { Refdata } from '../context.js';
import { checkIfMatch, conflictProblem, IRI_QUERY, notFound } from '../resources/routes.js';
import { etagOf, type ResourceRow } from '../resources/store.js';

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

  app.put('/status/submit', {
    schema: {
      summary: 'Submit a Draft for review (a picklist with all its values)',
      tags: ['lifecycle'],
      querystring: IRI_QUERY,
    },
    handler: async (request, reply) => {
      const principal = await requireRole(request, refdata.verifier, SUBMIT_ROLES);
      const row = await existing((request.query as { iri: string }).iri);
      if (row.family === 'picklist-value') {
        throw new HttpError(
          problem(
            409,
            'not-draft',
            `A picklist value is submitted with its picklist (${row.parent_iri}), not alone.`,
          ),
        );
      }
      checkIfMatch(request, row);
      const values = row.family === 'picklist' ? await refdata.store.childrenOf(row.iri) : [];
      const notDraft = values.find((value) => value.status !== 'Draft');
      if (notDraft) {
        throw new HttpError(
          problem(
            409,
            'not-draft',
            `Every value must still be a Draft; ${notDraft.iri} is ${notDraft.status}.`,
          ),
        );
      }
      try {
        const moved = await refdata.store.transition(
          [row, ...values],
          'Draft',
          'Submitted',
          'submit',
          {
            actor: principal.subject,
            justification: 'Submitted for review',
          },
        );
        return reply.status(204).header('etag', etagOf(moved)).send();
      } catch (error) {
        throw conflictProblem(error);
      }
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
      handler: async (request, reply) => {
        const principal = await requireRole(request, refdata.verifier, REVIEW_ROLES);
        const row = await existing((request.query as { iri: string }).iri);
        checkIfMatch(request, row);
        const values = row.family === 'picklist' ? await refdata.store.childrenOf(row.iri) : [];
        const replaced =
          decision === 'approve' && row.replaces_iri
            ? await refdata.store.findByIri(row.replaces_iri)
            : undefined;
        try {
          const moved = await refdata.store.transition(
            [row, ...values],
            'Submitted',
            to,
            decision,
            {
              actor: principal.subject,
              justification: (request.body as { justification: string }).justification,
            },
            replaced,
          );
          return reply.status(204).header('etag', etagOf(moved)).send();
        } catch (error) {
          throw conflictProblem(error);
        }
      },
    });
  }

  app.get('/revisions', {
    schema: {
      summary: 'Every change of a resource, oldest first',
      tags: ['lifecycle'],
      querystring: IRI_QUERY,
    },
    handler: async (request) => {
      await requireRole(request, refdata.verifier, READ_ROLES);
      const row = await existing((request.query as { iri: string }).iri);
      const revisions = await refdata.store.revisions(row.id);
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
