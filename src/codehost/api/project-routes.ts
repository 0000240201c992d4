import { Type } from '@sinclair/typebox';
import type { HttpApp } from '../../platform/http/server.js';
import type { UserRow } from '../accounts/users.js';
import type { Codehost } from '../context.js';
import type { NamespaceRow } from '../namespaces/groups.js';
import { NOTIFICATION_LEVELS } from '../notifications/settings.js';
import { RecordInvalid } from '../record-invalid.js';
import { authenticateApiRequest } from './authentication.js';
import {
  answer,
  apiErrors,
  GitLabProject,
  GitLabProjectWithPermissions,
} from './described-responses.js';
import {
  badParameter,
  forbidden,
  gitlabError,
  notFound,
  recordInvalidError,
  recordWrite,
} from './gitlab-errors.js';
import {
  listParameters,
  listRequest,
  listRouteOptions,
  nameOrPathContains,
} from './list-routes.js';
import { readableGroup, readableProject } from './lookup.js';
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
  SORT_ORDERS,
  stringParameter,
  VISIBILITY_NAMES,
  VISIBILITY_PARAMETERS,
} from './parameters.js';
import { projectEntities } from './project-entities.js';
import { inIds } from './queries.js';
import { API_PREFIXES } from './user-routes.js';

/** Where a new project goes: `namespace_id` if given, else the caller's own namespace. */
async function targetNamespace(
  codehost: Codehost,
  user: UserRow,
  namespaceId: number | undefined,
): Promise<NamespaceRow> {
  const namespace =
    namespaceId === undefined
      ? await codehost.groups.personalNamespace(user.id)
      : await codehost.groups.findNamespace(namespaceId);
  if (!namespace) throw gitlabError(404, '404 Namespace Not Found');
  if (namespace.kind === 'group') await readableGroup(codehost, user, String(namespace.id));
  else if (namespace.owner_id !== user.id && user.is_admin !== 1) {
    throw gitlabError(404, '404 Namespace Not Found');
  }
  if (!(await codehost.access.canCreateProjectIn(user, namespace))) throw forbidden();
  return namespace;
}

/** GitLab's personal project limit (`projects_limit`), counted in the user's own namespace. */
async function checkProjectLimit(codehost: Codehost, user: UserRow, namespace: NamespaceRow) {
  if (namespace.kind !== 'user' || user.is_admin === 1) return;
  const counted = await codehost.db
    .selectFrom('projects')
    .select((eb) => eb.fn.countAll<number>().as('total'))
    .where('namespace_id', '=', namespace.id)
    .executeTakeFirstOrThrow();
  if (Number(counted.total) >= user.projects_limit) {
    throw recordInvalidError(
      new RecordInvalid({
        limit_reached: [
          `Your project limit is ${user.projects_limit} projects! Please contact your administrator to increase it`,
        ],
      }),
    );
  }
}

const PROJECT_ORDER = [
  'id',
  'name',
  'path',
  'created_at',
  'updated_at',
  'last_activity_at',
] as const;

const ProjectListParameters = Type.Object({
  ...listParameters({
    search: 'Part of the name, path or description',
    owned: "Only the caller's own namespace",
  }),
  membership: Type.Optional(
    Type.Boolean({ description: 'Only projects the caller is a member of (true in API v3)' }),
  ),
  visibility: VISIBILITY_PARAMETERS.visibility,
  order_by: choiceOf(PROJECT_ORDER, 'created_at unless given'),
  sort: choiceOf(SORT_ORDERS, 'desc unless given'),
});

const NewProject = Type.Object({
  name: Type.Optional(Type.String({ description: 'The name, path or both' })),
  path: Type.Optional(Type.String({ description: 'The URL segment' })),
  description: Type.Optional(Type.String()),
  ...VISIBILITY_PARAMETERS,
  namespace_id: Type.Optional(
    Type.Integer({ description: "A group to create it in; the caller's own namespace if absent" }),
  ),
});

