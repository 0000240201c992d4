import { Type } from '@sinclair/typebox';
import type { HttpApp } from '../../platform/http/server.js';
import type { UserRow } from '../accounts/users.js';
import type { Codehost } from '../context.js';
import type { SourceType } from '../db/tables.js';
import { ACCESS_LEVELS, type AccessLevel } from '../namespaces/levels.js';
import { MemberExists } from '../namespaces/members.js';
import { authenticateApiRequest } from './authentication.js';
import { answer, apiErrors, GitLabMember, page } from './described-responses.js';
import { memberEntity } from './entities.js';
import { badParameter, forbidden, gitlabError, notFound } from './gitlab-errors.js';
import { readableGroup, readableProject } from './lookup.js';
import { describedBody, ID_PARAMS, requestParameters, requiredInteger } from './parameters.js';
import { API_PREFIXES } from './user-routes.js';

/** Projects stop at master; owner is a group level only (GitLab 8.12). */
const ALLOWED_LEVELS: Record<SourceType, readonly AccessLevel[]> = {
  group: Object.values(ACCESS_LEVELS),
  project: [
    ACCESS_LEVELS.guest,
    ACCESS_LEVELS.reporter,
    ACCESS_LEVELS.developer,
    ACCESS_LEVELS.master,
  ],
};

/** What adding a member reads, with the levels the source takes. */
const newMember = (type: SourceType) =>
  Type.Object({
    user_id: Type.Integer(),
    access_level: Type.Union(
      ALLOWED_LEVELS[type].map((level) => Type.Literal(level)),
      { description: '10 guest, 20 reporter, 30 developer, 40 master, 50 owner (groups only)' },
    ),
  });

/** The source a path names, readable by the caller, and whether the caller may manage it. */
async function sourceFor(codehost: Codehost, type: SourceType, user: UserRow, id: string) {
  if (type === 'group') {
    const group = await readableGroup(codehost, user, id);
    return { id: group.id, canAdmin: () => codehost.access.canAdminGroup(user, group) };
  }
  const { project, namespace } = await readableProject(codehost, user, id);
  return {
    id: project.id,
    canAdmin: () => codehost.access.canAdminProject(user, project, namespace),
  };
}

export function registerMemberRoutes(app: HttpApp, codehost: Codehost): void {
  const publicUrl = codehost.config.publicUrl;
  for (const prefix of API_PREFIXES) {
    for (const type of ['group', 'project'] as const) {
      const path = `${prefix}/${type}s/:id/members`;

      app.get(path, {
        schema: {
          summary: `Direct members of a ${type}`,
          tags: [`${type}s`],
          params: ID_PARAMS,
          response: {
            200: page(GitLabMember, 'A page of members'),
            ...apiErrors(400, 401, 403, 404),
          },
        },
        config: { apiScopes: ['api'] },
        handler: async (request) => {
          const { user } = await authenticateApiRequest(request, codehost);
          const source = await sourceFor(codehost, type, user, request.params.id);
          const members = await codehost.members.list(type, source.id);
          return members.map((member) => memberEntity(member.user, member.access_level, publicUrl));
        },
      });

      app.post(path, {
        schema: {
          summary: `Add a user to a ${type} (${type === 'group' ? 'owners' : 'masters'} and admins)`,
          tags: [`${type}s`],
          params: ID_PARAMS,
          ...describedBody(newMember(type)),
          response: {
            201: answer(GitLabMember, 'The new member'),
            ...apiErrors(400, 401, 403, 404, 409, 413, 415),
          },
        },
        config: { apiScopes: ['api'] },
        handler: async (request, reply) => {
          const { user } = await authenticateApiRequest(request, codehost);
          const source = await sourceFor(codehost, type, user, request.params.id);
          const parameters = requestParameters(request);
          const userId = requiredInteger(parameters, 'user_id');
          const accessLevel = requiredInteger(parameters, 'access_level');
          if (!(ALLOWED_LEVELS[type] as readonly number[]).includes(accessLevel)) {
            throw badParameter('access_level does not have a valid value');
          }
          if (!(await source.canAdmin())) throw forbidden();
          const member = await codehost.users.findById(userId);
          if (!member) throw notFound('User');
          try {
            await codehost.members.add(type, source.id, member.id, accessLevel as AccessLevel);
          } catch (error) {
            if (error instanceof MemberExists) throw gitlabError(409, 'Member already exists');
            throw error;
          }
          return reply.status(201).send(memberEntity(member, accessLevel, publicUrl));
        },
      });
    }
  }
}
