import type { Static, TObject } from '@sinclair/typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { HttpError } from '../../platform/http/problem.js';
import type { HttpApp } from '../../platform/http/server.js';
import { principalOf } from '../auth/authenticate.js';
import { READ_ROLES, WRITE_ROLES } from '../auth/roles.js';
import type { Refdata } from '../context.js';
import { answer, noContent, problems, representationSchema } from '../described-responses.js';
import type { Family } from '../families/family.js';
import { problem } from '../problem-codes.js';
import { createDraft, updateDraft } from './authoring.js';
import { checkIfMatch, IF_MATCH_HEADER, IRI_QUERY, readRow, representation } from './lookup.js';
import { etagOf } from './rows.js';
import { refusalProblem, resourceRefusal } from './write-pipeline.js';

/** POST, PUT and GET of one family, its bodies typed by its own schema. */
function registerFamilyRoutes<S extends TObject>(
  app: HttpApp,
  refdata: Refdata,
  family: Family<S>,
): void {
  const tags = ['authoring'];
  const asJson = representationSchema(family);
  const childrenOf = (iri: string) =>
    family.aggregate ? refdata.store.childrenOf(iri) : Promise.resolve([]);

  app.post(family.route, {
    schema: {
      summary: `Create a ${family.label} as a Draft`,
      tags,
      body: family.schema,
      response: {
        201: answer('The new Draft', 'application/json', asJson, ['location', 'etag']),
        ...problems(400, 401, 403, 409, 413, 415),
      },
    },
    config: { access: { roles: WRITE_ROLES } },
    // The write pipeline checks the body against the same schema, and says what is
    // wrong in the family's words (Fastify's check would answer bare pointers).
    attachValidation: true,
    handler: async (request, reply) => {
      refuseAllButBody(request);
      // The body is checked against `family.schema` by the pipeline (above); for a
      // schema generic in S its type cannot be shown to be Static<S>, so it is said.
      const body = request.body as Static<S>;
      const row = await createDraft(refdata, family, body, principalOf(request).subject);
      return reply
        .status(201)
        .header(
          'location',
          `${refdata.publicUrl}${family.route}?iri=${encodeURIComponent(row.iri)}`,
        )
        .header('etag', etagOf(row))
        .send(representation(refdata, row, await childrenOf(row.iri)));
    },
  });

  app.put(family.route, {
    schema: {
      summary: `Replace a Draft ${family.label}'s content`,
      tags,
      querystring: IRI_QUERY,
      headers: IF_MATCH_HEADER,
      body: family.schema,
      response: {
        204: noContent('Changed', ['etag']),
        ...problems(400, 401, 403, 404, 409, 413, 415),
      },
    },
    config: { access: { roles: WRITE_ROLES } },
    // As for a create: the pipeline checks the body and words what is wrong.
    attachValidation: true,
    handler: async (request, reply: FastifyReply) => {
      refuseAllButBody(request);
      const { iri } = request.query;
      const row = await readRow(refdata, family, iri);
      // A resource that is no Draft, or another's, is refused before its version is compared.
      const refusal = resourceRefusal(row, principalOf(request).subject);
      if (refusal) throw refusalProblem(family, refusal);
      checkIfMatch(request, row);
      // As on create: checked against `family.schema`, said to be its Static type.
      const body = request.body as Static<S>;
      const updated = await updateDraft(refdata, family, row, body, principalOf(request).subject);
      return reply.status(204).header('etag', etagOf(updated)).send();
    },
  });

  if (family.ownReadRoute) return;
  app.get(family.route, {
    schema: {
      summary: `A ${family.label} as JSON, by IRI`,
      tags,
      querystring: IRI_QUERY,
      response: {
        200: answer(`The ${family.label}`, 'application/json', asJson, ['etag']),
        ...problems(400, 401, 403, 404, 410),
      },
    },
    config: { access: { roles: READ_ROLES } },
    handler: async (request, reply) => {
      const { iri } = request.query;
      const row = await readRow(refdata, family, iri);
      return reply
        .header('etag', etagOf(row))
        .send(
          representation(
            refdata,
            row,
            await childrenOf(iri),
            await refdata.store.replacementOf(row.iri),
          ),
        );
    },
  });
}

/** POST, PUT and GET for every family in the registry. */
/**
 * A request whose query or headers failed their schema is answered as ever;
 * one whose body did goes on to the write pipeline, which words it.
 */
function refuseAllButBody(request: FastifyRequest): void {
  const error = request.validationError as (Error & { validationContext?: string }) | undefined;
  if (error && error.validationContext !== 'body') throw error;
}

export function registerResourceRoutes(app: HttpApp, refdata: Refdata): void {
  for (const family of refdata.families.all) registerFamilyRoutes(app, refdata, family);

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
