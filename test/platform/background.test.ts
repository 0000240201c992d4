/**
 * The background-work kernel's pieces on their own: the one loop (turns never
 * overlap, wakes during a turn make exactly one more, a failed turn is
 * reported and the loop goes on, close waits and starts nothing) and the retry
 * policy written the same way in every setting.
 */
import { describe, expect, it } from 'vitest';
import { RetryPolicy } from '../../src/platform/background/retry-policy.js';
import { WorkLoop } from '../../src/platform/background/work-loop.js';
import { readWorkers } from '../../src/platform/background/workers.js';
import { ConfigError } from '../../src/platform/config.js';

/** A turn that waits until released, counting how many ran and how many at once. */
function heldTurns() {
  let release: () => void = () => undefined;
  const state = { turns: 0, running: 0, mostAtOnce: 0 };
  const turn = async () => {
    state.turns += 1;
    state.running += 1;
    state.mostAtOnce = Math.max(state.mostAtOnce, state.running);
    await new Promise<void>((resolve) => {
      release = resolve;
    });
    state.running -= 1;
  };
  return { state, turn, release: () => release() };
}

const tick = () => new Promise((resolve) => setImmediate(resolve));

describe('the work loop', () => {
  it('runs one turn at a time, and one more for any number of wakes during a turn', async () => {
    const held = heldTurns();
    const loop = new WorkLoop({ pollMilliseconds: 60_000, turn: held.turn, failed: () => {} });
    loop.wake();
    await tick();
    expect(held.state.turns).toBe(1);
    for (let wake = 0; wake < 5; wake += 1) loop.wake();
    await tick();
    expect(held.state.turns).toBe(1);
    held.release();
    await tick();
    await tick();
    expect(held.state.turns).toBe(2);
    held.release();
    await tick();
    await tick();
    expect(held.state.turns).toBe(2);
    expect(held.state.mostAtOnce).toBe(1);
    await loop.close();
  });

  it('resolves next() only after a turn that began after it was asked', async () => {
    const held = heldTurns();
    const loop = new WorkLoop({ pollMilliseconds: 60_000, turn: held.turn, failed: () => {} });
    loop.wake();
    await tick();
    let done = false;
    const next = loop.next().then(() => {
      done = true;
    });
    held.release(); // the turn under way ends: not the one asked for
    await tick();
    await tick();
    expect(done).toBe(false);
    expect(held.state.turns).toBe(2);
    held.release();
    await next;
    expect(done).toBe(true);
    await loop.close();
  });

  it('reports a failed turn and takes the next', async () => {
    const failures: unknown[] = [];
    let turns = 0;
    const loop = new WorkLoop({
      pollMilliseconds: 60_000,
      turn: async () => {
        turns += 1;
        if (turns === 1) throw new Error('the database is away');
      },
      failed: (error) => failures.push(error),
    });
    await loop.next();
    await loop.next();
    expect(turns).toBe(2);
    expect(failures).toHaveLength(1);
    expect(String(failures[0])).toContain('the database is away');
    await loop.close();
  });

  it('turns on its timer, and after close waits for the turn under way and starts none', async () => {
    let turns = 0;
    const loop = new WorkLoop({
      pollMilliseconds: 20,
      turn: async () => {
        turns += 1;
      },
      failed: () => {},
    });
    loop.start();
    await new Promise((resolve) => setTimeout(resolve, 150));
    expect(turns).toBeGreaterThanOrEqual(3);
    await loop.close();
    const after = turns;
    loop.wake();
    await loop.next();
    await new Promise((resolve) => setTimeout(resolve, 60));
    expect(turns).toBe(after);
  });
});

describe('the retry policy', () => {
  it('reads waits with their units, and gives up after the last', () => {
    const policy = RetryPolicy.parse('5s, 5m,2h,250ms') as RetryPolicy;
    expect(policy.waits).toEqual([5000, 300_000, 7_200_000, 250]);
    expect(policy.attempts).toBe(5);
    expect(policy.waitAfter(1)).toBe(5000);
    expect(policy.waitAfter(4)).toBe(250);
    expect(policy.waitAfter(5)).toBeUndefined();
    expect(policy.waitAfter(0)).toBeUndefined();
  });

  it('refuses what is not a schedule, naming the setting', () => {
    for (const text of ['', '5', '5d', '5s,', '-5s', `${'1s,'.repeat(20)}1s`, '1e3s'])
      expect(RetryPolicy.parse(text), text).toBeUndefined();
    const read = (name: string) => (name === 'X_RETRY_SCHEDULE' ? 'soon' : undefined);
    expect(() => RetryPolicy.read(read, 'X_RETRY_SCHEDULE', '5s')).toThrow(ConfigError);
    expect(() => RetryPolicy.read(read, 'X_RETRY_SCHEDULE', '5s')).toThrow(/X_RETRY_SCHEDULE/);
    expect(RetryPolicy.read(() => undefined, 'Y', '1m,1h').waits).toEqual([60_000, 3_600_000]);
  });
});

describe('the workers setting', () => {
  const NAMES = ['webhooks', 'mail', 'imports'] as const;
  const reading =
    (values: Record<string, string>) =>
    (name: string): string | undefined =>
      values[name];

  it('takes on all by default, none, or the kinds listed', () => {
    expect([...readWorkers(reading({}), 'X', NAMES)]).toEqual(['webhooks', 'mail', 'imports']);
    expect([...readWorkers(reading({ X_WORKERS: 'none' }), 'X', NAMES)]).toEqual([]);
    expect([...readWorkers(reading({ X_WORKERS: ' Mail, imports ' }), 'X', NAMES)]).toEqual([
      'mail',
      'imports',
    ]);
  });

  it('honours the older on/off settings, and names the setting it refuses', () => {
    const legacy = { webhooks: 'X_WEBHOOK_DELIVER', imports: 'X_IMPORT_WORKER' };
    expect([...readWorkers(reading({ X_WEBHOOK_DELIVER: 'false' }), 'X', NAMES, legacy)]).toEqual([
      'mail',
      'imports',
    ]);
    expect(() => readWorkers(reading({ X_WORKERS: 'mail,sms' }), 'X', NAMES)).toThrow(/X_WORKERS/);
    expect(() => readWorkers(reading({ X_WORKERS: '' }), 'X', NAMES)).toThrow(ConfigError);
    expect(() => readWorkers(reading({ X_IMPORT_WORKER: 'no' }), 'X', NAMES, legacy)).toThrow(
      /X_IMPORT_WORKER/,
    );
  });
});
