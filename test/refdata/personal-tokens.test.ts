/**
 * Personal access tokens at refdata's API (the page that makes them is walked
 * in Chromium in test/browser/refdata-token-pages.test.ts): what the store
 * refuses to make, and what the API refuses to take.
 */
import { describe, expect, it } from 'vitest';
import { PersonalTokenRefused, PersonalTokens } from '../../src/refdata/auth/personal-tokens.js';
import { DATABASE_KINDS } from '../harness.js';
import { refdataForTests } from './helpers.js';

const inDays = (days: number) =>
  new Date(Date.now() + days * 86_400_000).toISOString().slice(0, 10);

describe.each(DATABASE_KINDS)('personal access tokens on %s', (kind) => {
  const service = refdataForTests(kind);
  const write = (token: string, name: string) =>
    service.app.inject({
      method: 'POST',
      url: '/ontologies/domains',
      headers: { authorization: `Bearer ${token}` },
      payload: { changeJustification: 'From a script', name, description: 'Scripted' },
    });

  it.each([
    ['an empty name', { name: ' ' }, 'name'],
    ['a name too long', { name: 'x'.repeat(256) }, 'name'],
    ['no role', { roles: [] }, 'roles'],
    ['an unknown role', { roles: ['Admin'] }, 'roles'],
    ['a role the person lacks', { roles: ['Reviewer'] }, 'roles'],
    ['a date that is no day', { expiresOn: '2027-02-30' }, 'expires_at'],
    ['a date in the past', { expiresOn: inDays(-1) }, 'expires_at'],
    ['a date beyond a year', { expiresOn: inDays(400) }, 'expires_at'],
    ['a date that is not a date', { expiresOn: 'soon' }, 'expires_at'],
  ])('refuses to make a token with %s, and stores nothing', async (_what, change, field) => {
    const before = await service.db.selectFrom('personal_access_tokens').selectAll().execute();
    const refusal = await new PersonalTokens(service.db)
      .create({
        subject: 'casey',
        held: ['Reader', 'Creator'],
        name: 'a script',
        roles: ['Creator'],
        expiresOn: inDays(30),
        ...change,
      })
      .catch((error: unknown) => error);
    expect(refusal).toBeInstanceOf(PersonalTokenRefused);
    expect((refusal as PersonalTokenRefused).field).toBe(field);
    expect(await service.db.selectFrom('personal_access_tokens').selectAll().execute()).toEqual(
      before,
    );
  });

  it('writes as its person, records its use, and stops at revocation, at expiry and with the role gone', async () => {
    const tokens = new PersonalTokens(service.db);
    const { token, row } = await tokens.create({
      subject: 'casey',
      held: ['Reader', 'Creator'],
      name: 'nightly',
      roles: ['Creator'],
      expiresOn: inDays(30),
    });
    const made = await write(token, 'Made by a personal token');
    expect(made.statusCode, made.body).toBe(201);
    const revisions = await service.db
      .selectFrom('revisions')
      .select('actor')
      .orderBy('id', 'desc')
      .limit(1)
      .execute();
    expect(revisions[0]?.actor).toBe('casey');
    const used = await service.db
      .selectFrom('personal_access_tokens')
      .select('last_used_at')
      .where('id', '=', row.id)
      .executeTakeFirstOrThrow();
    expect(Number(used.last_used_at)).toBeGreaterThan(0);

    // A token one character off, or of the wrong form, is refused with the challenge.
    const wrong = await write(
      `${token.slice(0, -1)}${token.endsWith('0') ? '1' : '0'}`,
      'Not made',
    );
    expect(wrong.statusCode).toBe(401);
    expect(wrong.headers['www-authenticate']).toContain('resource_metadata=');
    expect((await write('rdpat-short', 'Not made')).statusCode).toBe(401);

    // The person lost Creator when refdata last saw them: the token loses it too.
    await service.db
      .insertInto('people')
      .values({
        subject: 'casey',
        name: 'Casey',
        username: null,
        email: null,
        roles: 'Reader',
        updated_at: Date.now(),
      })
      .execute();
    expect((await write(token, 'Not made either')).statusCode).toBe(403);
    await service.db.deleteFrom('people').where('subject', '=', 'casey').execute();

    // Expired: refused from that moment.
    await service.db
      .updateTable('personal_access_tokens')
      .set({ expires_at: Date.now() - 1000 })
      .where('id', '=', row.id)
      .execute();
    const expired = await write(token, 'Too late');
    expect(expired.statusCode).toBe(401);
    expect(expired.json().detail).toContain('expired');
    await service.db
      .updateTable('personal_access_tokens')
      .set({ expires_at: Date.now() + 86_400_000 })
      .where('id', '=', row.id)
      .execute();

    // Revoked: refused at the next request, and only its owner can revoke it.
    expect(await tokens.revoke('mallory', row.id)).toBe(false);
    expect((await write(token, 'Still works')).statusCode).toBe(201);
    expect(await tokens.revoke('casey', row.id)).toBe(true);
    const revoked = await write(token, 'Not any more');
    expect(revoked.statusCode).toBe(401);
    expect(revoked.json().detail).toContain('revoked');
  });

  it('sends a signed-out visitor of the tokens page to sign in, and takes no post from one', async () => {
    const page = await service.app.inject('/account/tokens');
    // Told to sign in, with the page to come back to.
    expect(page.statusCode, page.body).toBe(302);
    expect(page.headers.location).toMatch(/^\/sign-in\?return_to=%2Faccount%2Ftokens/);
    const before = await service.db.selectFrom('personal_access_tokens').selectAll().execute();
    const post = await service.app.inject({
      method: 'POST',
      url: '/account/tokens',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: `name=x&roles=Reader&expires_at=${inDays(3)}`,
    });
    // Sent to sign in as well, before anything is read.
    expect(post.statusCode).toBe(302);
    expect(post.headers.location).toMatch(/^\/sign-in/);
    expect(await service.db.selectFrom('personal_access_tokens').selectAll().execute()).toEqual(
      before,
    );
  });
});
