import { Type } from '@sinclair/typebox';
import type { HttpApp } from '../../platform/http/server.js';
import type { UserRow } from '../accounts/users.js';
import type { Codehost } from '../context.js';
import type { NamespaceRow } from '../namespaces/groups.js';
import { ACCESS_LEVELS } from '../namespaces/levels.js';
import { authenticateApiRequest } from './authentication.js';
import { answer, apiErrors, GitLabGroup, GitLabGroupWithProjects } from './described-responses.js';
import { groupEntity } from './entities.js';
import { forbidden, recordWrite } from './gitlab-errors.js';
import {
  listParameters,
  listRequest,
  listRouteOptions,
  nameOrPathContains,
} from './list-routes.js';
import { readableGroup } from './lookup.js';
import { listPage } from './pagination.js';
import {
  booleanParameter,
  choiceOf,
  choiceParameter,
  describedBody,
  descriptionAndVisibility,
  ID_PARAMS,
  integerParameter,
  requestParameters,
  requiredString,
  SORT_ORDERS,
  VISIBILITY_PARAMETERS,
} from './parameters.js';
import { projectEntities } from './project-entities.js';
import { inIds } from './queries.js';
import { API_PREFIXES } from './user-routes.js';

async function creatableParent(codehost: Codehost, user: UserRow, parentId: number | undefined) {
  if (parentId === undefined) {
    if (user.can_create_group !== 1 && user.is_admin !== 1) throw forbidden();
    return undefined;
  }
  const parent = await readableGroup(codehost, user, String(parentId));
  if (!(await codehost.access.canAdminGroup(user, parent))) throw forbidden();
  return parent;
}

const GROUP_ORDER = ['name', 'path', 'id'] as const;

const GroupListParameters = Type.Object({
  ...listParameters({ search: 'Part of the name or path', owned: 'Only groups the caller owns' }),
  all_available: Type.Optional(
    Type.Boolean({ description: "Every visible group, not only the caller's (API v3)" }),
  ),
  order_by: choiceOf(GROUP_ORDER, 'name unless given'),
  sort: choiceOf(SORT_ORDERS, 'asc unless given'),
});

const NewGroup = Type.Object({
  name: Type.String(),
  path: Type.String({ description: 'The URL segment' }),
  description: Type.Optional(Type.String()),
  ...VISIBILITY_PARAMETERS,
  parent_id: Type.Optional(Type.Integer({ description: 'Makes it a subgroup of this group' })),
});

export function registerGroupRoutes(app: HttpApp, codehost: Codehost): void {
  const publicUrl = codehost.config.publicUrl;
  for (const prefix of API_PREFIXES) {
    const membersOnlyByDefault = prefix === '/api/v3';

    app.get(`${prefix}/groups`, {
      ...listRouteOptions({
        summary:
          prefix === '/api/v3'
            ? "The caller's groups (all for admins); `all_available=true` for every visible group"
            : 'Groups visible to the caller',
        tags: ['groups'],
        parameters: GroupListParameters,
        item: GitLabGroup,
        page: 'A page of groups',
      }),
      handler: async (request, reply) => {
        const { user, parameters, page, search, owned } = await listRequest(request, codehost);
        const allAvailable = booleanParameter(parameters, 'all_available');
        const orderBy = choiceParameter(parameters, 'order_by', GROUP_ORDER) ?? 'name';
        const sort = choiceParameter(parameters, 'sort', SORT_ORDERS) ?? 'asc';
        const membersOnly = allAvailable === undefined ? membersOnlyByDefault : !allAvailable;

        // Which groups: every one (admins), or those with these ids, or those
        // plus every public and internal group.
        let scope: { ids: number[]; orVisible: boolean } | 'all';
        if (owned) {
          const rows = await codehost.db
            .selectFrom('members')
            .select('source_id')
            .where('user_id', '=', user.id)
            .where('source_type', '=', 'group')
            .where('access_level', '=', ACCESS_LEVELS.owner)
            .execute();
          scope = { ids: rows.map((row) => row.source_id), orVisible: false };
        } else if (user.is_admin === 1) {
          scope = 'all';
        } else if (membersOnly) {
          scope = { ids: await codehost.access.memberGroupIds(user), orVisible: false };
        } else {
          scope = { ids: [...(await codehost.access.reachableGroupIds(user))], orVisible: true };
        }
        const query = codehost.db
          .selectFrom('namespaces')
          .where('kind', '=', 'group')
          .where((eb) => {
            const conditions = [];
            if (scope !== 'all') {
              conditions.push(
                scope.orVisible
                  ? eb.or([eb('visibility_level', '>=', 10), inIds('id', scope.ids)])
                  : inIds('id', scope.ids),
              );
            }
            if (search) {
              conditions.push(eb.or(nameOrPathContains(search)));
            }
            return eb.and(conditions);
          });
        const rows = await listPage(request, reply, publicUrl, page, query, {
          column: orderBy,
          sort,
        });
        return rows.map((group) => groupEntity(group, publicUrl));
      },
    });

    app.post(`${prefix}/groups`, {
      schema: {
        summary: 'Create a group; the caller becomes its owner',
        tags: ['groups'],
        ...describedBody(NewGroup),
        response: {
          201: answer(GitLabGroup, 'The new group'),
          ...apiErrors(400, 401, 403, 404, 413, 415),
        },
      },
      config: { apiScopes: ['api'] },
      handler: async (request, reply) => {
        const { user } = await authenticateApiRequest(request, codehost);
        const parameters = requestParameters(request);
        const name = requiredString(parameters, 'name');
        const path = requiredString(parameters, 'path');
        const parent = await creatableParent(
          codehost,
          user,
          integerParameter(parameters, 'parent_id'),
        );
        const group = await recordWrite(() =>
          codehost.groups.create(
            {
              name,
              path,
              ...descriptionAndVisibility(parameters),
              ...(parent ? { parent } : {}),
            },
            user.id,
          ),
        );
        return reply.status(201).send(groupEntity(group, publicUrl));
      },
    });

    app.get(`${prefix}/groups/:id`, {
      schema: {
        summary: 'A group, with the projects in it the caller can see',
        tags: ['groups'],
        params: ID_PARAMS,
        response: {
          200: answer(GitLabGroupWithProjects, 'The group'),
          ...apiErrors(400, 401, 403, 404),
        },
      },
      config: { apiScopes: ['api'] },
      handler: async (request) => {
        const { user } = await authenticateApiRequest(request, codehost);
        const group = await readableGroup(codehost, user, request.params.id);
        return {
          ...groupEntity(group, publicUrl),
          projects: await projectEntities(
            codehost,
            await readableProjectsIn(codehost, user, group),
          ),
        };
      },
    });
  }
}

async function readableProjectsIn(codehost: Codehost, user: UserRow, group: NamespaceRow) {
  const projects = await codehost.db
    .selectFrom('projects')
    .selectAll()
    .where('namespace_id', '=', group.id)
    .orderBy('id')
    .execute();
  const readable = [];
  for (const project of projects) {
    if (await codehost.access.canReadProject(user, project, group)) readable.push(project);
  }
  return readable;
}
