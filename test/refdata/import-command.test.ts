/**
 * `refdata-import`, the command administrators and scripts run: progress as it
 * goes, one summary line at the end, and an exit status a script can test.
 */
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { afterAll, describe, expect, it } from 'vitest';
import { openDatabase } from '../../src/platform/db/connection.js';
import { migrateToLatest } from '../../src/platform/db/migrations.js';
import { createLogger } from '../../src/platform/http/logging.js';
import { buildService, type ServiceDefinition } from '../../src/platform/service.js';
import { loadProgramConfig, runProgram } from '../../src/program.js';
import { refdataService } from '../../src/refdata/app.js';
import { loadOrCreateSigningKey } from '../../src/refdata/auth/signing-key.js';
import { mintToken } from '../../src/refdata/auth/tokens.js';
import { refdataMigrations } from '../../src/refdata/db/migrations.js';

const CFIHOS = join(import.meta.dirname, '../../datasets/cfihos-v2.0-core');

function captured() {
  const stream = new PassThrough();
  let text = '';
  stream.on('data', (chunk: Buffer) => {
    text += chunk.toString();
  });
  return { stream, text: () => text };
}

describe('refdata-import', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'chrd-import-'));
  afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

  it('imports the CFIHOS files into a library, printing progress and one summary line', async () => {
    // The library is made through the API of an instance on the same data directory.
    const env = { DATA_DIR: dataDir, REFDATA_IMPORT_WORKER: 'false' };
    const config = loadProgramConfig(env);
    const database = openDatabase(config.services.refdata.database);
    await migrateToLatest(database, refdataMigrations);
    const app = await buildService(refdataService() as ServiceDefinition, {
      platform: config,
      database,
      logger: createLogger('refdata', 'info', { write: () => undefined }),
    });
    let library = '';
    try {
      await app.ready();
      const tokens = config.settings.refdata.tokens;
      const token = await mintToken(await loadOrCreateSigningKey(tokens.signingKeyFile), tokens, {
        subject: 'alice',
        roles: ['Creator'],
        lifetimeSeconds: 600,
      });
      const made = await app.inject({
        method: 'POST',
        url: '/ontologies/domains',
        headers: { authorization: `Bearer ${token}` },
        payload: {
          changeJustification: 'For CFIHOS',
          name: 'CFIHOS core',
          description: 'CFIHOS v2.0 Core',
        },
      });
      library = made.json().iri;
    } finally {
      await app.close();
      await database.close();
    }
    const files = readdirSync(CFIHOS)
      .filter((name) => name.endsWith('.csv'))
      .map((name) => join(CFIHOS, name));
    const stdout = captured();
    const stderr = captured();
    const run = (args: string[]) =>
      runProgram(['refdata-import', `--library=${library}`, ...args, ...files], {
        env,
        stdout: stdout.stream,
        stderr: stderr.stream,
      });
    // All or nothing: the 12 refused lines keep everything out.
    expect(await run([])).toBe(2);
    expect(stderr.text()).toMatch(/Nothing was written: 12 line\(s\) were refused/);
    expect(await run(['--valid-only', '--as=importer'])).toBe(2);
    const lines = stdout.text().trim().split('\n');
    expect(lines).toContain('created 8109, updated 0, unchanged 0, refused 12 (nothing written)');
    expect(lines.at(-1)).toBe('created 8109, updated 0, unchanged 0, refused 12');
    expect(lines.some((line) => /^(checking|writing): \d+ of \d+ \(\d+ %/.test(line))).toBe(true);
    const usage = captured();
    expect(
      await runProgram(['refdata-import', 'a.csv'], {
        env,
        stdout: usage.stream,
        stderr: usage.stream,
      }),
    ).not.toBe(0);
    expect(usage.text()).toMatch(/--library=<IRI>/);
  }, 120_000);
});
