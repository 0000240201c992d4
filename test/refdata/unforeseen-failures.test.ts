import { describe, expect, it } from 'vitest';
import { DATABASE_KINDS } from '../harness.js';
import { createLibrary, iriQuery, refdataForTests } from './helpers.js';

/**
 * A failure nobody foresaw (a table gone), provoked for real so that the
 * contract check holds the answer to the description: Problem Details with
 * the trace id, and nothing of the cause.
 */
describe.each(DATABASE_KINDS)('an unforeseen failure on %s', (kind) => {
  const service = refdataForTests(kind);

  it('answers 500 as Problem Details with the trace id, and logs the cause', async () => {
    const library = await createLibrary(service);
    // Release members point at revisions: they go first.
    await service.db.schema.dropTable('release_members').execute();
    await service.db.schema.dropTable('revisions').execute();
    const response = await service.call('GET', `/revisions?${iriQuery(library)}`);
    expect(response.statusCode).toBe(500);
    expect(response.headers['content-type']).toMatch(/^application\/problem\+json/);
    const traceId = response.headers['x-request-id'];
    expect(response.json()).toMatchObject({ status: 500, traceId });
    expect(response.json().detail ?? '').not.toMatch(/revisions|table|relation|sql/i);
    const logged = service.logLines().filter((line) => line.level === 50);
    expect(logged.map((line) => line.traceId)).toContain(traceId);
  });
});
