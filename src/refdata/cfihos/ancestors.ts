import { Type } from '@sinclair/typebox';
import { HttpError } from '../../platform/http/problem.js';
import type { HttpApp } from '../../platform/http/server.js';
import { READ_ROLES } from '../auth/roles.js';
import type { Refdata } from '../context.js';
import { answer, problems, StatusSchema } from '../described-responses.js';
import { problem } from '../problem-codes.js';
import { notFound } from '../resources/lookup.js';

/** A super-entity chain longer than this is taken as broken data, not followed. */
const MAX_DEPTH = 100;

interface PropertyReference {
  propertyUri: string;
  minCardinality: number;
  maxCardinality: number;
}

/**
 * `GET /cfihos/ancestors/properties?cfihosUri=`: the properties a CFIHOS class has
 * through its super entities, nearest first, each once (a nearer class's
 * cardinalities win), with the class it comes from; the class's own are listed
 * with `inherited: false`.
 */
export function registerAncestorRoutes(app: HttpApp, refdata: Refdata): void {
  app.get('/cfihos/ancestors/properties', {
    schema: {
      summary: 'Properties a CFIHOS class inherits through its super entities',
      tags: ['dereferencing'],
      querystring: Type.Object(
        { cfihosUri: Type.String({ minLength: 1, maxLength: 2048 }) },
        { additionalProperties: false },
      ),
      response: {
        200: answer(
          'Its ancestors, nearest first, and every property it has or inherits',
          'application/json',
          Type.Object({
            cfihosUri: Type.String(),
            ancestors: Type.Array(Type.String({ format: 'uri' })),
            properties: Type.Array(
              Type.Object({
                propertyUri: Type.String(),
                name: Type.Optional(Type.String()),
                status: Type.Optional(StatusSchema),
                minCardinality: Type.Optional(Type.Integer()),
                maxCardinality: Type.Optional(Type.Integer()),
                definedBy: Type.String({ format: 'uri' }),
                inherited: Type.Boolean(),
              }),
            ),
          }),
        ),
        ...problems(400, 401, 403, 404),
      },
    },
    config: { access: { roles: READ_ROLES } },
    handler: async (request) => {
      const { cfihosUri } = request.query;
      const start = await refdata.store.findByIri(cfihosUri);
      if (!start) throw notFound(cfihosUri);
      if (start.family !== 'cfihos-entity') {
        throw new HttpError(
          problem(400, 'wrong-family', `${cfihosUri} is not a CFIHOS equipment or tag class.`),
        );
      }
      const seenClasses = new Set<string>();
      const seenProperties = new Set<string>();
      const ancestors: string[] = [];
      const properties = [];
      let current: typeof start | undefined = start;
      while (current && !seenClasses.has(current.iri) && seenClasses.size < MAX_DEPTH) {
        seenClasses.add(current.iri);
        if (current !== start) ancestors.push(current.iri);
        const body = JSON.parse(current.body) as {
          superEntity?: string;
          propertyReferences?: PropertyReference[];
        };
        for (const reference of body.propertyReferences ?? []) {
          if (seenProperties.has(reference.propertyUri)) continue;
          seenProperties.add(reference.propertyUri);
          const property = await refdata.store.findByIri(reference.propertyUri);
          properties.push({
            propertyUri: reference.propertyUri,
            name: property ? (JSON.parse(property.body) as { name?: string }).name : undefined,
            status: property?.status,
            minCardinality: reference.minCardinality,
            maxCardinality: reference.maxCardinality,
            definedBy: current.iri,
            inherited: current !== start,
          });
        }
        current = body.superEntity ? await refdata.store.findByIri(body.superEntity) : undefined;
      }
      return { cfihosUri, ancestors, properties };
    },
  });
}
