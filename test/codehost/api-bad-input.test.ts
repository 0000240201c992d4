import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DATABASE_KINDS } from '../harness.js';
import {
  apiToken,
  type Codehost,
  createGroup,
  createProject,
  createUser,
  startCodehost,
  WebClient,
} from './helpers.js';

/**
 * Malformed, oversized, wrong-typed and unknown input on the groups, projects,
 * members and notification settings routes, and on the notifications page:
 * each gets its 4xx in GitLab's shape (or an HTML page), and nothing stored changes.
 */
describe.each(DATABASE_KINDS)('bad input on the API and notifications page on %s', (kind) => {
  let service: Codehost;
  let token: string;
  let groupId: number;
  let projectId: number;
  let password: string;
  let username: string;
  beforeAll(async () => {
    service = await startCodehost(kind, { env: { HTTP_BODY_LIMIT: '4096' } });
    const user = await createUser(service);
    username = user.username;
    password = user.password;
    token = await apiToken(service, user.id);
    const group = await createGroup(service, user.id);
    groupId = group.id;
    projectId = (await createProject(service, user.id, group)).id;
  });
  afterAll(async () => service?.close());

  const snapshot = async () => {
    const counts: Record<string, number> = {};
    for (const table of ['namespaces', 'projects', 'members', 'notification_settings'] as const) {
      const row = await service.db
        .selectFrom(table)
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .executeTakeFirstOrThrow();
      counts[table] = Number(row.n);
    }
    const settings = await service.db.selectFrom('notification_settings').selectAll().execute();
    return { counts, settings };
  };

  const routes = () =>
    [
      ['PUT', '/api/v4/notification_settings'],
      ['PUT', `/api/v3/groups/${groupId}/notification_settings`],
      ['PUT', `/api/v4/projects/${projectId}/notification_settings`],
      ['POST', '/api/v4/groups'],
      ['POST', '/api/v3/projects'],
      ['POST', `/api/v4/groups/${groupId}/members`],
      ['POST', `/api/v4/projects/${projectId}/members`],
    ] as const;

  it('answers oversized, malformed, non-object and unsupported bodies with 4xx and changes nothing', async () => {
    const before = await snapshot();
    for (const [method, url] of routes()) {
      const send = (payload: string, contentType: string) =>
        service.app.inject({
          method,
          url,
          headers: { 'private-token': token, 'content-type': contentType },
          payload,
        });
      const oversized = await send(JSON.stringify({ level: 'x'.repeat(5000) }), 'application/json');
      expect(oversized.statusCode, `${method} ${url}`).toBe(413);
      expect(oversized.json()).toEqual({ message: '413 Request Entity Too Large' });
      const malformed = await send('{"level": ', 'application/json');
      expect(malformed.statusCode).toBe(400);
      expect(malformed.json().message).toMatch(/^400 Bad request/);
      const list = await send('[1, 2]', 'application/json');
      expect(list.statusCode).toBe(400);
      const text = await send('level=watch', 'text/plain');
      expect(text.statusCode).toBe(415);
      expect(text.json()).toEqual({ message: '415 Unsupported Media Type' });
    }
    expect(await snapshot()).toEqual(before);
  });

  it('answers wrong-typed values and nested objects with 400 naming the parameter', async () => {
    const before = await snapshot();
    const cases: [string, string, Record<string, unknown>, string][] = [
      [
        'PUT',
        '/api/v4/notification_settings',
        { notification_email: { a: 1 } },
        'notification_email is invalid',
      ],
      ['PUT', '/api/v4/notification_settings', { new_note: { yes: true } }, 'new_note is invalid'],
      ['POST', '/api/v4/groups', { name: ['a', 'b'], path: 'p' }, 'name is invalid'],
      [
        'POST',
        '/api/v4/groups',
        { name: 'n', path: 'p', parent_id: 'first' },
        'parent_id is invalid',
      ],
      [
        'POST',
        '/api/v4/groups',
        { name: 'n', path: 'p', visibility_level: 5 },
        'visibility_level does not have a valid value',
      ],
      ['POST', '/api/v4/projects', { name: 'n', namespace_id: 1.5 }, 'namespace_id is invalid'],
      ['POST', '/api/v4/projects', { name: 'n', public: 'sometimes' }, 'public is invalid'],
      [
        'POST',
        `/api/v4/groups/${groupId}/members`,
        { user_id: 'me', access_level: 30 },
        'user_id is invalid',
      ],
      ['GET', '/api/v4/groups?page=0', {}, 'page does not have a valid value'],
      ['GET', '/api/v4/projects?per_page=many', {}, 'per_page is invalid'],
      ['GET', '/api/v4/groups?sort=sideways', {}, 'sort does not have a valid value'],
      ['GET', '/api/v4/projects?search=%00', {}, 'search is invalid'],
      ['POST', '/api/v4/groups', { name: 'a\u0000b', path: 'nul' }, 'name is invalid'],
      ['PUT', '/api/v4/notification_settings', { level: 'watch\u0000' }, 'level is invalid'],
    ];
    for (const [method, url, payload, detail] of cases) {
      const response = await service.app.inject({
        method: method as 'GET',
        url,
        headers: { 'private-token': token },
        ...(method === 'GET' ? {} : { payload }),
      });
      expect(response.statusCode, `${method} ${url} ${JSON.stringify(payload)}`).toBe(400);
      expect(response.json()).toEqual({ message: `400 Bad request - ${detail}` });
    }
    expect(await snapshot()).toEqual(before);
  });

  it('answers unknown and overlong ids with 404 or 400, and unknown routes with 404', async () => {
    for (const url of [
      '/api/v4/groups/0/notification_settings',
      '/api/v4/groups/-1/notification_settings',
      '/api/v4/projects/99999999999999999999/notification_settings',
      '/api/v4/projects/%00/notification_settings',
      '/api/v4/groups/a%2F..%2Fb',
    ]) {
      const response = await service.app.inject({ url, headers: { 'private-token': token } });
      expect(response.statusCode, url).toBe(404);
      expect(response.json().message).toMatch(/^404 (Group|Project) Not Found$/);
    }
    const overlong = await service.app.inject({
      url: `/api/v4/groups/${'a'.repeat(1400)}/notification_settings`,
      headers: { 'private-token': token },
    });
    expect(overlong.statusCode).toBe(400);
    const unknown = await service.app.inject({
      url: '/api/v4/groups/1/notification_settings/extra',
      headers: { 'private-token': token },
    });
    expect(unknown.statusCode).toBe(404);
    const method = await service.app.inject({
      method: 'DELETE',
      url: '/api/v4/notification_settings',
      headers: { 'private-token': token },
    });
    expect(method.statusCode).toBe(405);
  });

  describe('notifications page', () => {
    it('needs a session, the form token, a known level and an owned address', async () => {
      const before = await snapshot();
      const anonymous = await service.app.inject({ url: '/profile/notifications' });
      expect(anonymous.statusCode).toBe(302);
      expect(anonymous.headers.location).toBe('/users/sign_in');

      const browser = new WebClient(service);
      // PostgreSQL cannot hold NUL: a login containing one is refused, never a 500.
      const nul = await browser.signIn(`${username}\u0000`, password);
      expect([400, 422]).toContain(nul.statusCode);
      await browser.signIn(username, password);
      await browser.get('/profile/notifications');
      const noToken = await browser.post(`/profile/notifications/projects/${projectId}`, {
        authenticity_token: '',
        level: 'watch',
      });
      expect(noToken.statusCode).toBe(422);
      const badLevel = await browser.post(`/profile/notifications/projects/${projectId}`, {
        level: 'loud',
      });
      expect(badLevel.statusCode).toBe(422);
      expect(badLevel.headers['content-type']).toMatch(/^text\/html/);
      const globalAsGlobal = await browser.post('/profile/notifications', {
        level: 'global',
        notification_email: 'x@example.com',
      });
      expect(globalAsGlobal.statusCode).toBe(422);
      const notOwned = await browser.post('/profile/notifications', {
        level: 'watch',
        notification_email: 'someone-else@example.com',
      });
      expect(notOwned.statusCode).toBe(422);
      const unknownProject = await browser.post('/profile/notifications/projects/99999999', {
        level: 'watch',
      });
      expect(unknownProject.statusCode).toBe(404);
      const badId = await browser.post('/profile/notifications/groups/abc', { level: 'watch' });
      expect(badId.statusCode).toBe(404);
      expect(badId.body).toContain('There is no page at this address.');
      // Only the global row the page itself shows by reading may have appeared.
      const after = await snapshot();
      expect(after.settings.filter((row) => row.source_type !== 'global')).toEqual(
        before.settings.filter((row) => row.source_type !== 'global'),
      );

      const saved = await browser.post(`/profile/notifications/groups/${groupId}`, {
        level: 'mention',
      });
      expect(saved.statusCode).toBe(303);
      expect(saved.headers.location).toBe('/profile/notifications?saved=1');
    });
  });
});
