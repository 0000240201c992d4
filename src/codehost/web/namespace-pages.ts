import { Type } from '@sinclair/typebox';
import type { FastifyRequest } from 'fastify';
import { HttpError } from '../../platform/http/problem.js';
import type { HttpApp } from '../../platform/http/server.js';
import { html, type Markup, timeTag } from '../../platform/web/html.js';
import type { UserRow } from '../accounts/users.js';
import type { Codehost } from '../context.js';
import type { SourceType } from '../db/tables.js';
import type { NamespaceRow } from '../namespaces/groups.js';
import { ACCESS_LEVELS, VISIBILITY_LEVELS, visibilityName } from '../namespaces/levels.js';
import type { ProjectRow } from '../namespaces/projects.js';
import { problem } from '../problem-codes.js';
import { page } from './layout.js';
import { currentUser } from './web-context.js';

const USERNAME_PARAMS = Type.Object({ username: Type.String() });
/** The rest of a path below a wildcard (`/groups/*`). */
const REST_PARAMS = Type.Object({ '*': Type.String() });
const NAMESPACE_REST_PARAMS = Type.Object({ namespace: Type.String(), '*': Type.String() });

/** GitLab 8's names of the access levels. */
const ACCESS_NAMES = new Map<number, string>([
  [ACCESS_LEVELS.guest, 'Guest'],
  [ACCESS_LEVELS.reporter, 'Reporter'],
  [ACCESS_LEVELS.developer, 'Developer'],
  [ACCESS_LEVELS.master, 'Master'],
  [ACCESS_LEVELS.owner, 'Owner'],
]);

/** Rows listed per section of a page; the API pages through the rest. */
const LISTED = 100;

/** Said of what does not exist and of what the visitor may not see, alike. */
function notFound(viewer: UserRow | undefined): HttpError {
  return new HttpError(
    problem(
      404,
      'not-found',
      viewer
        ? 'There is no page at this address, or it is private and you are not a member.'
        : 'There is no page at this address, or you need to sign in to see it.',
    ),
  );
}

/**
 * The pages `web_url` points at: a user's (`/:username`), a group's
 * (`/groups/:path`) and a project's (`/:namespace/:project`, groups nested to any
 * depth). Visitors who are not signed in see what is public, as on GitLab;
 * private ones answer 404, never 403, so their existence does not leak.
 */
