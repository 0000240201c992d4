/**
 * The query page through HTTP, as a browser without script sends it: what it
 * answers to bad input (a page saying what is wrong, never a 500), and who may
 * ask the working view. The browser test walks it in Chromium.
 */
import { describe, expect, it } from 'vitest';
import { approve, create, createLibrary, refdataForTests, uniqueName } from './helpers.js';
import { Browser } from './page-client.js';

describe('the query page', () => {
  const service = refdataForTests('sqlite');
  /** As a visitor who is not signed in. */
  const page = (query: string) =>
    service.call('GET', `/query${query}`, { roles: [], headers: { accept: 'text/html' } });

  it('answers bad input with a page that says what is wrong', async () => {
    for (const [query, status] of [
      [`?query=${'x'.repeat(70_000)}`, 400],
      ['?view=everything', 400],
      ['?example=nonsense', 400],
      ['?query=ASK%7B%7D&colour=blue', 400],
      ['?query=ASK%7B%7D&query=ASK%7B%7D', 400],
      [`?query=${encodeURIComponent('INSERT DATA { <http://a> <http://b> <http://c> }')}`, 403],
      [`?query=${encodeURIComponent('SELECT * WHERE { SERVICE <http://e> { ?s ?p ?o } }')}`, 400],
      // Within the address's 65,536 characters, past the endpoint's 64 KiB.
      [`?query=${encodeURIComponent(`SELECT * WHERE { ?s ?p "${'é'.repeat(40_000)}" }`)}`, 413],
    ] as const) {
      const answer = await page(query);
      expect(answer.statusCode, query.slice(0, 60)).toBe(status);
      expect(answer.headers['content-type']).toMatch(/^text\/html/);
      expect(answer.body).toContain('<main');
    }
  });

  it('shows the working view to readers who ask, and to no one else', async () => {
    const ontology = await createLibrary(service);
    await approve(service, ontology);
    const draft = await create(service, '/rdl/terms/subclass', {
      name: uniqueName('Unpublished pump'),
      ontology,
      subClassOf: ['http://x.example/E'],
    });
    const ask = `?query=${encodeURIComponent(`SELECT ?p WHERE { <${draft.iri}> ?p ?o }`)}`;
    const published = await page(ask);
    expect(published.statusCode).toBe(200);
    expect(published.body).toMatch(/>0 rows\./);
    expect(published.body).not.toContain('id="query-view"');
    expect((await page(`${ask}&view=working`)).statusCode).toBe(403);
    const browser = new Browser(service);
    await browser.signInWithToken(await service.token(['Reader']));
    const working = await browser.get(`/query${ask}&view=working`);
    expect(working.statusCode).toBe(200);
    expect(working.body).toContain('id="query-view"');
    expect(working.body).not.toMatch(/>0 rows\./);
  });
});
