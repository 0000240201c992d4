/** Occurrences of a word per field are counted up to 15 (4 bits each, 16 bits a posting). */
export const MAX_COUNT = 15;

/**
 * The documents holding a word. Most words are held by one document alone (an
 * identifier, a number in a label), so the first document is kept in the
 * object itself, and typed arrays are made only for a second: a million
 * postings of one document each would otherwise be two million small buffers,
 * which cost memory and make every garbage collection slower.
 */
export interface Posting {
  size: number;
  /** The one slot and its counts while `slots` is undefined. */
  first: number;
  firstCounts: number;
  slots: Int32Array | undefined;
  /** Per slot, the word's count in each field, 4 bits each. */
  counts: Uint16Array | undefined;
  /**
   * How many live documents held the word, counted the first time a query
   * needed it under the statistics of `frequencyGeneration`, and kept until the
   * next freeze: freezing then costs nothing per word (a million resources have
   * two million words), and a score still stays put between freezes.
   */
  frequency: number;
  frequencyGeneration: number;
  /**
   * Per slot, the word's BM25 weight in that document (every field's saturated
   * count by its weight, before the word's idf), under the statistics of
   * `impactGeneration`, for the first `impactSize` slots. Worked out when a
   * query first needs them and kept until the next freeze, so that a match
   * costs one read where it cost the document's four field lengths and a
   * division per field; `firstImpact` for a word of one document.
   */
  impacts: Float32Array | undefined;
  firstImpact: number;
  impactSize: number;
  impactGeneration: number;
}

/** Calls `each` with every slot of a posting and its counts, in slot order. */
export function forEachEntry(posting: Posting, each: (slot: number, packed: number) => void): void {
  const slots = posting.slots;
  const counts = posting.counts;
  if (slots === undefined || counts === undefined) {
    if (posting.size === 1) each(posting.first, posting.firstCounts);
    return;
  }
  for (let i = 0; i < posting.size; i += 1) each(slots[i] as number, counts[i] as number);
}

/** A posting with no documents yet. */
export function emptyPosting(): Posting {
  return {
    size: 0,
    first: 0,
    firstCounts: 0,
    slots: undefined,
    counts: undefined,
    frequency: 0,
    frequencyGeneration: 0,
    impacts: undefined,
    firstImpact: 0,
    impactSize: 0,
    impactGeneration: 0,
  };
}

/** Adds a slot (above any it holds) and the word's counts in it to a posting. */
export function appendToPosting(posting: Posting, slot: number, packed: number): void {
  let slots = posting.slots;
  let counts = posting.counts;
  if (slots === undefined || counts === undefined) {
    if (posting.size === 0) {
      posting.first = slot;
      posting.firstCounts = packed;
      posting.size = 1;
      return;
    }
    slots = new Int32Array(4);
    counts = new Uint16Array(4);
    slots[0] = posting.first;
    counts[0] = posting.firstCounts;
  } else if (posting.size === slots.length) {
    slots = new Int32Array(posting.size * 2);
    slots.set(posting.slots as Int32Array);
    counts = new Uint16Array(posting.size * 2);
    counts.set(posting.counts as Uint16Array);
  }
  slots[posting.size] = slot;
  counts[posting.size] = packed;
  posting.slots = slots;
  posting.counts = counts;
  posting.size += 1;
}
