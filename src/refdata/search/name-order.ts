import type { RankKey } from './ranking.js';
import { grown, type Slots } from './slots.js';

/**
 * The live slots in the order of their names (and ids), as of the last freeze:
 * a listing without words takes its page from the front instead of comparing
 * every name, a cursor finds its place by halving, and the slots whose name is
 * a query's phrase, or starts with it, are found by two binary searches rather
 * than by reading each match's name. Slots from `sortedFrom` on came later and
 * are ranked as usual.
 */
export class NameOrder {
  sorted = new Int32Array(0);
  sortedFrom = 0;
  /** Per slot: 1 when its name is the query's phrase, 2 when it starts with it, else 0. */
  tierMarks = new Uint8Array(1024);

  constructor(private readonly slots: Slots) {}

  /** Merges the slots added since the last sort into the order, leaving removed ones out. */
  merge(): void {
    const { names, ids } = this.slots;
    const byName = (a: number, b: number) => {
      const x = names[a] as string;
      const y = names[b] as string;
      return x < y ? -1 : x > y ? 1 : (ids[a] as number) - (ids[b] as number);
    };
    const added: number[] = [];
    for (let slot = this.sortedFrom; slot < this.slots.count; slot += 1)
      if (ids[slot] !== -1) added.push(slot);
    added.sort(byName);
    // The live slots of the last order first (numbers only), then each added
    // slot's place found by halving: a freeze after a few writes compares a few
    // names per write rather than every name there is.
    const kept = new Int32Array(this.sorted.length);
    let keptSize = 0;
    for (const slot of this.sorted) {
      if (ids[slot] === -1) continue;
      kept[keptSize] = slot;
      keptSize += 1;
    }
    const merged = new Int32Array(keptSize + added.length);
    let size = 0;
    let from = 0;
    for (const slot of added) {
      let low = from;
      let high = keptSize;
      while (low < high) {
        const middle = (low + high) >>> 1;
        if (byName(kept[middle] as number, slot) < 0) low = middle + 1;
        else high = middle;
      }
      merged.set(kept.subarray(from, low), size);
      size += low - from;
      merged[size] = slot;
      size += 1;
      from = low;
    }
    merged.set(kept.subarray(from, keptSize), size);
    this.sorted = merged;
    this.sortedFrom = this.slots.count;
    this.tierMarks = grown(this.tierMarks, this.slots.count, (n) => new Uint8Array(n));
  }

  /**
   * Marks in `tierMarks` the sorted slots whose name is the phrase (1) or
   * starts with it (2); answers the range of `sorted` marked, for `unmark`.
   */
  markLeadingTiers(phrase: string): { from: number; to: number } {
    const sorted = this.sorted;
    const names = this.slots.names;
    const from = this.firstNameNotBefore(phrase);
    // Every name that starts with the phrase sorts before the phrase and U+FFFF.
    const to = this.firstNameNotBefore(`${phrase}\uffff`);
    const tierMarks = this.tierMarks;
    // Names equal to the phrase sort first among those that start with it.
    let i = from;
    for (; i < to && names[sorted[i] as number] === phrase; i += 1)
      tierMarks[sorted[i] as number] = 1;
    for (; i < to; i += 1) tierMarks[sorted[i] as number] = 2;
    return { from, to };
  }

  /** Clears the marks `markLeadingTiers` set. */
  unmark(marked: { from: number; to: number }): void {
    for (let i = marked.from; i < marked.to; i += 1) this.tierMarks[this.sorted[i] as number] = 0;
  }

  /** The first position in `sorted` whose name and id come after the cursor's. */
  firstAfter(after: RankKey): number {
    const { names, ids } = this.slots;
    let low = 0;
    let high = this.sorted.length;
    while (low < high) {
      const middle = (low + high) >>> 1;
      const slot = this.sorted[middle] as number;
      const name = names[slot] as string;
      const before =
        name < after.name || (name === after.name && (ids[slot] as number) <= after.id);
      if (before) low = middle + 1;
      else high = middle;
    }
    return low;
  }

  /** The first position in `sorted` whose name is not before `name`. */
  private firstNameNotBefore(name: string): number {
    const names = this.slots.names;
    let low = 0;
    let high = this.sorted.length;
    while (low < high) {
      const middle = (low + high) >>> 1;
      if ((names[this.sorted[middle] as number] as string) < name) low = middle + 1;
      else high = middle;
    }
    return low;
  }
}
