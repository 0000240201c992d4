/**
 * The kernel of work done after the answer, proved once for every queue that
 * runs on it (refdata's mail, codehost's logout tokens): two instances on one
 * database, a clock the test moves, and a child process killed with SIGKILL
 * while it holds claims. Every piece of work is done at least once, each key's
 * work one at a time and in order, a lapsed claim's late outcome is never
 * written over the next claim's, and failures follow the retry policy.
 */
import { spawn } from 'node:child_process';
import { sql } from 'kysely';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { SingleWriterLease } from '../../src/platform/background/single-writer-lease.js';
import { openDatabase } from '../../src/platform/db/connection.js';
import { createTestDatabase, DATABASE_KINDS, type TestDatabase } from '../harness.js';
import {
  attempts,
  createKitTables,
  enqueue,
  jobs,
  type KitDb,
  kitQueue,
  ManualClock,
} from './background-kit/kit.js';

describe.each(DATABASE_KINDS)('the leased queue on %s', (kind) => {
  let database: TestDatabase;
  let db: KitDb;
  let close: () => Promise<void>;

  beforeEach(async () => {
    database = await createTestDatabase(kind, 'kernel');
    const handle = openDatabase(database.config);
    db = handle.db;
    close = () => handle.close();
    if (database.config.kind === 'postgres')
      await sql`create schema if not exists ${sql.id(database.config.schema)}`.execute(db);
    await createKitTables(db, kind);
  });
  afterEach(async () => {
    await close();
    await database.drop();
  });

  it('does every job at least once with two instances, each key one at a time and in order', async () => {
    const clock = new ManualClock();
    await enqueue(db, 60, 6, clock.now());
    // Each key's attempts under way at this moment, over both instances.
    const out = new Map<number, number>();
    let overlapped = 0;
    const during = async (job: { key: number }) => {
      const now = (out.get(job.key) ?? 0) + 1;
      out.set(job.key, now);
      if (now > 1) overlapped += 1;
      await new Promise((resolve) => setTimeout(resolve, 2));
      out.set(job.key, (out.get(job.key) ?? 1) - 1);
    };
    // A third of the jobs fail their first attempt, and are tried again after 10 ms.
    const fails = (job: { id: number }, claim: { attempts: number }) =>
      job.id % 3 === 0 && claim.attempts === 1;
    const first = kitQueue(db, { instance: 'a', now: clock.now, during, fails });
    const second = kitQueue(db, { instance: 'b', now: clock.now, during, fails });
    for (let round = 0; round < 200; round += 1) {
      await Promise.all([first.next(), second.next()]);
      await Promise.all([first.settled(), second.settled()]);
      const left = await db
        .selectFrom('kit_jobs')
        .select(db.fn.countAll().as('n'))
        .where('state', '=', 'pending')
        .executeTakeFirstOrThrow();
      if (Number(left.n) === 0) break;
      clock.advance(10);
    }
    await Promise.all([first.close(), second.close()]);

    const done = await jobs(db);
    expect(done.every((job) => job.state === 'done')).toBe(true);
    expect(done.filter((job) => job.id % 3 === 0).every((job) => job.attempts === 2)).toBe(true);
    expect(new Set(done.map((job) => job.finished_by))).toEqual(new Set(['a', 'b']));
    expect(overlapped).toBe(0);
    // Each key's jobs succeeded in the order they were queued.
    const log = await attempts(db);
    for (let key = 0; key < 6; key += 1) {
      const succeeded = log.filter((row) => row.key === key && row.outcome === 'done');
      const order = succeeded.map((row) => row.job_id);
      expect(order).toEqual([...order].sort((a, b) => a - b));
      expect(order).toHaveLength(10);
    }
  });

  it("takes up a lapsed claim on the other instance, and drops the first claim's late outcome", async () => {
    const clock = new ManualClock();
    await enqueue(db, 1, 1, clock.now());
    let release: () => void = () => undefined;
    const slow = kitQueue(db, {
      instance: 'slow',
      now: clock.now,
      leaseMs: 1000,
      during: () => new Promise((resolve) => (release = () => resolve())),
    });
    const other = kitQueue(db, { instance: 'other', now: clock.now, leaseMs: 1000 });
    await slow.next();
    // Held: the other instance finds nothing while the claim lasts.
    await other.next();
    await other.settled();
    expect((await jobs(db))[0]).toMatchObject({ state: 'pending', attempts: 1 });
    clock.advance(1001);
    await other.next();
    await other.settled();
    expect((await jobs(db))[0]).toMatchObject({ state: 'done', attempts: 2, finished_by: 'other' });
    // The slow attempt ends at last, failing: its claim is no longer the row's.
    release();
    await slow.settled();
    expect((await jobs(db))[0]).toMatchObject({ state: 'done', finished_by: 'other' });
    await Promise.all([slow.close(), other.close()]);
  });

  it('tries a failing job as the retry policy says, then gives it up with its reason', async () => {
    const clock = new ManualClock();
    await enqueue(db, 1, 1, clock.now());
    const queue = kitQueue(db, {
      instance: 'a',
      now: clock.now,
      retry: '1s,5s',
      fails: () => true,
    });
    await queue.next();
    await queue.settled();
    expect((await jobs(db))[0]).toMatchObject({ state: 'pending', attempts: 1 });
    clock.advance(999);
    await queue.next();
    await queue.settled();
    expect((await jobs(db))[0]?.attempts).toBe(1);
    clock.advance(1);
    await queue.next();
    await queue.settled();
    clock.advance(5000);
    await queue.next();
    await queue.settled();
    expect((await jobs(db))[0]).toMatchObject({
      state: 'failed',
      attempts: 3,
      error: 'attempt 3 failed',
    });
    await queue.close();
  });

  it('lets one writer hold the single-writer lease at a time, renewing it, and another take it when it lapses or is given back', async () => {
    await sql`create table kit_leases (id integer primary key, holder varchar(80), lease_until bigint not null)`.execute(
      db,
    );
    await db.insertInto('kit_leases').values({ id: 1, holder: null, lease_until: 0 }).execute();
    const clock = new ManualClock();
    const row = { table: 'kit_leases', id: 1 };
    const first = new SingleWriterLease(db, row, 1000, clock.now);
    const second = new SingleWriterLease(db, row, 1000, clock.now);
    expect(await first.hold()).toBe('renewed');
    expect(await second.hold()).toBe('not-held');
    // Within the first half nothing is written; past it, the lease is renewed.
    clock.advance(400);
    expect(await first.hold()).toBe('kept');
    clock.advance(200);
    expect(await first.hold()).toBe('renewed');
    clock.advance(999);
    expect(await second.hold()).toBe('not-held');
    // The holder stopped renewing: once its time is out, the other takes over, and it knows.
    clock.advance(2);
    expect(await second.hold()).toBe('renewed');
    clock.advance(600);
    expect(await first.hold()).toBe('not-held');
    await second.release();
    expect(await first.hold()).toBe('renewed');
    const [kept] = await db.selectFrom('kit_leases').selectAll().execute();
    expect(kept?.holder).toBe(first.holder);
  });

  it('does the work of a process killed with SIGKILL while it held claims, once its leases lapse', async () => {
    await enqueue(db, 6, 3, Date.now());
    const leaseMs = 400;
    const child = spawn(
      process.execPath,
      [
        '--import',
        'tsx',
        'test/platform/background-kit/queue-child.ts',
        JSON.stringify(database.config),
        String(leaseMs),
      ],
      { stdio: ['ignore', 'pipe', 'inherit'] },
    );
    // The child holds one job of each key (one per key at a time), then is killed.
    await new Promise<void>((resolve, reject) => {
      let claimed = 0;
      child.on('exit', (code) => reject(new Error(`the child ended first (${code})`)));
      child.stdout?.on('data', (chunk: Buffer) => {
        claimed += chunk
          .toString()
          .split('\n')
          .filter((line) => line === 'claimed').length;
        if (claimed >= 3) resolve();
      });
    });
    child.removeAllListeners('exit');
    const exited = new Promise((resolve) => child.on('exit', resolve));
    child.kill('SIGKILL');
    await exited;

    const survivor = kitQueue(db, { instance: 'survivor', pollMilliseconds: 50 });
    survivor.start();
    const started = Date.now();
    for (;;) {
      const pending = (await jobs(db)).filter((job) => job.state !== 'done');
      if (pending.length === 0) break;
      if (Date.now() - started > 20_000) throw new Error('the survivor did not finish');
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    await survivor.close();
    const log = await attempts(db);
    const byChild = log.filter((row) => row.instance === 'child');
    // Three jobs were started by the child and never ended there ...
    expect(byChild.map((row) => row.outcome)).toEqual(['started', 'started', 'started']);
    // ... and all six are done by the survivor, those three on their second attempt.
    const all = await jobs(db);
    expect(all.every((job) => job.state === 'done' && job.finished_by === 'survivor')).toBe(true);
    const retaken = all.filter((job) => byChild.some((row) => row.job_id === job.id));
    expect(retaken.map((job) => job.attempts)).toEqual([2, 2, 2]);
  });
});
