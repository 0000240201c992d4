/**
 * Bulk imports through the API, on the whole CFIHOS v2.0 Core set as IOGP
 * publishes it: a job per upload, run in the background, its report line by
 * line, and a second import of the same files that changes nothing.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { DATABASE_KINDS } from '../harness.js';
import { createLibrary, refdataForTests } from './helpers.js';
import { finished, startImport } from './import-client.js';

const CFIHOS = join(import.meta.dirname, '../fixtures/cfihos');
const CFIHOS_FILES = readdirSync(CFIHOS).filter((name) => name.endsWith('.csv'));

function cfihosFiles() {
  return CFIHOS_FILES.map((name) => ({ name, bytes: readFileSync(join(CFIHOS, name)) }));
}

describe.each(DATABASE_KINDS)('imports on %s', (kind) => {
  const service = refdataForTests(kind);

  it('imports the whole CFIHOS v2.0 Core set, then finds it all unchanged', async () => {
    const library = await createLibrary(service, {
      cfihosPrefix: 'CORE',
      upperOntologies: ['https://posccaesar.org/cfihos/rdl/2.0'],
    });
    const started = await startImport(service, { library, mode: 'valid-only' }, cfihosFiles());
    expect(started.statusCode, started.body).toBe(202);
    const job = await finished(service, started.headers.location as string);
    expect(job.error).toBeNull();
    expect(job.counts).toEqual({ created: 8109, updated: 0, unchanged: 0, refused: 12 });
    const again = await startImport(service, { library, mode: 'valid-only' }, cfihosFiles());
    const second = await finished(service, again.headers.location as string);
    expect(second.counts).toEqual({ created: 0, updated: 0, unchanged: 8109, refused: 12 });
  }, 300_000);
});
