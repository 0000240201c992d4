import type { LightMyRequestResponse } from 'fastify';
import { describe, expect, it } from 'vitest';
import type { NamespaceRow } from '../../src/codehost/namespaces/groups.js';
import type { ProjectRow } from '../../src/codehost/namespaces/projects.js';
import { DATABASE_KINDS } from '../harness.js';
import {
  apiToken,
  codehostForTests,
  createGroup,
  createProject,
  createUser,
  personalNamespace,
} from './helpers.js';

describe.each(DATABASE_KINDS)('groups, projects and members API on %s', (kind) => {
  const service = codehostForTests(kind);

  async function caller(options: { isAdmin?: boolean } = {}) {
    const user = await createUser(service, options);
    return { user, token: await apiToken(service, user.id) };
  }

  function api(
    method: 'GET' | 'POST',
    url: string,
    token: string,
    payload?: Record<string, unknown>,
  ): Promise<LightMyRequestResponse> {
    return service.app.inject({
      method,
      url,
      headers: { 'private-token': token },
      ...(payload ? { payload } : {}),
    });
  }

  describe('groups', () => {
    it('creates a group with the caller as owner, in both visibility spellings', async () => {
      const { user, token } = await caller();
      const created = await api('POST', '/api/v4/groups', token, {
        name: 'Platform Team',
        path: `platform.${user.id}`,
        description: 'Builds things',
        visibility: 'internal',
      });
      expect(created.statusCode).toBe(201);
      expect(created.headers['content-type']).toBe('application/json');
      expect(created.json()).toMatchObject({
        name: 'Platform Team',
        path: `platform.${user.id}`,
        full_path: `platform.${user.id}`,
        description: 'Builds things',
        visibility: 'internal',
        visibility_level: 10,
        parent_id: null,
        web_url: `${service.url}/groups/platform.${user.id}`,
      });
      const members = await api('GET', `/api/v4/groups/${created.json().id}/members`, token);
      expect(members.json()).toEqual([
        expect.objectContaining({ id: user.id, username: user.username, access_level: 50 }),
      ]);

      const v3 = await api('POST', '/api/v3/groups', token, {
        name: 'Old style',
        path: `old-${user.id}`,
        visibility_level: 20,
      });
      expect(v3.json()).toMatchObject({ visibility: 'public', visibility_level: 20 });
    });

    it('creates subgroups under groups the caller owns, no more visible than the parent', async () => {
      const { user, token } = await caller();
      const parent = await createGroup(service, user.id, { visibilityLevel: 10 });
      const child = await api('POST', '/api/v4/groups', token, {
        name: 'Child',
        path: 'child',
        parent_id: parent.id,
      });
      expect(child.statusCode).toBe(201);
      expect(child.json()).toMatchObject({
        full_path: `${parent.full_path}/child`,
        full_name: `${parent.name} / Child`,
        parent_id: parent.id,
        visibility: 'internal',
      });
      const tooOpen = await api('POST', '/api/v4/groups', token, {
        name: 'Open',
        path: 'open',
        parent_id: parent.id,
        visibility: 'public',
      });
      expect(tooOpen.statusCode).toBe(400);
      expect(tooOpen.json().message.visibility_level[0]).toMatch(/not allowed since the parent/);

      const { token: outsider } = await caller();
      const foreign = await api('POST', '/api/v4/groups', outsider, {
        name: 'Intruder',
        path: 'intruder',
        parent_id: parent.id,
      });
      expect(foreign.statusCode).toBe(403);
      expect(foreign.json()).toEqual({ message: '403 Forbidden' });
    });

    it('refuses missing, invalid and taken paths, and paths that are usernames', async () => {
      const { user, token } = await caller();
      const missing = await api('POST', '/api/v4/groups', token, { name: 'No path' });
      expect(missing.statusCode).toBe(400);
      expect(missing.json()).toEqual({ message: '400 Bad request - path is missing' });
      for (const path of ['-dash', 'ends.', 'x.git', 'has space', 'a/b']) {
        const bad = await api('POST', '/api/v4/groups', token, { name: 'Bad', path });
        expect(bad.statusCode, path).toBe(400);
        expect(bad.json().message.path[0]).toMatch(/can contain only letters/);
      }
      await createGroup(service, user.id, { path: `taken-${user.id}` });
      for (const path of [`taken-${user.id}`, `TAKEN-${user.id}`, user.username]) {
        const taken = await api('POST', '/api/v4/groups', token, { name: 'Again', path });
        expect(taken.statusCode, path).toBe(400);
        expect(taken.json()).toEqual({ message: { path: ['has already been taken'] } });
      }
      const badVisibility = await api('POST', '/api/v4/groups', token, {
        name: 'V',
        path: `v-${user.id}`,
        visibility: 'secret',
      });
      expect(badVisibility.json()).toEqual({
        message: '400 Bad request - visibility does not have a valid value',
      });
    });

    it('lists: v3 the caller’s groups, v4 every visible group; search and pagination headers', async () => {
      const { user, token } = await caller();
      const other = await caller();
      const mine = await createGroup(service, user.id, { path: `alpha-mine-${user.id}` });
      const visible = await createGroup(service, other.user.id, {
        path: `alpha-public-${user.id}`,
        visibilityLevel: 20,
      });
      const hidden = await createGroup(service, other.user.id, {
        path: `alpha-private-${user.id}`,
      });

      const v3 = (await api('GET', '/api/v3/groups?per_page=100', token)).json();
      expect(v3.map((group: { id: number }) => group.id)).toEqual([mine.id]);
      const v4 = await api('GET', `/api/v4/groups?search=ALPHA&per_page=1`, token);
      expect(v4.headers['x-total']).toBe('2');
      expect(v4.headers['x-total-pages']).toBe('2');
      expect(v4.headers['x-next-page']).toBe('2');
      expect(v4.headers.link).toContain('rel="next"');
      const second = await api('GET', '/api/v4/groups?search=alpha&per_page=1&page=2', token);
      const ids = [...v4.json(), ...second.json()].map((group: { id: number }) => group.id);
      expect(ids.sort()).toEqual([mine.id, visible.id].sort());
      expect(ids).not.toContain(hidden.id);
      const available = await api('GET', '/api/v3/groups?all_available=true&search=alpha', token);
      expect(available.json()).toHaveLength(2);
      // Wildcards in a search are literal.
      expect((await api('GET', '/api/v4/groups?search=%25', token)).json()).toEqual([]);

      const { token: admin } = await caller({ isAdmin: true });
      const all = await api('GET', `/api/v3/groups?search=alpha-private-${user.id}`, admin);
      expect(all.json().map((group: { id: number }) => group.id)).toEqual([hidden.id]);
    });

    it('shows a group with its visible projects, by id or full path, and hides private ones', async () => {
      const { user, token } = await caller();
      const group = await createGroup(service, user.id, { path: `shown.${user.id}` });
      const project = await createProject(service, user.id, group);
      const byPath = await api(
        'GET',
        `/api/v4/groups/${encodeURIComponent(group.full_path)}`,
        token,
      );
      expect(byPath.statusCode).toBe(200);
      expect(byPath.json()).toMatchObject({ id: group.id, projects: [{ id: project.id }] });
      const { token: stranger } = await caller();
      const hidden = await api('GET', `/api/v4/groups/${group.id}`, stranger);
      expect(hidden.statusCode).toBe(404);
      expect(hidden.json()).toEqual({ message: '404 Group Not Found' });
    });
  });

  describe('projects', () => {
    it('creates a project in the caller’s namespace or a group they master', async () => {
      const { user, token } = await caller();
      const personal = await api('POST', '/api/v3/projects', token, {
        name: 'My Tool',
        public: true,
      });
      expect(personal.statusCode).toBe(201);
      expect(personal.json()).toMatchObject({
        name: 'My Tool',
        path: 'my-tool',
        path_with_namespace: `${user.username}/my-tool`,
        name_with_namespace: `${user.name} / My Tool`,
        visibility: 'public',
        public: true,
        owner: { id: user.id, username: user.username },
        namespace: { kind: 'user', path: user.username },
        http_url_to_repo: `${service.url}/${user.username}/my-tool.git`,
      });
      const group = await createGroup(service, user.id);
      const inGroup = await api('POST', '/api/v4/projects', token, {
        path: 'svc',
        namespace_id: group.id,
      });
      expect(inGroup.statusCode).toBe(201);
      expect(inGroup.json()).toMatchObject({
        name: 'svc',
        path_with_namespace: `${group.full_path}/svc`,
      });
      expect(inGroup.json()).not.toHaveProperty('owner');

      const { token: outsider } = await caller();
      const refused = await api('POST', '/api/v4/projects', outsider, {
        name: 'x',
        namespace_id: group.id,
      });
      expect(refused.statusCode).toBe(404);
      expect(refused.json()).toEqual({ message: '404 Group Not Found' });
      const neither = await api('POST', '/api/v4/projects', token, { description: 'no name' });
      expect(neither.json()).toEqual({
        message:
          '400 Bad request - name, path are missing, at least one parameter must be provided',
      });
      const again = await api('POST', '/api/v4/projects', token, {
        path: 'svc',
        namespace_id: group.id,
      });
      expect(again.json()).toEqual({ message: { path: ['has already been taken'] } });
      const tooOpen = await api('POST', '/api/v4/projects', token, {
        path: 'open',
        namespace_id: group.id,
        visibility: 'public',
      });
      expect(tooOpen.json().message.visibility_level[0]).toMatch(/not allowed in a private group/);
    });

    it('lets a developer of a group read but not create projects there, and enforces the personal limit', async () => {
      const owner = await caller();
      const { user, token } = await caller();
      const group = await createGroup(service, owner.user.id);
      await service.db
        .insertInto('members')
        .values({
          user_id: user.id,
          source_type: 'group',
          source_id: group.id,
          access_level: 30,
          created_at: Date.now(),
          updated_at: Date.now(),
        })
        .execute();
      const project = await createProject(service, owner.user.id, group);
      expect((await api('GET', `/api/v4/projects/${project.id}`, token)).json()).toMatchObject({
        id: project.id,
        permissions: { project_access: null, group_access: { access_level: 30 } },
      });
      const create = await api('POST', '/api/v4/projects', token, {
        name: 'n',
        namespace_id: group.id,
      });
      expect(create.statusCode).toBe(403);

      await service.db
        .updateTable('users')
        .set({ projects_limit: 1 })
        .where('id', '=', user.id)
        .execute();
      expect((await api('POST', '/api/v4/projects', token, { name: 'one' })).statusCode).toBe(201);
      const over = await api('POST', '/api/v4/projects', token, { name: 'two' });
      expect(over.statusCode).toBe(400);
      expect(over.json().message.limit_reached[0]).toMatch(/project limit is 1/);
    });

    it('reaches a private project through a group above it, and through no lookalike path', async () => {
      const owner = await caller();
      const reader = await caller();
      const member = async (group: NamespaceRow) =>
        service.db
          .insertInto('members')
          .values({
            user_id: reader.user.id,
            source_type: 'group',
            source_id: group.id,
            access_level: 20,
            created_at: Date.now(),
            updated_at: Date.now(),
          })
          .execute();
      const stem = `reach${Date.now()}`;
      const top = await createGroup(service, owner.user.id, { path: `${stem}-top` });
      const middle = await createGroup(service, owner.user.id, { path: 'middle', parent: top });
      const inner = await createProject(service, owner.user.id, middle, { path: 'inner' });
      // Lookalikes: a path that merely starts the same, and one that `_` would match as LIKE.
      const longer = await createGroup(service, owner.user.id, { path: `${stem}-topx` });
      const longerProject = await createProject(service, owner.user.id, longer);
      const wild = await createGroup(service, owner.user.id, { path: `${stem}_a` });
      const wildSibling = await createGroup(service, owner.user.id, { path: `${stem}ba` });
      const wildProject = await createProject(service, owner.user.id, wildSibling);
      await member(top);
      await member(wild);
      const read = (id: string) => api('GET', `/api/v4/projects/${id}`, reader.token);
      expect((await read(String(inner.id))).statusCode).toBe(200);
      expect((await read(encodeURIComponent(inner.full_path))).statusCode).toBe(200);
      expect((await read(String(longerProject.id))).statusCode).toBe(404);
      expect((await read(String(wildProject.id))).statusCode).toBe(404);
      // The project's notification settings go through the same check.
      const settings = (project: ProjectRow) =>
        api('GET', `/api/v4/projects/${project.id}/notification_settings`, reader.token);
      expect((await settings(inner)).statusCode).toBe(200);
      const byPath = `/api/v4/projects/${encodeURIComponent(inner.full_path)}/notification_settings`;
      expect((await api('GET', byPath, reader.token)).json()).toEqual({ level: 'global' });
      expect((await settings(wildProject)).statusCode).toBe(404);
    });

    it('lists: v3 the caller’s projects, v4 every visible one, with filters', async () => {
      const { user, token } = await caller();
      const other = await caller();
      const own = await createProject(service, user.id, await personalNamespace(service, user.id), {
        path: `zeta-own-${user.id}`,
      });
      const otherNamespace = await personalNamespace(service, other.user.id);
      const internal = await createProject(service, other.user.id, otherNamespace, {
        path: `zeta-internal-${user.id}`,
        visibilityLevel: 10,
      });
      const secret = await createProject(service, other.user.id, otherNamespace, {
        path: `zeta-secret-${user.id}`,
      });
      const ids = (response: LightMyRequestResponse) =>
        response.json().map((project: { id: number }) => project.id);

      expect(ids(await api('GET', `/api/v3/projects?search=zeta`, token))).toEqual([own.id]);
      expect(
        ids(await api('GET', `/api/v4/projects?search=zeta&order_by=id&sort=asc`, token)),
      ).toEqual([own.id, internal.id]);
      expect(ids(await api('GET', `/api/v4/projects?search=zeta&membership=true`, token))).toEqual([
        own.id,
      ]);
      expect(
        ids(await api('GET', `/api/v4/projects?search=zeta&visibility=internal`, token)),
      ).toEqual([internal.id]);
      expect(ids(await api('GET', `/api/v4/projects?search=zeta&owned=true`, token))).toEqual([
        own.id,
      ]);
      const stranger = await api('GET', `/api/v4/projects/${secret.id}`, token);
      expect(stranger.json()).toEqual({ message: '404 Project Not Found' });
      const badOrder = await api('GET', '/api/v4/projects?order_by=stars', token);
      expect(badOrder.json()).toEqual({
        message: '400 Bad request - order_by does not have a valid value',
      });
    });
  });

  describe('members', () => {
    it('lets owners add members at GitLab access levels, once', async () => {
      const { user, token } = await caller();
      const teammate = await createUser(service);
      const group = await createGroup(service, user.id);
      const added = await api('POST', `/api/v3/groups/${group.id}/members`, token, {
        user_id: teammate.id,
        access_level: 40,
      });
      expect(added.statusCode).toBe(201);
      expect(added.json()).toMatchObject({
        id: teammate.id,
        username: teammate.username,
        access_level: 40,
      });
      const again = await api('POST', `/api/v3/groups/${group.id}/members`, token, {
        user_id: teammate.id,
        access_level: 30,
      });
      expect(again.statusCode).toBe(409);
      expect(again.json()).toEqual({ message: 'Member already exists' });

      const project = await createProject(service, user.id, group);
      const owner = await api('POST', `/api/v4/projects/${project.id}/members`, token, {
        user_id: teammate.id,
        access_level: 50,
      });
      expect(owner.json()).toEqual({
        message: '400 Bad request - access_level does not have a valid value',
      });
      const developer = await api('POST', `/api/v4/projects/${project.id}/members`, token, {
        user_id: String(teammate.id),
        access_level: '30',
      });
      expect(developer.statusCode).toBe(201);
      const list = await api('GET', `/api/v4/projects/${project.id}/members`, token);
      expect(list.json()).toEqual([expect.objectContaining({ id: teammate.id, access_level: 30 })]);

      const noUser = await api('POST', `/api/v4/groups/${group.id}/members`, token, {
        user_id: 99999999,
        access_level: 10,
      });
      expect(noUser.json()).toEqual({ message: '404 User Not Found' });
      const missing = await api('POST', `/api/v4/groups/${group.id}/members`, token, {
        user_id: teammate.id,
      });
      expect(missing.json()).toEqual({ message: '400 Bad request - access_level is missing' });
    });

    it('refuses members from those who cannot manage the group, and hides private groups', async () => {
      const { user } = await caller();
      const group = await createGroup(service, user.id, { visibilityLevel: 10 });
      const { user: reader, token } = await caller();
      const forbidden = await api('POST', `/api/v4/groups/${group.id}/members`, token, {
        user_id: reader.id,
        access_level: 50,
      });
      expect(forbidden.statusCode).toBe(403);
      const privateGroup = await createGroup(service, user.id);
      const hidden = await api('POST', `/api/v4/groups/${privateGroup.id}/members`, token, {
        user_id: reader.id,
        access_level: 50,
      });
      expect(hidden.statusCode).toBe(404);
      const rows = await service.db
        .selectFrom('members')
        .selectAll()
        .where('user_id', '=', reader.id)
        .execute();
      expect(rows).toEqual([]);
    });
  });
});
