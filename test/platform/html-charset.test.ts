import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Codehost, startCodehost } from '../codehost/helpers.js';
import { DATABASE_KINDS } from '../harness.js';
import { createLibrary, type Refdata, startRefdata } from '../refdata/helpers.js';

/** Clients that trust the header (and not a meta tag) must read pages as UTF-8. */
describe.each(DATABASE_KINDS)('pages say their charset on %s', (kind) => {
  let codehost: Codehost;
  let refdata: Refdata;
  beforeAll(async () => {
    codehost = await startCodehost(kind);
    refdata = await startRefdata(kind, { REFDATA_IRI_BASE: 'https://rdl.example.org' });
  });
  afterAll(async () => {
    await codehost?.close();
    await refdata?.close();
  });

  it('codehost: text/html; charset=utf-8', async () => {
    for (const url of ['/users/sign_in', '/oauth/authorize?client_id=unknown']) {
      const response = await codehost.app.inject({ url });
      expect(response.headers['content-type'], url).toBe('text/html; charset=utf-8');
    }
  });

  it('refdata: text/html; charset=utf-8 on a resource page', async () => {
    const library = await createLibrary(refdata, { name: 'Café library' });
    const response = await refdata.call('GET', library.replace('https://rdl.example.org', ''), {
      headers: { accept: 'text/html' },
    });
    expect(response.statusCode).toBe(200);
    expect(response.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(response.body).toContain('Café library');
  });
});
