import { afterEach, describe, expect, it } from 'vitest';
import { codehostMigrations } from '../../src/codehost/db/migrations.js';
import type { CodehostTables } from '../../src/codehost/db/tables.js';
import { RETIRED_KEY_PUBLISHED_MS, SigningKeyStore } from '../../src/codehost/oidc/signing-keys.js';
import { type DatabaseHandle, openDatabase } from '../../src/platform/db/connection.js';
import { migrateToLatest } from '../../src/platform/db/migrations.js';
import { createTestDatabase, DATABASE_KINDS, type TestDatabase } from '../harness.js';

describe.each(DATABASE_KINDS)('OpenID Connect signing keys on %s', (kind) => {
  let database: TestDatabase;
  let handle: DatabaseHandle<CodehostTables>;
  afterEach(async () => {
    await handle?.close();
    await database?.drop();
  });

  async function fresh() {
    database = await createTestDatabase(kind, 'keys');
    handle = openDatabase<CodehostTables>(database.config);
    await migrateToLatest(handle, codehostMigrations);
    return handle.db;
  }

  it('makes one first key when several instances start at once', async () => {
    const db = await fresh();
    await Promise.all([1, 2, 3].map(() => new SigningKeyStore(db).ensureKey()));
    const keys = await new SigningKeyStore(db).all();
    expect(keys.map((key) => [key.generation, key.alg])).toEqual([[1, 'RS256']]);
  });

  it('publishes a new key before it signs, and an old one for a day after it stopped', async () => {
    const db = await fresh();
    let now = Date.parse('2026-01-01T00:00:00Z');
    const keys = new SigningKeyStore(db, () => now);
    await keys.ensureKey();
    const first = await keys.signingKey();
    const second = await keys.rotate('ES256', 600_000);
    const kids = async () => (await keys.published()).keys.map((key) => key.kid);

    // Published at once, not yet signing.
    expect(await kids()).toEqual([second.kid, first.kid]);
    expect((await keys.signingKey()).kid).toBe(first.kid);
    // Signing once its time has come; the first stays published.
    now += 600_000;
    expect((await keys.signingKey()).kid).toBe(second.kid);
    expect(await kids()).toEqual([second.kid, first.kid]);
    // Dropped once a day has passed since it stopped signing.
    now += RETIRED_KEY_PUBLISHED_MS;
    expect(await kids()).toEqual([second.kid]);
    // Every published key is public only.
    for (const key of (await keys.published()).keys) expect(key).not.toHaveProperty('d');
  });

  it('never shows a key a newer rotation overtook as about to sign, nor publishes it', async () => {
    const db = await fresh();
    let now = Date.parse('2026-01-01T00:00:00Z');
    const keys = new SigningKeyStore(db, () => now);
    await keys.ensureKey();
    const first = await keys.signingKey();
    // Two rotations in a row; the second takes over sooner than the first would have.
    const slow = await keys.rotate('RS256', 3_600_000);
    const fast = await keys.rotate('ES256', 600_000);
    const states = async () =>
      Object.fromEntries((await keys.states()).map((key) => [key.row.kid, key.state]));
    expect(await states()).toEqual({
      [fast.kid]: 'upcoming',
      [slow.kid]: 'superseded',
      [first.kid]: 'signing',
    });
    expect((await keys.published()).keys.map((key) => key.kid)).toEqual([fast.kid, first.kid]);
    now += 600_000;
    expect((await keys.signingKey()).kid).toBe(fast.kid);
    expect(await states()).toEqual({
      [fast.kid]: 'signing',
      [slow.kid]: 'superseded',
      [first.kid]: 'retired',
    });
    now += RETIRED_KEY_PUBLISHED_MS;
    expect((await keys.published()).keys.map((key) => key.kid)).toEqual([fast.kid]);
  });
});
