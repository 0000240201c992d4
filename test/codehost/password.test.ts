import { describe, expect, it } from 'vitest';
import { PasswordHasher } from '../../src/codehost/accounts/passwords.js';
import { UserStore } from '../../src/codehost/accounts/users.js';
import { DATABASE_KINDS } from '../harness.js';
import { codehostForTests, createApplication, createUser, WebClient } from './helpers.js';

describe.each(DATABASE_KINDS)('changing a password on %s', (kind) => {
  const service = codehostForTests(kind);

  /** A signed-in browser on the password form (which carries the form token). */
  async function signedIn() {
    const user = await createUser(service);
    const browser = new WebClient(service);
    await browser.signIn(user.username, user.password);
    await browser.get('/profile/password/edit');
    return { user, browser };
  }

  const signsIn = async (login: string, password: string) =>
    (await new WebClient(service).signIn(login, password)).headers.location === '/profile';

  it('asks signed-out visitors to sign in', async () => {
    const answer = await new WebClient(service).get('/profile/password/edit');
    expect(answer.headers.location).toBe('/users/sign_in');
  });

  it('changes the password with the current one and ends the other sessions only', async () => {
    const { user, browser } = await signedIn();
    const elsewhere = new WebClient(service);
    await elsewhere.signIn(user.username, user.password);
    const form = await browser.get('/profile/password/edit');
    expect(form.statusCode).toBe(200);
    expect(form.body).toContain('8 to 128 characters');
    const changed = await browser.post('/profile/password', {
      current_password: user.password,
      new_password: 'a much better password',
      password_confirmation: 'a much better password',
    });
    expect(changed.statusCode).toBe(200);
    expect(changed.body).toContain('Your password was changed');
    expect(await signsIn(user.username, user.password)).toBe(false);
    expect(await signsIn(user.username, 'a much better password')).toBe(true);
    // This browser stays signed in; the other session is over.
    expect((await browser.get('/profile')).statusCode).toBe(200);
    expect((await elsewhere.get('/profile')).headers.location).toBe('/users/sign_in');
  });

  it('goes on to the profile after a change someone else required, when it interrupted nothing', async () => {
    const user = await createUser(service);
    await service.db
      .updateTable('users')
      .set({ password_change_required: 1 })
      .where('id', '=', user.id)
      .execute();
    const browser = new WebClient(service);
    expect((await browser.signIn(user.username, user.password)).headers.location).toBe(
      '/profile/password/edit',
    );
    await browser.get('/profile/password/edit');
    const changed = await browser.post('/profile/password', {
      current_password: user.password,
      new_password: 'a chosen passphrase',
      password_confirmation: 'a chosen passphrase',
    });
    expect(changed.statusCode).toBe(303);
    expect(changed.headers.location).toBe('/profile?done=password_changed');
    const profile = await browser.get('/profile?done=password_changed');
    expect(profile.statusCode).toBe(200);
    expect(profile.body).toContain('Your password was changed.');
  });

  it.each([
    [{ current_password: 'wrong password' }, 'The current password is not correct.'],
    [{ new_password: 'short', password_confirmation: 'short' }, 'is too short'],
    [{ new_password: 'x'.repeat(129), password_confirmation: 'x'.repeat(129) }, 'is too long'],
    [{ password_confirmation: 'something else entirely' }, 'does not match'],
    [{ current_password: '' }, 'The current password is not correct.'],
  ])('refuses %o and changes nothing', async (fields, message) => {
    const { user, browser } = await signedIn();
    const answer = await browser.post('/profile/password', {
      current_password: user.password,
      new_password: 'a much better password',
      password_confirmation: 'a much better password',
      ...fields,
    });
    expect(answer.statusCode).toBe(422);
    expect(answer.body).toContain(message);
    // Nothing typed into a password field comes back in the page.
    expect(answer.body).not.toContain('a much better password');
    expect(await signsIn(user.username, user.password)).toBe(true);
  });

  it('refuses a form without its CSRF token', async () => {
    const { user, browser } = await signedIn();
    const answer = await browser.post('/profile/password', {
      authenticity_token: '',
      current_password: user.password,
      new_password: 'a much better password',
      password_confirmation: 'a much better password',
    });
    expect(answer.statusCode).toBe(422);
    expect(await signsIn(user.username, user.password)).toBe(true);
  });

  it('hashes a password made at an older cost again at sign-in', async () => {
    const user = await createUser(service);
    const older = await new PasswordHasher({
      memoryKib: 32,
      iterations: 2,
      parallelism: 1,
    }).hash(user.password);
    await service.db
      .updateTable('users')
      .set({ password_hash: older })
      .where('id', '=', user.id)
      .execute();
    expect(await signsIn(user.username, user.password)).toBe(true);
    const { password_hash } = await service.db
      .selectFrom('users')
      .select('password_hash')
      .where('id', '=', user.id)
      .executeTakeFirstOrThrow();
    const cost = service.config.security.passwordHash;
    expect(password_hash).toMatch(
      new RegExp(
        `^\\$argon2id\\$v=19\\$m=${cost.memoryKib},t=${cost.iterations},p=${cost.parallelism}\\$`,
      ),
    );
    expect(await signsIn(user.username, user.password)).toBe(true);
  });

  it('sends the user to choose a password after an administrator set one, then on to where they were going', async () => {
    const user = await createUser(service);
    const users = new UserStore(
      service.db,
      new PasswordHasher(service.config.security.passwordHash),
    );
    await users.setPassword(user.id, 'set by an administrator', { mustChange: true });
    const browser = new WebClient(service);
    await browser.get('/profile/applications');
    const signedIn = await browser.signIn(user.username, 'set by an administrator');
    expect(signedIn.headers.location).toBe('/profile/password/edit');
    const form = await browser.get('/profile/password/edit');
    expect(form.body).toContain('Choose one of your own to continue');
    const changed = await browser.post('/profile/password', {
      current_password: 'set by an administrator',
      new_password: 'my own password now',
      password_confirmation: 'my own password now',
    });
    expect(changed.statusCode).toBe(302);
    expect(changed.headers.location).toBe('/profile/applications');
    // Asked once: the next sign-in goes where it was going.
    expect(
      (await new WebClient(service).signIn(user.username, 'my own password now')).headers.location,
    ).toBe('/profile');
  });

  it('holds every other page, the authorization endpoint and the password grant until the password is replaced', async () => {
    const user = await createUser(service);
    const users = new UserStore(
      service.db,
      new PasswordHasher(service.config.security.passwordHash),
    );
    await users.setPassword(user.id, 'set by an administrator', { mustChange: true });
    const client = await createApplication(service, (await createUser(service)).id);
    const authorize = `/oauth/authorize?${new URLSearchParams({
      client_id: client.clientId,
      redirect_uri: client.redirectUri,
      response_type: 'code',
      scope: 'api',
    })}`;
    const browser = new WebClient(service);
    await browser.signIn(user.username, 'set by an administrator');
    for (const path of ['/profile', '/profile/personal_access_tokens', authorize]) {
      const answer = await browser.get(path);
      expect(answer.statusCode, path).toBe(302);
      expect(answer.headers.location, path).toBe('/profile/password/edit');
    }
    // Forms other than the password's are refused the same way (nothing is created).
    await browser.get('/profile/password/edit');
    const token = await browser.post('/profile/personal_access_tokens', {
      name: 'sneaky',
      scopes: 'api',
    });
    expect(token.headers.location).toBe('/profile/password/edit');
    const grant = await service.app.inject({
      method: 'POST',
      url: '/oauth/token',
      payload: {
        grant_type: 'password',
        username: user.username,
        password: 'set by an administrator',
      },
    });
    expect(grant.statusCode).toBe(400);
    expect(grant.json()).toMatchObject({ error: 'invalid_grant' });
    expect(
      await service.db
        .selectFrom('personal_access_tokens')
        .select('id')
        .where('user_id', '=', user.id)
        .execute(),
    ).toEqual([]);
  });

  it('refuses a new password of only spaces, the current one, or the username', async () => {
    const { user, browser } = await signedIn();
    for (const next of ['        ', user.password, user.username.padEnd(8, ' ')]) {
      const refused = await browser.post('/profile/password', {
        current_password: user.password,
        new_password: next,
        password_confirmation: next,
      });
      expect(refused.statusCode, JSON.stringify(next)).toBe(422);
    }
    expect(await signsIn(user.username, user.password)).toBe(true);
  });
});