export function registerNamespacePages(app: HttpApp, codehost: Codehost): void {
  const canSeeGroup = async (viewer: UserRow | undefined, group: NamespaceRow) =>
    viewer
      ? codehost.access.canReadGroup(viewer, group)
      : group.visibility_level >= VISIBILITY_LEVELS.public;
  const canSeeProject = async (
    viewer: UserRow | undefined,
    project: ProjectRow,
    namespace: NamespaceRow,
  ) =>
    viewer
      ? codehost.access.canReadProject(viewer, project, namespace)
      : project.visibility_level >= VISIBILITY_LEVELS.public;

  const visibleProjectsIn = async (viewer: UserRow | undefined, namespace: NamespaceRow) => {
    const projects = await codehost.db
      .selectFrom('projects')
      .selectAll()
      .where('namespace_id', '=', namespace.id)
      .orderBy('full_path_normalized')
      .limit(LISTED)
      .execute();
    const seen: ProjectRow[] = [];
    for (const project of projects) {
      if (await canSeeProject(viewer, project, namespace)) seen.push(project);
    }
    return seen;
  };

  const membersList = async (type: SourceType, id: number): Promise<Markup> => {
    const members = (await codehost.members.list(type, id)).filter(
      (member) => member.user.state === 'active',
    );
    if (members.length === 0) return html`<p>No members.</p>`;
    return html`<ul id="members">${members
      .slice(0, LISTED)
      .map(
        (member) =>
          html`<li><a href="/${member.user.username}">${member.user.name}</a> <span class="hint">@${member.user.username}</span> <span class="badge">${ACCESS_NAMES.get(member.access_level) ?? 'Member'}</span></li>`,
      )}</ul>`;
  };

  const projectList = (projects: readonly ProjectRow[]) =>
    projects.length === 0
      ? html`<p>No projects you can see.</p>`
      : html`<ul id="projects">${projects.map(
          (project) =>
            html`<li><a href="/${project.full_path}">${project.name}</a> <span class="badge">${visibilityName(project.visibility_level)}</span>${project.description ? html` · ${project.description}` : html``}</li>`,
        )}</ul>`;

  const send = (
    request: FastifyRequest,
    viewer: UserRow | undefined,
    title: string,
    body: Markup,
  ) => page({ title, user: viewer, csrf: request.session?.data.csrf }, body);

  app.get('/:username', { schema: { params: USERNAME_PARAMS } }, async (request, reply) => {
    const { username } = request.params;
    const viewer = await currentUser(codehost, request);
    const user = await codehost.users.findByUsername(username);
    if (user?.state !== 'active') {
      // A group's short address leads to its page, as on GitLab.
      const group = await codehost.groups.findByFullPath(username);
      if (group && (await canSeeGroup(viewer, group))) {
        return reply.redirect(`/groups/${group.full_path}`, 302);
      }
      throw notFound(viewer);
    }
    const namespace = await codehost.groups.personalNamespace(user.id);
    const projects = namespace ? await visibleProjectsIn(viewer, namespace) : [];
    const website = /^https?:\/\//i.test(user.website_url) ? user.website_url : '';
    const facts: [string, Markup | string][] = [
      ['Username', `@${user.username}`],
      ...(user.public_email
        ? [
            ['Email', html`<a href="mailto:${user.public_email}">${user.public_email}</a>`] as [
              string,
              Markup,
            ],
          ]
        : []),
      ...(user.location ? [['Location', user.location] as [string, string]] : []),
      ...(website
        ? [
            ['Website', html`<a href="${website}" rel="nofollow noopener">${website}</a>`] as [
              string,
              Markup,
            ],
          ]
        : []),
      ...(user.skype ? [['Skype', user.skype] as [string, string]] : []),
      ...(user.linkedin ? [['LinkedIn', user.linkedin] as [string, string]] : []),
      ...(user.twitter ? [['Twitter', user.twitter] as [string, string]] : []),
      ['Member since', timeTag(user.created_at, Date.now())],
    ];
    return reply.type('text/html').send(
      send(
        request,
        viewer,
        user.name,
        html`${user.bio ? html`<p id="bio">${user.bio}</p>` : html``}
<dl class="facts">${facts.map(([term, value]) => html`<dt>${term}</dt><dd>${value}</dd>`)}</dl>
${viewer?.id === user.id ? html`<p><a href="/profile">Edit profile</a></p>` : html``}
<h2>Personal projects</h2>
${projectList(projects)}`,
      ),
    );
  });

  app.get('/groups/*', { schema: { params: REST_PARAMS } }, async (request, reply) => {
    const path = request.params['*'].replace(/\/+$/, '');
    const viewer = await currentUser(codehost, request);
    const group = await codehost.groups.findByFullPath(path);
    if (!group || !(await canSeeGroup(viewer, group))) {
      throw notFound(viewer);
    }
    const children = await codehost.db
      .selectFrom('namespaces')
      .selectAll()
      .where('kind', '=', 'group')
      .where('parent_id', '=', group.id)
      .orderBy('full_path_normalized')
      .limit(LISTED)
      .execute();
    const subgroups: NamespaceRow[] = [];
    for (const child of children) if (await canSeeGroup(viewer, child)) subgroups.push(child);
    const parent = group.parent_id ? await codehost.groups.findById(group.parent_id) : undefined;
    return reply.type('text/html').send(
      send(
        request,
        viewer,
        group.full_name,
        html`<p><span class="badge">${visibilityName(group.visibility_level)} group</span> <code>${group.full_path}</code>${
          parent && (await canSeeGroup(viewer, parent))
            ? html` · in <a href="/groups/${parent.full_path}">${parent.full_name}</a>`
            : html``
        }</p>
${group.description ? html`<p id="description">${group.description}</p>` : html``}
${
  subgroups.length > 0
    ? html`<h2>Subgroups</h2><ul id="subgroups">${subgroups.map((child) => html`<li><a href="/groups/${child.full_path}">${child.name}</a></li>`)}</ul>`
    : html``
}
<h2>Projects</h2>
${projectList(await visibleProjectsIn(viewer, group))}
<h2>Members</h2>
${await membersList('group', group.id)}`,
      ),
    );
  });

  // Any other path of two or more segments may be a project: `/:namespace/*`
  // is the last route the router tries. What it does not find goes to the
  // not-found handler, so it answers as any unknown address does.
  app.get(
    '/:namespace/*',
    { schema: { params: NAMESPACE_REST_PARAMS }, config: { catchAll: true } },
    async (request, reply) => {
      const { params } = request;
      const fullPath = `${params.namespace}/${params['*']}`.replace(/\/+$/, '');
      const viewer = await currentUser(codehost, request);
      const project = await codehost.projects.findByFullPath(fullPath);
      const namespace = project
        ? await codehost.groups.findNamespace(project.namespace_id)
        : undefined;
      if (!project || !namespace || !(await canSeeProject(viewer, project, namespace))) {
        // The not-found handler answers as for any unknown address: 405 where the
        // path serves other methods, in the shape of the path's surface.
        return reply.callNotFound();
      }
      const owner =
        namespace.kind === 'user' && namespace.owner_id !== null
          ? await codehost.users.findById(namespace.owner_id)
          : undefined;
      const namespaceLink =
        namespace.kind === 'group'
          ? html`<a href="/groups/${namespace.full_path}">${namespace.full_name}</a>`
          : html`<a href="/${owner?.username ?? namespace.path}">${owner?.name ?? namespace.name}</a>`;
      return reply.type('text/html').send(
        send(
          request,
          viewer,
          project.name,
          html`<p><span class="badge">${visibilityName(project.visibility_level)} project</span> in ${namespaceLink} · <code>${project.full_path}</code></p>
${project.description ? html`<p id="description">${project.description}</p>` : html``}
<p class="hint">Created ${timeTag(project.created_at, Date.now())}.</p>
<h2>Members</h2>
${await membersList('project', project.id)}
${namespace.kind === 'group' ? html`<p class="hint">Members of <a href="/groups/${namespace.full_path}">${namespace.full_name}</a> and the groups above it have access too.</p>` : html``}`,
        ),
      );
    },
  );
}
