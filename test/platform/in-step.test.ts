import { describe, expect, it } from 'vitest';
import { inStep } from '../../src/platform/streams/in-step.js';

/** A source that counts how often it was read. */
function counted(items: number) {
  const state = { reads: 0 };
  async function* source() {
    for (let item = 0; item < items; item += 1) {
      state.reads += 1;
      yield item;
    }
  }
  return { state, source: source() };
}

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('inStep: one source read once for several consumers', () => {
  it('gives every consumer every item in order, reading each item once', async () => {
    const { state, source } = counted(50);
    const consumers = inStep(source, 3);
    const seen = await Promise.all(
      consumers.map(async (consumer, index) => {
        const items: number[] = [];
        for await (const item of consumer) {
          items.push(item);
          if (index === 1) await pause(1);
        }
        return items;
      }),
    );
    const all = Array.from({ length: 50 }, (_, item) => item);
    expect(seen).toEqual([all, all, all]);
    expect(state.reads).toBe(50);
  });

  it('keeps a fast consumer within one item of the slowest', async () => {
    const { state, source } = counted(20);
    const [fast, slow] = inStep(source, 2) as [AsyncIterable<number>, AsyncIterable<number>];
    let slowTaken = 0;
    let widest = 0;
    await Promise.all([
      (async () => {
        for await (const _ of fast) widest = Math.max(widest, state.reads - slowTaken);
      })(),
      (async () => {
        for await (const _ of slow) {
          slowTaken += 1;
          await pause(2);
        }
      })(),
    ]);
    expect(slowTaken).toBe(20);
    expect(widest).toBeLessThanOrEqual(2);
  });

  it('lets the others go on when one consumer stops early', async () => {
    const { source } = counted(10);
    const [quitter, stayer] = inStep(source, 2) as [AsyncIterable<number>, AsyncIterable<number>];
    const [quit, stayed] = await Promise.all([
      (async () => {
        const items: number[] = [];
        for await (const item of quitter) {
          items.push(item);
          if (item === 2) break;
        }
        return items;
      })(),
      (async () => {
        const items: number[] = [];
        for await (const item of stayer) items.push(item);
        return items;
      })(),
    ]);
    expect(quit).toEqual([0, 1, 2]);
    expect(stayed).toEqual(Array.from({ length: 10 }, (_, item) => item));
  });
});
