import { Type } from '@sinclair/typebox';
import type { HttpApp } from '../../../platform/http/server.js';
import { subclassesOf } from '../../resources/hierarchy.js';
import { missing } from '../../resources/lookup.js';
import { defaultStatuses } from '../links.js';
import type { Pages } from '../pages.js';
import { TREE_SCRIPT, TREE_SCRIPT_PATH, treeLevel } from './tree.js';

/**
 * A level of a class tree, for the tree script: `/hierarchy/subclasses?iri=`
 * answers the class's subclasses as the list the pages draw (an HTML
 * fragment), the statuses the viewer sees on pages. The script itself.
 */
export function registerHierarchyRoutes(app: HttpApp, pages: Pages): void {
  const { refdata } = pages;
  app.get(TREE_SCRIPT_PATH, { schema: { hide: true } }, async (_request, reply) =>
    reply.type('text/javascript').header('cache-control', 'public, max-age=3600').send(TREE_SCRIPT),
  );
  const querystring = Type.Object(
    { iri: Type.String({ minLength: 1, maxLength: 2048 }) },
    { additionalProperties: false },
  );
  app.get('/hierarchy/subclasses', { schema: { querystring } }, async (request, reply) => {
    const signedIn = pages.viewerOf(request) !== undefined;
    const statuses = defaultStatuses(signedIn);
    const iri = request.query.iri;
    const stored = await refdata.store.findByIri(iri);
    if (!stored || (statuses !== undefined && !statuses.includes(stored.status)))
      throw await missing(refdata, iri);
    const level = await subclassesOf(refdata.db, iri, statuses);
    return reply
      .type('text/html; charset=utf-8')
      .header('cache-control', 'no-store')
      .send(treeLevel(pages, level).text);
  });
}
