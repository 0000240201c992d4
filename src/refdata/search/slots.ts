type TypedArray = Int32Array | Uint32Array | Uint16Array | Uint8Array | Float32Array | Float64Array;

/** `array` with room for `size` entries at least (twice its length, when that is more). */
export function grown<T extends TypedArray>(array: T, size: number, make: (n: number) => T): T {
  if (size <= array.length) return array;
  const bigger = make(Math.max(size, array.length * 2));
  bigger.set(array);
  return bigger;
}

/**
 * The index's documents in numbered slots: a new version of a document takes a
 * new slot, and a removed one leaves its slot behind (id -1) until the
 * postings are compacted, so the slot numbers postings hold never move. Each
 * slot keeps its resource id, its name and the name's first characters packed
 * into a number (`leadingCode`).
 */
export class Slots {
  /** Slot to resource id; -1 for a removed document. */
  ids = new Int32Array(1024);
  /** Each slot's name; it stays when the slot is removed, as the name order still holds it. */
  readonly names: string[] = [];
  /** Each name's leading characters as a number (see `leadingCode`). */
  leading = new Uint32Array(1024);
  /** Slots handed out, removed ones included. */
  count = 0;
  live = 0;
  /** Removed slots the postings still hold. */
  dead = 0;
  private readonly byId = new Map<number, number>();

  slotOf(id: number): number | undefined {
    return this.byId.get(id);
  }

  /** A new slot for the document with this id (which holds no other slot). */
  add(id: number, name: string, leading: number): number {
    const slot = this.count;
    this.count += 1;
    this.ids = grown(this.ids, this.count, (n) => new Int32Array(n));
    this.leading = grown(this.leading, this.count, (n) => new Uint32Array(n));
    this.ids[slot] = id;
    this.names[slot] = name;
    this.leading[slot] = leading;
    this.byId.set(id, slot);
    this.live += 1;
    return slot;
  }

  /** Removes the document with this id; answers the slot it had, if any. */
  remove(id: number): number | undefined {
    const slot = this.byId.get(id);
    if (slot === undefined) return undefined;
    this.byId.delete(id);
    this.ids[slot] = -1;
    this.live -= 1;
    this.dead += 1;
    return slot;
  }
}
