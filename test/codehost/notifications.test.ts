import type { LightMyRequestResponse } from 'fastify';
import { describe, expect, it } from 'vitest';
import { PasswordHasher } from '../../src/codehost/accounts/passwords.js';
import { UserStore } from '../../src/codehost/accounts/users.js';
import {
  NOTIFICATION_EVENTS,
  NOTIFICATION_LEVELS,
} from '../../src/codehost/notifications/settings.js';
import { DATABASE_KINDS } from '../harness.js';
import {
  apiToken,
  codehostForTests,
  createGroup,
  createProject,
  createUser,
  personalNamespace,
} from './helpers.js';

const ALL_FALSE = Object.fromEntries(NOTIFICATION_EVENTS.map((event) => [event, false]));

describe.each(DATABASE_KINDS)('notification settings on %s', (kind) => {
  const service = codehostForTests(kind);

  /** A user with a token, a private group and a private project in it (both theirs). */
  async function setUp() {
    const user = await createUser(service);
    const token = await apiToken(service, user.id);
    const group = await createGroup(service, user.id, { path: `team.${user.id}` });
    const project = await createProject(service, user.id, group, { path: 'app.v2' });
    return { user, token, group, project };
  }

  type Transport = 'query' | 'form' | 'json';
  function call(
    method: 'GET' | 'PUT',
    url: string,
    token: string | undefined,
    parameters: Record<string, string | boolean> = {},
    transport: Transport = 'json',
  ): Promise<LightMyRequestResponse> {
    const headers: Record<string, string> = token ? { 'private-token': token } : {};
    const entries = Object.entries(parameters).map(([key, value]): [string, string] => [
      key,
      String(value),
    ]);
    if (method === 'GET' || transport === 'query') {
      const query = new URLSearchParams(entries).toString();
      return service.app.inject({ method, url: query ? `${url}?${query}` : url, headers });
    }
    if (transport === 'form') {
      return service.app.inject({
        method,
        url,
        headers: { ...headers, 'content-type': 'application/x-www-form-urlencoded' },
        payload: new URLSearchParams(entries).toString(),
      });
    }
    return service.app.inject({ method, url, headers, payload: parameters });
  }

  const rowsOf = async (userId: number) =>
    service.db
      .selectFrom('notification_settings')
      .selectAll()
      .where('user_id', '=', userId)
      .execute();

  describe.each(['/api/v3', '/api/v4'])('under %s', (prefix) => {
    it('global GET stores participating once and answers level and notification_email', async () => {
      const { user, token } = await setUp();
      expect(await rowsOf(user.id)).toHaveLength(0);
      const first = await call('GET', `${prefix}/notification_settings`, token);
      expect(first.statusCode).toBe(200);
      expect(first.json()).toEqual({ level: 'participating', notification_email: user.email });
      const second = await call('GET', `${prefix}/notification_settings`, token);
      expect(second.json()).toEqual(first.json());
      const rows = await rowsOf(user.id);
      expect(rows).toHaveLength(1);
      expect(rows[0]?.source_type).toBe('global');
    });

    it('group and project GET without a row answer global and store nothing', async () => {
      const { user, token, group, project } = await setUp();
      for (const url of [
        `${prefix}/groups/${group.id}/notification_settings`,
        `${prefix}/projects/${project.id}/notification_settings`,
      ]) {
        const response = await call('GET', url, token);
        expect(response.statusCode).toBe(200);
        expect(response.json()).toEqual({ level: 'global' });
      }
      expect(await rowsOf(user.id)).toHaveLength(0);
    });

    it('accepts each of the six levels on every scope', async () => {
      const { token, group, project } = await setUp();
      for (const url of [
        `${prefix}/notification_settings`,
        `${prefix}/groups/${group.id}/notification_settings`,
        `${prefix}/projects/${project.id}/notification_settings`,
      ]) {
        for (const level of NOTIFICATION_LEVELS) {
          const response = await call('PUT', url, token, { level });
          expect(response.statusCode, `${url} ${level}`).toBe(200);
          expect(response.json().level).toBe(level);
          expect((await call('GET', url, token)).json().level).toBe(level);
        }
      }
    });
  });

  it('takes parameters from the query string, a form body and a JSON body', async () => {
    const { token, project } = await setUp();
    const url = `/api/v4/projects/${project.id}/notification_settings`;
    for (const [transport, level] of [
      ['query', 'watch'],
      ['form', 'mention'],
      ['json', 'disabled'],
    ] as const) {
      const response = await call('PUT', url, token, { level, new_issue: true }, transport);
      expect(response.statusCode, transport).toBe(200);
      expect(response.json()).toEqual({ level });
    }
    // A form body's value wins over the same parameter in the query string.
    const both = await service.app.inject({
      method: 'PUT',
      url: `${url}?level=watch`,
      headers: { 'private-token': token, 'content-type': 'application/x-www-form-urlencoded' },
      payload: 'level=participating',
    });
    expect(both.json()).toEqual({ level: 'participating' });
  });

  it('shows events only for custom, false where not given, and keeps them when leaving custom', async () => {
    const { token, group } = await setUp();
    const url = `/api/v3/groups/${group.id}/notification_settings`;
    const custom = await call('PUT', url, token, {
      level: 'custom',
      new_note: true,
      close_issue: 'yes',
    });
    expect(custom.json()).toEqual({
      level: 'custom',
      events: { ...ALL_FALSE, new_note: true, close_issue: true },
    });
    expect((await call('PUT', url, token, { level: 'watch' })).json()).toEqual({ level: 'watch' });
    // Events may change while hidden; they are stored, not shown.
    expect((await call('PUT', url, token, { merge_merge_request: true })).json()).toEqual({
      level: 'watch',
    });
    const back = await call('PUT', url, token, { level: 'custom' });
    expect(back.json()).toEqual({
      level: 'custom',
      events: { ...ALL_FALSE, new_note: true, close_issue: true, merge_merge_request: true },
    });
  });

  it('applies only what was sent: an event alone keeps the level, nothing keeps everything', async () => {
    const { token, project } = await setUp();
    const url = `/api/v4/projects/${project.id}/notification_settings`;
    await call('PUT', url, token, { level: 'custom', new_note: true });
    const eventOnly = await call('PUT', url, token, { new_issue: 'true' });
    expect(eventOnly.json()).toEqual({
      level: 'custom',
      events: { ...ALL_FALSE, new_note: true, new_issue: true },
    });
    const nothing = await call('PUT', url, token, {});
    expect(nothing.json()).toEqual(eventOnly.json());
    // Parameters it does not know are ignored, as GitLab's declared params are.
    const unknown = await call('PUT', url, token, { colour: 'blue', new_note: false });
    expect(unknown.json().events.new_note).toBe(false);
  });

  it('a first PUT on a group stores the row with level global, then applies what was sent', async () => {
    const { user, token, group } = await setUp();
    const url = `/api/v4/groups/${group.id}/notification_settings`;
    const response = await call('PUT', url, token, { new_note: true });
    expect(response.json()).toEqual({ level: 'global' });
    const rows = await rowsOf(user.id);
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ source_type: 'group', source_id: group.id, new_note: 1 });
  });

  it('global PUT changes the notification e-mail to an address the user owns', async () => {
    const { user, token } = await setUp();
    const users = new UserStore(
      service.db,
      new PasswordHasher(service.config.security.passwordHash),
    );
    await users.addEmail(user.id, `Second.${user.id}@Example.com`);
    const changed = await call('PUT', '/api/v3/notification_settings', token, {
      notification_email: `second.${user.id}@example.com`,
    });
    expect(changed.statusCode).toBe(200);
    // Matched in any letter case, kept as the user registered it; the level is untouched.
    expect(changed.json()).toEqual({
      level: 'participating',
      notification_email: `Second.${user.id}@Example.com`,
    });
    expect((await call('GET', '/api/v3/notification_settings', token)).json()).toEqual(
      changed.json(),
    );
    // An empty value goes back to the primary address, as GitLab resets a blank one.
    const reset = await call('PUT', '/api/v3/notification_settings', token, {
      notification_email: '',
    });
    expect(reset.json().notification_email).toBe(user.email);
  });

  describe('refusals change nothing', () => {
    async function withState() {
      const context = await setUp();
      const url = `/api/v4/projects/${context.project.id}/notification_settings`;
      await call('PUT', url, context.token, { level: 'custom', reopen_issue: true });
      await call('PUT', '/api/v4/notification_settings', context.token, { level: 'watch' });
      const snapshot = async () => ({
        project: (await call('GET', url, context.token)).json(),
        global: (await call('GET', '/api/v4/notification_settings', context.token)).json(),
        rows: await rowsOf(context.user.id),
      });
      return { ...context, url, before: await snapshot(), snapshot };
    }

    it("answers an unknown level with GitLab's words", async () => {
      const { token, url, before, snapshot } = await withState();
      const response = await call('PUT', url, token, { level: 'bogus', new_note: true });
      expect(response.statusCode).toBe(400);
      expect(response.json()).toEqual({ message: "'bogus' is not a valid level" });
      const global = await call('PUT', '/api/v3/notification_settings', token, { level: 'Watch' });
      expect(global.json()).toEqual({ message: "'Watch' is not a valid level" });
      expect(await snapshot()).toEqual(before);
    });

    it('answers an empty level as a blank attribute', async () => {
      const { token, url, before, snapshot } = await withState();
      const response = await call('PUT', url, token, { level: '' });
      expect(response.statusCode).toBe(400);
      expect(response.json()).toEqual({ message: { level: ["can't be blank"] } });
      expect(await snapshot()).toEqual(before);
    });

    it('answers a value that is not a boolean, naming every bad parameter', async () => {
      const { token, url, before, snapshot } = await withState();
      for (const transport of ['query', 'form', 'json'] as const) {
        const response = await call(
          'PUT',
          url,
          token,
          { level: 'watch', new_note: 'maybe', close_issue: '2' },
          transport,
        );
        expect(response.statusCode, transport).toBe(400);
        expect(response.json()).toEqual({
          message: '400 Bad request - new_note is invalid, close_issue is invalid',
        });
      }
      const nested = await service.app.inject({
        method: 'PUT',
        url,
        headers: { 'private-token': token },
        payload: { level: { value: 'watch' }, new_note: [true] },
      });
      expect(nested.statusCode).toBe(400);
      expect(nested.json().message).toMatch(/level is invalid/);
      expect(await snapshot()).toEqual(before);
    });

    it('answers a notification e-mail the user does not own, and keeps the level sent with it', async () => {
      const { token, before, snapshot } = await withState();
      const other = await createUser(service);
      for (const address of ['nobody@example.com', other.email, 'not an address']) {
        const response = await call('PUT', '/api/v3/notification_settings', token, {
          level: 'disabled',
          notification_email: address,
        });
        expect(response.statusCode).toBe(400);
        expect(response.json()).toEqual({
          message: { notification_email: ['is not an email you own'] },
        });
      }
      // GitLab 8.12 committed the level anyway; here the request changes nothing.
      expect(await snapshot()).toEqual(before);
    });

    it('answers a body that is not an object', async () => {
      const { token, url, before, snapshot } = await withState();
      const response = await service.app.inject({
        method: 'PUT',
        url,
        headers: { 'private-token': token, 'content-type': 'application/json' },
        payload: '["level", "watch"]',
      });
      expect(response.statusCode).toBe(400);
      expect(response.json().message).toMatch(/^400 Bad request/);
      const malformed = await service.app.inject({
        method: 'PUT',
        url,
        headers: { 'private-token': token, 'content-type': 'application/json' },
        payload: '{"level": ',
      });
      expect(malformed.statusCode).toBe(400);
      expect(await snapshot()).toEqual(before);
    });
  });

  describe('finding the group or project', () => {
    it('takes a numeric id or a URL-encoded full path with dots', async () => {
      const { token, group, project } = await setUp();
      await call('PUT', `/api/v4/projects/${project.id}/notification_settings`, token, {
        level: 'watch',
      });
      const byPath = await call(
        'GET',
        `/api/v4/projects/${encodeURIComponent(project.full_path)}/notification_settings`,
        token,
      );
      expect(byPath.json()).toEqual({ level: 'watch' });
      expect(project.full_path).toContain('.');
      const upper = await call(
        'GET',
        `/api/v4/projects/${encodeURIComponent(project.full_path.toUpperCase())}/notification_settings`,
        token,
      );
      expect(upper.json()).toEqual({ level: 'watch' });

      await call(
        'PUT',
        `/api/v3/groups/${encodeURIComponent(group.full_path)}/notification_settings`,
        token,
        {
          level: 'mention',
        },
      );
      expect(
        (await call('GET', `/api/v3/groups/${group.id}/notification_settings`, token)).json(),
      ).toEqual({ level: 'mention' });
    });

    it('lets the path segment win over a stray id query parameter', async () => {
      const { token, group, project } = await setUp();
      const decoy = await setUp();
      await call('PUT', `/api/v4/groups/${group.id}/notification_settings`, token, {
        level: 'watch',
      });
      const get = await call('GET', `/api/v4/groups/${group.id}/notification_settings`, token, {
        id: String(decoy.group.id),
      });
      expect(get.json()).toEqual({ level: 'watch' });
      const put = await call(
        'PUT',
        `/api/v4/projects/${project.id}/notification_settings?id=${decoy.project.id}`,
        token,
        { level: 'mention' },
      );
      expect(put.statusCode).toBe(200);
      expect(
        (await call('GET', `/api/v4/projects/${project.id}/notification_settings`, token)).json(),
      ).toEqual({ level: 'mention' });
    });

    it('tries a group path before an id', async () => {
      const { user, token, group } = await setUp();
      // A group whose path is the other group's id.
      const numeric = await createGroup(service, user.id, { path: String(group.id) });
      await call('PUT', `/api/v4/groups/${numeric.id}/notification_settings`, token, {
        level: 'disabled',
      });
      const response = await call('GET', `/api/v4/groups/${group.id}/notification_settings`, token);
      expect(response.json()).toEqual({ level: 'disabled' });
    });

    it("answers 404 in GitLab's words for missing and unreadable groups and projects, never 403", async () => {
      const { token } = await setUp();
      const stranger = await setUp();
      for (const method of ['GET', 'PUT'] as const) {
        for (const [url, message] of [
          ['/api/v4/groups/999999/notification_settings', '404 Group Not Found'],
          ['/api/v4/groups/no%2Fsuch/notification_settings', '404 Group Not Found'],
          [`/api/v4/groups/${stranger.group.id}/notification_settings`, '404 Group Not Found'],
          ['/api/v4/projects/999999/notification_settings', '404 Project Not Found'],
          [
            `/api/v4/projects/${encodeURIComponent(stranger.project.full_path)}/notification_settings`,
            '404 Project Not Found',
          ],
        ] as const) {
          const response = await call(
            method,
            url,
            token,
            method === 'PUT' ? { level: 'watch' } : {},
          );
          expect(response.statusCode, `${method} ${url}`).toBe(404);
          expect(response.json()).toEqual({ message });
        }
      }
      expect(await rowsOf(stranger.user.id)).toHaveLength(0);
    });

    it('reads public and internal groups and projects of others, and private ones through membership', async () => {
      const owner = await setUp();
      const { token } = await setUp();
      const internal = await createGroup(service, owner.user.id, { visibilityLevel: 10 });
      const publicProject = await createProject(
        service,
        owner.user.id,
        await personalNamespace(service, owner.user.id),
        { visibilityLevel: 20 },
      );
      expect(
        (await call('GET', `/api/v4/groups/${internal.id}/notification_settings`, token))
          .statusCode,
      ).toBe(200);
      expect(
        (
          await call('PUT', `/api/v4/projects/${publicProject.id}/notification_settings`, token, {
            level: 'watch',
          })
        ).json(),
      ).toEqual({ level: 'watch' });
    });
  });

  describe('authentication', () => {
    it('answers 401 without a valid token and 403 for a token without the api scope', async () => {
      const { user, group } = await setUp();
      for (const url of [
        '/api/v3/notification_settings',
        `/api/v3/groups/${group.id}/notification_settings`,
      ]) {
        const missing = await call('GET', url, undefined);
        expect(missing.statusCode).toBe(401);
        expect(missing.json()).toEqual({ message: '401 Unauthorized' });
        const wrong = await call('PUT', url, 'f'.repeat(20), { level: 'watch' });
        expect(wrong.statusCode).toBe(401);
      }
      const readUser = await apiToken(service, user.id, ['read_user']);
      const scoped = await call('GET', '/api/v4/notification_settings', readUser);
      expect(scoped.statusCode).toBe(403);
      expect(scoped.json().error).toBe('insufficient_scope');
      expect(await rowsOf(user.id)).toHaveLength(0);
    });
  });

  it('ends concurrent first writes on one source in one row', async () => {
    const { user, token, project } = await setUp();
    const url = `/api/v4/projects/${project.id}/notification_settings`;
    const answers = await Promise.all(
      ['watch', 'mention', 'disabled', 'custom', 'participating', 'global'].map((level) =>
        call('PUT', url, token, { level }),
      ),
    );
    expect(answers.map((answer) => answer.statusCode)).toEqual([200, 200, 200, 200, 200, 200]);
    const globalAnswers = await Promise.all(
      [1, 2, 3, 4].map(() => call('GET', '/api/v4/notification_settings', token)),
    );
    expect(new Set(globalAnswers.map((answer) => answer.statusCode))).toEqual(new Set([200]));
    const rows = await rowsOf(user.id);
    expect(rows.filter((row) => row.source_type === 'project')).toHaveLength(1);
    expect(rows.filter((row) => row.source_type === 'global')).toHaveLength(1);
  });
});
