import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DATABASE_KINDS } from '../harness.js';
import {
  create,
  createLibrary,
  iriQuery,
  type Refdata,
  startRefdata,
  uniqueName,
} from './helpers.js';
import { Browser } from './page-client.js';

/** The review pages' answers to people without the role, and to bad input. */
describe.each(DATABASE_KINDS)('review pages, refusals and bad input (%s)', (kind) => {
  let service: Refdata;
  let author: Browser;
  let reader: Browser;
  let reviewer: Browser;
  let term: { iri: string };
  let packageId: number;

  beforeAll(async () => {
    service = await startRefdata(kind);
    author = new Browser(service);
    await author.signInWithToken(await service.token(['Creator'], 'alice'));
    reader = new Browser(service);
    await reader.signInWithToken(await service.token(['Reader'], 'rob'));
    reviewer = new Browser(service);
    await reviewer.signInWithToken(await service.token(['Reviewer'], 'rita'));
    const library = await createLibrary(service);
    term = await create(service, '/rdl/terms/subclass', {
      name: uniqueName('Gate'),
      ontology: library,
      subClassOf: ['https://example.org/A'],
    });
    const made = await service.call('POST', '/packages', { body: { resources: [term.iri] } });
    packageId = made.json().id;
  });
  afterAll(() => service?.close());

  const comments = async () =>
    Number(
      (
        await service.db
          .selectFrom('comments')
          .select((eb) => eb.fn.countAll<number>().as('n'))
          .executeTakeFirstOrThrow()
      ).n,
    );

  it('sends visitors to sign in, and tells a Reader what deciding takes', async () => {
    const visitor = new Browser(service);
    for (const path of [
      `/review/packages/${packageId}`,
      '/account/notifications',
      '/account/notifications/settings',
    ]) {
      const answer = await visitor.get(path);
      expect(answer.statusCode, path).toBe(302);
      expect(answer.headers.location).toMatch(/^\/sign-in\?return_to=/);
    }
    // A Reader reads the package and its discussion, without the decision.
    const page = await reader.get(`/review/packages/${packageId}`);
    expect(page.statusCode).toBe(200);
    expect(page.body).toContain('id="discussion"');
    expect(page.body).not.toContain('Approve all');
    const decided = await reader.post(`/review/packages/${packageId}`, {
      decision: 'approve',
      text: 'I read it',
    });
    expect(decided.statusCode).toBe(403);
    expect(decided.body).toContain('takes the Reviewer role');
  });

  it('answers a bad comment with the form and its message, and stores nothing', async () => {
    const before = await comments();
    const blank = await reader.post(`/discussion?${iriQuery(term.iri)}`, { text: '   ' });
    expect(blank.statusCode).toBe(422);
    expect(blank.body).toContain('Write something first.');
    const long = await reader.post(`/discussion?package=${packageId}`, {
      text: 'x'.repeat(5001),
    });
    expect(long.statusCode).toBe(422);
    expect(long.body).toContain('at most 5,000 characters');
    for (const [url, status] of [
      [`/discussion?${iriQuery(`${term.iri}-none`)}`, 404],
      ['/discussion?package=999999', 404],
      ['/discussion', 404],
      ['/discussion?package=zero', 400],
    ] as const) {
      expect((await reader.post(url, { text: 'Hello' })).statusCode, url).toBe(status);
    }
    expect(await comments()).toBe(before);
    // With a forged form token: refused (422, as GitLab answers it) before anything is read.
    const forged = await reader.post(`/discussion?${iriQuery(term.iri)}`, {
      authenticity_token: 'forged',
      text: 'Hello',
    });
    expect(forged.statusCode).toBe(422);
    expect(forged.body).not.toContain('Write something first.');
    expect(await comments()).toBe(before);
  });

  it('lets only a comment’s author change it, and only for a while', async () => {
    const posted = await reader.post(`/discussion?${iriQuery(term.iri)}`, { text: 'First words' });
    expect(posted.statusCode).toBe(303);
    const id = /#comment-(\d+)$/.exec(String(posted.headers.location))?.[1] ?? '';
    expect((await reader.get(`/discussion/edit?id=${id}`)).statusCode).toBe(200);
    expect((await author.get(`/discussion/edit?id=${id}`)).statusCode).toBe(403);
    expect((await author.post(`/discussion/edit?id=${id}`, { text: 'Not mine' })).statusCode).toBe(
      403,
    );
    const blank = await reader.post(`/discussion/edit?id=${id}`, { text: '' });
    expect(blank.statusCode).toBe(422);
    expect((await reader.get('/discussion/edit?id=999999')).statusCode).toBe(404);
    expect((await reader.get('/discussion/edit?id=x')).statusCode).toBe(400);
    await service.db
      .updateTable('comments')
      .set({ created_at: Date.now() - 16 * 60_000 })
      .where('id', '=', Number(id))
      .execute();
    expect((await reader.post(`/discussion/edit?id=${id}`, { text: 'Late' })).statusCode).toBe(403);
    const stored = await service.db
      .selectFrom('comments')
      .select('text')
      .where('id', '=', Number(id))
      .executeTakeFirstOrThrow();
    expect(stored.text).toBe('First words');
  });

  it('answers a bad decision on a package with the page, keeping the text, and decides nothing', async () => {
    const page = await reviewer.get(`/review/packages/${packageId}`);
    const items = /name="_items" value="([^"]*)"/.exec(page.body)?.[1] ?? '';
    const blank = await reviewer.post(`/review/packages/${packageId}`, {
      _items: items,
      decision: 'approve',
      text: ' ',
    });
    expect(blank.statusCode).toBe(422);
    // The library it names is a Draft: said on the page, the text kept.
    const waits = await reviewer.post(`/review/packages/${packageId}`, {
      _items: items,
      decision: 'approve',
      text: 'Fine by me',
    });
    expect(waits.statusCode).toBe(409);
    expect(waits.body).toContain('It names what is not approved');
    expect(waits.body).toContain('Fine by me');
    const stale = await reviewer.post(`/review/packages/${packageId}`, {
      _items: '1:1',
      decision: 'reject',
      text: 'Old page',
    });
    expect(stale.statusCode).toBe(409);
    expect(stale.body).toContain('changed since this page was opened');
    const unknown = await reviewer.post(`/review/packages/${packageId}`, {
      _items: items,
      decision: 'postpone',
      text: 'Later',
    });
    expect(unknown.statusCode).toBe(400);
    expect((await reviewer.get('/review/packages/999999')).statusCode).toBe(404);
    const row = await service.db
      .selectFrom('resources')
      .select('status')
      .where('iri', '=', term.iri)
      .executeTakeFirstOrThrow();
    expect(row.status).toBe('Submitted');
  });

  it('keeps the inbox settings to the events there are', async () => {
    const saved = await reader.post('/account/notifications/settings', {
      'decided-inbox': '1',
      'lunch-email': '1',
    });
    expect(saved.statusCode).toBe(303);
    const settings = (
      await service.call('GET', '/notification-settings', { roles: ['Reader'], subject: 'rob' })
    ).json();
    expect(settings.events.decided).toEqual({ inbox: true, email: false });
    expect(settings.events.commented).toEqual({ inbox: false, email: false });
    expect(Object.keys(settings.events)).not.toContain('lunch');
  });
});
