import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { currentCode } from '../../src/codehost/accounts/two-factor.js';
import { MemberStore } from '../../src/codehost/namespaces/members.js';
import { DATABASE_KINDS } from '../harness.js';
import {
  type Codehost,
  copyableValue,
  createGroup,
  createProject,
  createUser,
  personalNamespace,
  startCodehost,
  WebClient,
} from './helpers.js';

/** The API's view of the user a personal access token belongs to. */
async function apiUser(service: Codehost, client: WebClient) {
  await client.get('/profile/personal_access_tokens');
  const created = await client.submit('/profile/personal_access_tokens', {
    name: 'reader',
    scopes: 'read_user',
  });
  const token = copyableValue(created.body, 'created-personal-access-token') ?? '';
  const response = await service.app.inject({
    url: '/api/v3/user',
    headers: { 'private-token': token },
  });
  return response.json() as Record<string, unknown>;
}

async function userRow(service: Codehost, id: number) {
  return service.db.selectFrom('users').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
}

describe.each(DATABASE_KINDS)('on %s', (kind) => {
  let service: Codehost;
  beforeAll(async () => {
    service = await startCodehost(kind);
  });
  afterAll(async () => {
    await service?.close();
  });

  describe('profile', () => {
    it('saves the profile fields, which /api/v3/user then returns', async () => {
      const user = await createUser(service);
      const client = new WebClient(service);
      await client.signIn(user.username, user.password);
      await client.get('/profile/emails');
      await client.post('/profile/emails', { email: `public-${user.id}@example.org` });
      await client.get('/profile');
      const saved = await client.post('/profile', {
        name: '  Ada Lovelace ',
        public_email: `public-${user.id}@example.org`,
        website_url: 'https://ada.example/',
        location: 'London',
        bio: 'Notes on the <Analytical> Engine',
        skype: 'ada',
        linkedin: 'ada-l',
        twitter: '@ada',
      });
      expect(saved.statusCode).toBe(303);
      expect(saved.headers.location).toBe('/profile?saved=1');
      const page = await client.get('/profile?saved=1');
      expect(page.body).toContain('Profile was successfully updated.');
      expect(page.body).toContain('Notes on the &lt;Analytical&gt; Engine');

      const api = await apiUser(service, client);
      expect(api).toMatchObject({
        name: 'Ada Lovelace',
        public_email: `public-${user.id}@example.org`,
        website_url: 'https://ada.example/',
        location: 'London',
        bio: 'Notes on the <Analytical> Engine',
        skype: 'ada',
        linkedin: 'ada-l',
        twitter: '@ada',
      });
      // web_url leads to a page that shows the public profile.
      const publicPage = await new WebClient(service).get(new URL(String(api.web_url)).pathname);
      expect(publicPage.statusCode).toBe(200);
      expect(publicPage.body).toContain('Ada Lovelace');
      expect(publicPage.body).toContain(`mailto:public-${user.id}@example.org`);
      expect(publicPage.body).toContain('href="https://ada.example/"');
    });

    it('refuses bad values field by field, keeps what was typed, and stores nothing', async () => {
      const user = await createUser(service);
      const stranger = await createUser(service);
      const client = new WebClient(service);
      await client.signIn(user.username, user.password);
      await client.get('/profile');
      const before = await userRow(service, user.id);
      const refused = await client.post('/profile', {
        name: '',
        public_email: stranger.email,
        website_url: 'javascript:alert(1)',
        location: 'Typed <place>',
        bio: 'x'.repeat(256),
      });
      expect(refused.statusCode).toBe(422);
      expect(refused.body).toContain('4 fields need attention');
      expect(refused.body).toContain('id="name-error"');
      expect(refused.body).toContain('id="website_url-error"');
      expect(refused.body).toContain('id="bio-error"');
      expect(refused.body).toContain('id="public_email-error"');
      expect(refused.body).toContain('value="Typed &lt;place&gt;"');
      expect(refused.body).toContain('aria-invalid="true"');
      expect(await userRow(service, user.id)).toEqual(before);
      // A name holds no control character, a line break least of all.
      const twoLines = await client.post('/profile', { name: 'Mallory\r\nBcc: everyone' });
      expect(twoLines.statusCode).toBe(422);
      expect(twoLines.body).toContain('id="name-error"');
      expect(twoLines.body).toContain('control characters');
      expect(await userRow(service, user.id)).toEqual(before);

      // Without the form token nothing changes either.
      const forged = await client.post('/profile', {
        authenticity_token: 'f'.repeat(64),
        name: 'Forged',
      });
      expect(forged.statusCode).toBe(422);
      expect((await userRow(service, user.id)).name).toBe(before.name);
    });
  });

  describe('e-mail addresses', () => {
    it('adds and removes secondary addresses, and guards the ones in use', async () => {
      const user = await createUser(service);
      const other = await createUser(service);
      const client = new WebClient(service);
      await client.signIn(user.username, user.password);
      await client.get('/profile/emails');

      const invalid = await client.post('/profile/emails', { email: 'not an address' });
      expect(invalid.statusCode).toBe(422);
      expect(invalid.body).toContain('value="not an address"');
      const taken = await client.post('/profile/emails', { email: other.email.toUpperCase() });
      expect(taken.statusCode).toBe(422);
      expect(taken.body).toContain('already in use');

      const second = `second-${user.id}@example.org`;
      expect((await client.post('/profile/emails', { email: second })).statusCode).toBe(303);
      const listed = await client.get('/profile/emails');
      expect(listed.body).toContain(second);
      const id = /action="\/profile\/emails\/(\d+)\/delete"/.exec(listed.body)?.[1];
      expect(id).toBeDefined();

      // The address notifications go to cannot be removed.
      await client.get('/profile/notifications');
      await client.post('/profile/notifications', {
        notification_email: second,
        level: 'watch',
      });
      await client.get('/profile/emails');
      const inUse = await client.post(`/profile/emails/${id}/delete`, {});
      expect(inUse.statusCode).toBe(422);
      expect(inUse.body).toContain('receives your notifications');

      // Once notifications go elsewhere it can, and the public address it was is cleared.
      await client.get('/profile/notifications');
      await client.post('/profile/notifications', {
        notification_email: user.email,
        level: 'watch',
      });
      await client.get('/profile');
      await client.post('/profile', { name: user.name, public_email: second });
      expect((await userRow(service, user.id)).public_email).toBe(second);
      await client.get('/profile/emails');
      expect((await client.post(`/profile/emails/${id}/delete`, {})).statusCode).toBe(303);
      expect((await userRow(service, user.id)).public_email).toBeNull();
      expect((await client.get('/profile/emails')).body).not.toContain(second);

      // Someone else's address, or one already gone, is not found.
      const again = await client.post(`/profile/emails/${id}/delete`, {});
      expect(again.statusCode).toBe(404);
      expect(again.headers['content-type']).toMatch(/^text\/html/);
    });
  });

  describe('active sessions', () => {
    it('lists each signed-in browser and ends one or all others', async () => {
      const user = await createUser(service);
      const here = new WebClient(service);
      const phone = new WebClient(service);
      const laptop = new WebClient(service);
      await here.signIn(user.username, user.password);
      await phone.signIn(user.username, user.password);
      await laptop.signIn(user.username, user.password);

      const page = await here.get('/profile/active_sessions');
      expect(page.statusCode).toBe(200);
      expect(page.body).toContain('This browser');
      const hashes = [...page.body.matchAll(/name="session" value="([0-9a-f]{64})"/g)].map(
        (match) => match[1] as string,
      );
      expect(hashes).toHaveLength(2);

      // A forged or foreign session cannot be ended; this browser's own ends by signing out.
      expect(
        (await here.post('/profile/active_sessions/revoke', { session: 'a'.repeat(64) }))
          .statusCode,
      ).toBe(404);
      expect(
        (await here.post('/profile/active_sessions/revoke', { session: 'not-a-hash' })).statusCode,
      ).toBe(404);

      await here.get('/profile/active_sessions');
      const ended = await here.post('/profile/active_sessions/revoke', {
        session: hashes[0] as string,
      });
      expect(ended.statusCode).toBe(303);
      const stillSignedIn = [
        (await phone.get('/profile')).statusCode,
        (await laptop.get('/profile')).statusCode,
      ].sort();
      expect(stillSignedIn).toEqual([200, 302]);

      await here.get('/profile/active_sessions');
      const others = await here.post('/profile/active_sessions/revoke_others', {});
      expect(others.headers.location).toBe('/profile/active_sessions?done=others');
      expect((await phone.get('/profile')).statusCode).toBe(302);
      expect((await laptop.get('/profile')).statusCode).toBe(302);
      expect((await here.get('/profile')).statusCode).toBe(200);
      expect((await here.get('/profile/active_sessions')).body).toContain(
        'This is your only session.',
      );
    });
  });

  describe('two-factor recovery codes', () => {
    it('are made anew with the password; the old ones stop working', async () => {
      const user = await createUser(service);
      const client = new WebClient(service);
      await client.signIn(user.username, user.password);
      const setup = await client.get('/profile/two_factor_auth');
      const secret = copyableValue(setup.body, 'otp-secret') ?? '';
      expect(setup.body).toMatch(/id="otp-secret"[^>]*>([A-Z2-7]{4} ){7}[A-Z2-7]{4}</);
      const enabled = await client.post('/profile/two_factor_auth', {
        current_password: user.password,
        pin_code: currentCode(secret),
      });
      const oldCodes = [...enabled.body.matchAll(/<li><code>([0-9a-f]{16})<\/code>/g)].map(
        (match) => match[1] as string,
      );
      expect(oldCodes).toHaveLength(10);
      const file = /id="download-codes" href="data:text\/plain;charset=utf-8,([^"]+)"/.exec(
        enabled.body,
      )?.[1];
      expect(decodeURIComponent(file ?? '')).toBe(`${oldCodes.join('\n')}\n`);

      await client.get('/profile/two_factor_auth');
      const wrong = await client.post('/profile/two_factor_auth/codes', {
        current_password: 'not the password',
      });
      expect(wrong.statusCode).toBe(422);
      const regenerated = await client.post('/profile/two_factor_auth/codes', {
        current_password: user.password,
      });
      expect(regenerated.statusCode).toBe(200);
      const newCodes = [...regenerated.body.matchAll(/<li><code>([0-9a-f]{16})<\/code>/g)].map(
        (match) => match[1] as string,
      );
      expect(newCodes).toHaveLength(10);
      expect(newCodes.some((code) => oldCodes.includes(code))).toBe(false);

      const signIn = async (code: string) => {
        const browser = new WebClient(service);
        await browser.signIn(user.username, user.password);
        return browser.post('/users/sign_in/two_factor', { otp_attempt: code });
      };
      expect((await signIn(oldCodes[0] as string)).statusCode).toBe(422);
      expect((await signIn(newCodes[0] as string)).statusCode).toBe(302);
    });
  });

  describe('custom notification events', () => {
    it('are chosen on a page of their own and read back through the API', async () => {
      const user = await createUser(service);
      const group = await createGroup(service, user.id, { name: 'Platform team' });
      const project = await createProject(service, user.id, group, { path: 'engine' });
      const client = new WebClient(service);
      await client.signIn(user.username, user.password);
      const list = await client.get('/profile/notifications');
      expect(list.body).toContain(
        `<a href="/${group.full_path}/engine">Platform team / engine</a>`,
      );
      expect(list.body).toContain(`for="project-${project.id}-level"`);

      const chosen = await client.post(`/profile/notifications/projects/${project.id}`, {
        level: 'custom',
      });
      expect(chosen.headers.location).toBe(`/profile/notifications/projects/${project.id}/custom`);
      const eventsPage = await client.get(`/profile/notifications/projects/${project.id}/custom`);
      expect(eventsPage.body.match(/type="checkbox" name="events"/g)).toHaveLength(10);
      const unknown = await client.post(`/profile/notifications/projects/${project.id}/custom`, {
        events: ['new_issue', 'drop_tables'],
      });
      expect(unknown.statusCode).toBe(400);
      await client.get(`/profile/notifications/projects/${project.id}/custom`);
      const saved = await client.post(`/profile/notifications/projects/${project.id}/custom`, {
        events: ['new_issue', 'merge_merge_request'],
      });
      expect(saved.statusCode).toBe(303);

      const token = copyableValue(
        (await client.submit('/profile/personal_access_tokens', { name: 'api', scopes: 'api' }))
          .body,
        'created-personal-access-token',
      );
      const api = await service.app.inject({
        url: `/api/v3/projects/${project.id}/notification_settings`,
        headers: { 'private-token': token ?? '' },
      });
      expect(api.json()).toMatchObject({
        level: 'custom',
        events: { new_issue: true, merge_merge_request: true, new_note: false },
      });

      // A project the user cannot see has no events page.
      const stranger = await createUser(service);
      const hidden = await createProject(
        service,
        stranger.id,
        await personalNamespace(service, stranger.id),
      );
      expect(
        (await client.get(`/profile/notifications/projects/${hidden.id}/custom`)).statusCode,
      ).toBe(404);
    });
  });

  describe('confirmations', () => {
    it('ask on a page of their own before destroying, revoking or renewing', async () => {
      const user = await createUser(service);
      const client = new WebClient(service);
      await client.signIn(user.username, user.password);
      await client.get('/profile/applications');
      const created = await client.submit('/profile/applications', {
        name: 'Dashboard',
        redirect_uri: 'https://dash.example/cb',
        scopes: 'api',
      });
      const uid = copyableValue(created.body, 'application-id');
      const row = await service.db
        .selectFrom('oauth_applications')
        .select('id')
        .where('uid', '=', uid ?? '')
        .executeTakeFirstOrThrow();
      const list = await client.get('/profile/applications');
      expect(list.body).toContain(`href="/profile/applications/${row.id}/delete"`);
      const confirm = await client.get(`/profile/applications/${row.id}/delete`);
      expect(confirm.statusCode).toBe(200);
      expect(confirm.body).toContain('Destroy Dashboard?');
      expect(confirm.body).toContain(`action="/profile/applications/${row.id}/delete"`);
      // Asking is not doing.
      expect(
        await service.db
          .selectFrom('oauth_applications')
          .select('id')
          .where('id', '=', row.id)
          .executeTakeFirst(),
      ).toBeDefined();
      expect((await client.get(`/profile/applications/${row.id}/renew_secret`)).body).toContain(
        'Renew the secret of Dashboard?',
      );

      const other = new WebClient(service);
      const stranger = await createUser(service);
      await other.signIn(stranger.username, stranger.password);
      const foreign = await other.get(`/profile/applications/${row.id}/delete`);
      expect(foreign.statusCode).toBe(404);
      expect(foreign.headers['content-type']).toMatch(/^text\/html/);
    });

    it('keeps what was typed in a refused token form', async () => {
      const user = await createUser(service);
      const client = new WebClient(service);
      await client.signIn(user.username, user.password);
      await client.get('/profile/personal_access_tokens');
      const refused = await client.post('/profile/personal_access_tokens', {
        name: 'deploy <bot>',
        expires_at: '2001-01-01',
        scopes: ['read_user'],
      });
      expect(refused.statusCode).toBe(422);
      expect(refused.body).toContain('value="deploy &lt;bot&gt;"');
      expect(refused.body).toContain('value="2001-01-01"');
      expect(refused.body).toMatch(/value="read_user" checked/);
      expect(refused.body).not.toMatch(/value="api" checked/);
    });
  });

  describe('pages web_url points at', () => {
    it('shows users, groups and projects to those who may see them, and 404 pages otherwise', async () => {
      const owner = await createUser(service);
      const member = await createUser(service);
      const publicGroup = await createGroup(service, owner.id, {
        name: 'Open Source',
        visibilityLevel: 20,
      });
      const nested = await createGroup(service, owner.id, {
        parent: publicGroup,
        path: 'tools',
        visibilityLevel: 20,
      });
      const secret = await createProject(service, owner.id, nested, {
        path: 'secret-plan',
        visibilityLevel: 0,
      });
      const open = await createProject(service, owner.id, nested, {
        path: 'open-plan',
        visibilityLevel: 20,
      });
      await new MemberStore(service.db).add('project', secret.id, member.id, 30);

      const anonymous = new WebClient(service);
      const groupPage = await anonymous.get(`/groups/${publicGroup.full_path}`);
      expect(groupPage.statusCode).toBe(200);
      expect(groupPage.body).toContain(`href="/groups/${nested.full_path}"`);
      expect(groupPage.body).toContain(`href="/${owner.username}"`);
      expect(groupPage.body).toContain('Owner');
      expect((await anonymous.get(`/${publicGroup.full_path}`)).headers.location).toBe(
        `/groups/${publicGroup.full_path}`,
      );
      expect((await anonymous.get(`/${open.full_path}`)).statusCode).toBe(200);
      const hidden = await anonymous.get(`/${secret.full_path}`);
      expect(hidden.statusCode).toBe(404);
      expect(hidden.headers['content-type']).toMatch(/^text\/html/);
      expect(hidden.body).toContain('Page not found');

      const signedIn = new WebClient(service);
      await signedIn.signIn(member.username, member.password);
      const projectPage = await signedIn.get(`/${secret.full_path}`);
      expect(projectPage.statusCode).toBe(200);
      expect(projectPage.body).toContain(`href="/${member.username}"`);
      expect(projectPage.body).toContain('Developer');
      expect(projectPage.body).toContain(`href="/groups/${nested.full_path}"`);
    });

    it('answers unknown addresses with a page, and the API and OAuth with JSON', async () => {
      const client = new WebClient(service);
      for (const path of ['/nobody-here', '/no/such/project', '/profile/nothing']) {
        const response = await client.get(path);
        expect(response.statusCode, path).toBe(404);
        expect(response.headers['content-type'], path).toMatch(/^text\/html/);
        expect(response.body, path).toContain('<a href="/">Go to the home page</a>');
      }
      const api = await client.get('/api/v4/no/such/thing');
      expect(api.statusCode).toBe(404);
      expect(api.json()).toEqual({ message: '404 Not Found' });
      const wrongMethod = await client.get('/oauth/token');
      expect(wrongMethod.statusCode).toBe(405);
      expect(wrongMethod.headers.allow).toBe('POST');
      expect(wrongMethod.headers['content-type']).toMatch(/^application\/json/);
      const postToProjectPath = await service.app.inject({ method: 'POST', url: '/a/b' });
      expect(postToProjectPath.statusCode).toBe(404);
    });
  });

  describe('what trying the pages by hand found', () => {
    it('refuses addresses with invisible or control characters, and control characters in any form', async () => {
      const user = await createUser(service);
      const client = new WebClient(service);
      await client.signIn(user.username, user.password);
      await client.get('/profile/emails');
      for (const email of ['ali\u200bce@example.com', '<script>@x.com', 'a b@example.com']) {
        const refused = await client.post('/profile/emails', { email });
        expect(refused.statusCode, email).toBe(422);
      }
      const withNul = await client.post('/profile/emails', { email: 'ali\u0000ce@example.com' });
      expect(withNul.statusCode).toBe(400);
      expect(withNul.body).toContain('control character');
      await client.get('/profile/applications');
      const application = await client.post('/profile/applications', {
        name: 'Na\u0000me',
        redirect_uri: 'https://x.example/cb',
        scopes: 'api',
      });
      expect(application.statusCode).toBe(400);
      expect(
        await service.db
          .selectFrom('emails')
          .select('email')
          .where('user_id', '=', user.id)
          .execute(),
      ).toHaveLength(1);
      expect(
        await service.db
          .selectFrom('oauth_applications')
          .select('id')
          .where('owner_id', '=', user.id)
          .execute(),
      ).toEqual([]);
    });

    it('shows a new secret after a redirect, once, so a reload creates nothing', async () => {
      const user = await createUser(service);
      const client = new WebClient(service);
      await client.signIn(user.username, user.password);
      await client.get('/profile/applications');
      const created = await client.post('/profile/applications', {
        name: 'Reloaded',
        redirect_uri: 'https://reload.example/cb',
        scopes: 'api',
      });
      expect(created.statusCode).toBe(303);
      const location = String(created.headers.location);
      const first = await client.get(location);
      const secret = copyableValue(first.body, 'application-secret');
      expect(secret).toMatch(/^[0-9a-f]{64}$/);
      // The session row holds the secret only sealed, never readable.
      const rows = await service.db.selectFrom('sessions').select('data').execute();
      expect(rows.some((row) => row.data.includes(secret ?? '-'))).toBe(false);
      const reloaded = await client.get(location);
      expect(copyableValue(reloaded.body, 'application-secret')).toBeUndefined();
      expect(reloaded.body).not.toContain(secret);
      // Another browser of the same user cannot read it either.
      const other = new WebClient(service);
      await other.signIn(user.username, user.password);
      await client.get('/profile/applications');
      const again = await client.post(`${location}/renew_secret`, {});
      expect(again.statusCode).toBe(303);
      expect(copyableValue((await other.get(location)).body, 'application-secret')).toBeUndefined();
      expect(copyableValue((await client.get(location)).body, 'application-secret')).toMatch(
        /^[0-9a-f]{64}$/,
      );
    });

    it('leaves the level as it was until the custom events are saved', async () => {
      const user = await createUser(service);
      const project = await createProject(
        service,
        user.id,
        await personalNamespace(service, user.id),
      );
      const client = new WebClient(service);
      await client.signIn(user.username, user.password);
      await client.get('/profile/notifications');
      await client.post(`/profile/notifications/projects/${project.id}`, { level: 'watch' });
      await client.get('/profile/notifications');
      const chosen = await client.post(`/profile/notifications/projects/${project.id}`, {
        level: 'custom',
      });
      expect(chosen.headers.location).toBe(`/profile/notifications/projects/${project.id}/custom`);
      const list = await client.get('/profile/notifications');
      expect(list.body).toMatch(
        new RegExp(`id="project-${project.id}-level"[\\s\\S]*?<option value="watch" selected>`),
      );
      await client.get('/profile/notifications');
      const global = await client.post('/profile/notifications', {
        notification_email: user.email,
        level: 'custom',
      });
      expect(global.headers.location).toBe('/profile/notifications/custom');
      const setting = await service.db
        .selectFrom('notification_settings')
        .select('level')
        .where('user_id', '=', user.id)
        .where('source_type', '=', 'global')
        .executeTakeFirstOrThrow();
      expect(setting.level).not.toBe(5);
    });

    it('says what an action did after its redirect, in fixed words only', async () => {
      const user = await createUser(service);
      const client = new WebClient(service);
      await client.signIn(user.username, user.password);
      await client.get('/profile/applications');
      const created = await client.post('/profile/applications', {
        name: 'Short-lived',
        redirect_uri: 'https://short.example/cb',
        scopes: 'api',
      });
      const id = /\/profile\/applications\/(\d+)/.exec(String(created.headers.location))?.[1];
      const destroyed = await client.submit(`/profile/applications/${id}/delete`, {});
      expect(destroyed.body).toContain('The application was destroyed.');
      const crafted = await client.get('/profile/applications?done=Your+account+is+closed');
      expect(crafted.body).not.toContain('Your account is closed');
      const signedOut = await client.submit('/users/sign_out', {});
      expect(signedOut.body).toContain('You have been signed out.');
    });
  });
});
