/**
 * The published and working views of a library's export: what a visitor's
 * download holds (never a Draft), and `view=` on the API, whose default for a
 * token holder stays the working view it always was.
 */
import { Parser } from 'n3';
import { describe, expect, it } from 'vitest';
import { DATABASE_KINDS } from '../harness.js';
import {
  approve,
  create,
  createLibrary,
  iriQuery,
  refdataForTests,
  uniqueName,
} from './helpers.js';
import { Browser } from './page-client.js';

describe.each(DATABASE_KINDS)("a library's published and working views on %s", (kind) => {
  const service = refdataForTests(kind);

  it('keeps Drafts, Submitted and Rejected terms out of the published view', async () => {
    const library = await createLibrary(service);
    await approve(service, library);
    const term = (name: string) =>
      create(service, '/rdl/terms/subclass', {
        name: uniqueName(name),
        ontology: library,
        subClassOf: ['http://x.example/E'],
      });
    const approved = (await term('Approved pump')).iri;
    await approve(service, approved);
    const draft = (await term('Draft pump')).iri;
    const rejected = (await term('Rejected pump')).iri;
    await service.call('PUT', `/status/submit?${iriQuery(rejected)}`);
    await service.call('PUT', `/status/reject?${iriQuery(rejected)}`, {
      roles: ['Reviewer'],
      body: { justification: 'No' },
    });
    const path = new URL(library).pathname;
    const subjects = (turtle: string) =>
      new Set(new Parser().parse(turtle).map((quad) => quad.subject.value));

    const published = await service.call('GET', `${path}?view=published`, {
      headers: { accept: 'text/turtle' },
    });
    expect(published.statusCode).toBe(200);
    const shown = subjects(published.body);
    expect(shown.has(approved)).toBe(true);
    expect(shown.has(draft)).toBe(false);
    expect(shown.has(rejected)).toBe(false);

    // A token holder's default is the working view, as before `view` existed.
    const working = await service.call('GET', path, { headers: { accept: 'text/turtle' } });
    const all = subjects(working.body);
    for (const iri of [approved, draft, rejected]) expect(all.has(iri)).toBe(true);
    expect(working.headers.etag).not.toBe(published.headers.etag);
    const named = await service.call('GET', `${path}?view=working`, {
      headers: { accept: 'text/turtle' },
    });
    expect(named.headers.etag).toBe(working.headers.etag);
    expect((await service.call('GET', `${path}?view=everything`)).statusCode).toBe(400);

    // A visitor's download from the library's page is the published view.
    const visitor = await new Browser(service).get(`${path}?format=ttl`);
    expect(visitor.statusCode).toBe(200);
    const downloaded = subjects(visitor.body);
    expect(downloaded.has(approved)).toBe(true);
    expect(downloaded.has(draft)).toBe(false);
    // Signed in, the page's download is the working view.
    const signedIn = new Browser(service);
    await signedIn.signInWithToken(await service.token(['Reader'], 'grace'));
    expect(subjects((await signedIn.get(`${path}?format=ttl`)).body).has(draft)).toBe(true);
  });
});