export function registerProjectRoutes(app: HttpApp, codehost: Codehost): void {
  for (const prefix of API_PREFIXES) {
    const membersOnlyByDefault = prefix === '/api/v3';

    app.get(`${prefix}/projects`, {
      ...listRouteOptions({
        summary:
          prefix === '/api/v3'
            ? "The caller's projects (`membership=false` for every visible project)"
            : 'Projects visible to the caller (`membership=true` for their own)',
        tags: ['projects'],
        parameters: ProjectListParameters,
        item: GitLabProject,
        page: 'A page of projects',
      }),
      handler: async (request, reply) => {
        const { user, parameters, page, search, owned } = await listRequest(request, codehost);
        const membership = booleanParameter(parameters, 'membership') ?? membersOnlyByDefault;
        const visibility = choiceParameter(parameters, 'visibility', VISIBILITY_NAMES);
        const orderBy =
          choiceParameter(parameters, 'order_by', PROJECT_ORDER) ?? ('created_at' as const);
        const sort = choiceParameter(parameters, 'sort', SORT_ORDERS) ?? 'desc';

        const personal = await codehost.groups.personalNamespace(user.id);
        const reach = owned
          ? { projectIds: [], namespaceIds: personal ? [personal.id] : [] }
          : await codehost.access.memberProjectFilter(user);
        const restricted = owned || membership || user.is_admin !== 1;
        const orVisible = !owned && !membership;
        const query = codehost.db.selectFrom('projects').where((eb) => {
          const conditions = [];
          if (restricted) {
            const reached = [
              inIds('id', reach.projectIds),
              inIds('namespace_id', reach.namespaceIds),
            ];
            if (orVisible) reached.push(eb('visibility_level', '>=', 10));
            conditions.push(eb.or(reached));
          }
          if (visibility) {
            conditions.push(
              eb(
                'visibility_level',
                '=',
                visibility === 'public' ? 20 : visibility === 'internal' ? 10 : 0,
              ),
            );
          }
          if (search) {
            conditions.push(eb.or(nameOrPathContains(search)));
          }
          return eb.and(conditions);
        });
        const rows = await listPage(request, reply, codehost.config.publicUrl, page, query, {
          // GitLab's last activity is the project's last change.
          column: orderBy === 'last_activity_at' ? 'updated_at' : orderBy,
          sort,
        });
        return projectEntities(codehost, rows);
      },
    });

    app.post(`${prefix}/projects`, {
      schema: {
        summary: "Create a project in the caller's namespace or a group (`namespace_id`)",
        tags: ['projects'],
        ...describedBody(NewProject),
        response: {
          201: answer(GitLabProject, 'The new project'),
          ...apiErrors(400, 401, 403, 404, 413, 415),
        },
      },
      config: { apiScopes: ['api'] },
      handler: async (request, reply) => {
        const { user } = await authenticateApiRequest(request, codehost);
        const parameters = requestParameters(request);
        const name = stringParameter(parameters, 'name');
        const path = stringParameter(parameters, 'path');
        if (name === undefined && path === undefined) {
          throw badParameter('name, path are missing, at least one parameter must be provided');
        }
        const namespace = await targetNamespace(
          codehost,
          user,
          integerParameter(parameters, 'namespace_id'),
        );
        await checkProjectLimit(codehost, user, namespace);
        const project = await recordWrite(() =>
          codehost.projects.create(
            {
              namespace,
              ...(name !== undefined ? { name } : {}),
              ...(path !== undefined ? { path } : {}),
              ...descriptionAndVisibility(parameters),
            },
            user.id,
          ),
        );
        const [entity] = await projectEntities(codehost, [project]);
        // Its namespace was removed meanwhile: there is no project to show.
        if (!entity) throw notFound('Project');
        return reply.status(201).send(entity);
      },
    });

    app.get(`${prefix}/projects/:id`, {
      schema: {
        summary: "A project, with the caller's access to it",
        tags: ['projects'],
        params: ID_PARAMS,
        response: {
          200: answer(GitLabProjectWithPermissions, 'The project'),
          ...apiErrors(400, 401, 403, 404),
        },
      },
      config: { apiScopes: ['api'] },
      handler: async (request) => {
        const { user } = await authenticateApiRequest(request, codehost);
        const { project, namespace } = await readableProject(codehost, user, request.params.id);
        const [entity] = await projectEntities(codehost, [project]);
        if (!entity) throw notFound('Project');
        const direct = await codehost.members.highestAccess(user.id, 'project', [project.id]);
        const viaGroup =
          namespace.kind === 'group' ? await codehost.access.groupAccess(user, namespace) : 0;
        // GitLab pairs each access with the member's notification level, as stored.
        const levelOf = async (source: { type: 'project' | 'group'; id: number }) =>
          NOTIFICATION_LEVELS.indexOf(
            (await codehost.notificationSettings.find(user.id, source))?.level ?? 'global',
          );
        return {
          ...entity,
          permissions: {
            project_access:
              direct > 0
                ? {
                    access_level: direct,
                    notification_level: await levelOf({ type: 'project', id: project.id }),
                  }
                : null,
            group_access:
              viaGroup > 0
                ? {
                    access_level: viaGroup,
                    notification_level: await levelOf({ type: 'group', id: namespace.id }),
                  }
                : null,
          },
        };
      },
    });
  }
}
