import { Type } from '@sinclair/typebox';
import type { HttpApp } from '../../../platform/http/server.js';
import type { Pages } from '../pages.js';
import { suggestions } from './references.js';

const PICK_QUERY = Type.Object(
  {
    families: Type.String({ minLength: 1, maxLength: 500 }),
    q: Type.String({ minLength: 1, maxLength: 200 }),
  },
  { additionalProperties: false },
);

/**
 * What a reference field suggests as one types (the forms' script asks): the
 * best matches among the families the field takes, by name, for signed-in
 * people only (Drafts are among them).
 */
export function registerPickRoute(app: HttpApp, pages: Pages): void {
  const refdata = pages.refdata;
  app.get('/authoring/pick', { schema: { querystring: PICK_QUERY } }, async (request, reply) => {
    if (!pages.viewerOf(request)) return reply.status(401).send({ results: [] });
    const { families, q } = request.query;
    const known = families.split(',').filter((key) => refdata.families.byKey(key) !== undefined);
    const found = known.length > 0 ? await suggestions(refdata, known, q) : [];
    return reply.send({
      results: found.map((resource) => ({
        ...resource,
        familyLabel: refdata.families.labelOf(resource.family),
      })),
    });
  });
}
