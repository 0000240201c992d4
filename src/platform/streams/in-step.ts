/**
 * One async source read once for several consumers, each of which gets every
 * item, in order. They go in step: no consumer asks for an item until every
 * other has taken the one before, so at most two items are held however far
 * apart their speeds are (a fast writer waits for a slow one). A consumer
 * that stops early (`return`) no longer holds the others back.
 */
export function inStep<T>(source: AsyncIterable<T>, consumers: number): AsyncIterable<T>[] {
  const iterator = source[Symbol.asyncIterator]();
  let active = consumers;
  /** Each round's item, as the source gave it, and how many have taken it. */
  const rounds = new Map<number, { result: Promise<IteratorResult<T>>; taken: number }>();
  /** Each round's gate: open once every active consumer has taken its item. */
  const gates = new Map<number, { open: Promise<void>; release: () => void; opened: boolean }>();

  const gate = (round: number) => {
    let found = gates.get(round);
    if (!found) {
      let release = () => {};
      const open = new Promise<void>((resolve) => {
        release = resolve;
      });
      found = { open, release, opened: false };
      gates.set(round, found);
    }
    return found;
  };
  const settle = (round: number) => {
    const entry = rounds.get(round);
    if (!entry || entry.taken < active) return;
    rounds.delete(round);
    const opened = gate(round);
    opened.opened = true;
    opened.release();
    gates.delete(round - 1);
  };
  const take = async (round: number): Promise<IteratorResult<T>> => {
    if (round > 0 && !gate(round - 1).opened) await gate(round - 1).open;
    let entry = rounds.get(round);
    if (!entry) {
      entry = { result: iterator.next(), taken: 0 };
      rounds.set(round, entry);
    }
    entry.taken += 1;
    const result = await entry.result;
    settle(round);
    return result;
  };

  return Array.from({ length: consumers }, () => ({
    [Symbol.asyncIterator](): AsyncIterator<T> {
      let round = 0;
      let stopped = false;
      return {
        next: () => {
          if (stopped) return Promise.resolve({ done: true, value: undefined });
          round += 1;
          return take(round - 1);
        },
        return: async () => {
          if (!stopped) {
            stopped = true;
            active -= 1;
            // The rounds the others wait on need one consumer fewer.
            for (const pending of [...rounds.keys()]) settle(pending);
            if (active === 0) await iterator.return?.();
          }
          return { done: true, value: undefined };
        },
      };
    },
  }));
}
