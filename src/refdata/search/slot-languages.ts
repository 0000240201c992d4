import { Codes } from './codes.js';
import { grown } from './slots.js';

/** The first languages seen are a bit of each slot's mask; the rest are listed per slot. */
const MASK_BITS = 32;

/**
 * The languages each slot's document has labels in (`IndexedDocument.languages`:
 * lower-case BCP 47 tags and their prefixes, so `de` finds `de-CH`), for a
 * search filtered by language, and how many live documents have each.
 *
 * A slot holds a 32-bit mask of the first 32 languages seen (four bytes a
 * document, where a set per language would hold every slot of the common
 * one); a document in a rarer language lists it beside.
 */
export class SlotLanguages {
  private readonly codes = new Codes();
  private masks = new Uint32Array(1024);
  private readonly rare = new Map<number, number[]>();
  private readonly live: number[] = [];
  /**
   * Live documents per language, per facet combination (family, library,
   * status): what a search with no words counts from, only the combinations
   * its filters (and the reader's statuses) allow.
   */
  private readonly liveIn = new Map<number, number[]>();
  /** Each slot's combination, plus one (0: none). */
  private combinationOf = new Uint32Array(1024);

  /** Records the languages of a new slot, in its facet combination. */
  set(slot: number, languages: readonly string[], combination: number): void {
    this.masks = grown(this.masks, slot + 1, (n) => new Uint32Array(n));
    let mask = 0;
    const rare: number[] = [];
    for (const language of languages) {
      const code = this.codes.code(language);
      // A language listed twice counts once.
      if (code < MASK_BITS) {
        if ((mask & (1 << code)) !== 0) continue;
        mask |= 1 << code;
      } else {
        if (rare.includes(code)) continue;
        rare.push(code);
      }
      this.live[code] = (this.live[code] ?? 0) + 1;
    }
    this.masks[slot] = mask >>> 0;
    if (rare.length > 0) this.rare.set(slot, rare);
    this.combinationOf = grown(this.combinationOf, slot + 1, (n) => new Uint32Array(n));
    this.combinationOf[slot] = combination + 1;
    const within = this.liveIn.get(combination) ?? [];
    this.liveIn.set(combination, within);
    this.eachCode(slot, (code) => {
      within[code] = (within[code] ?? 0) + 1;
    });
  }

  /** Calls `each` with the code of every language the slot has labels in. */
  private eachCode(slot: number, each: (code: number) => void): void {
    let mask = this.masks[slot] ?? 0;
    while (mask !== 0) {
      const lowest = mask & -mask;
      each(31 - Math.clz32(lowest));
      mask ^= lowest;
    }
    for (const code of this.rare.get(slot) ?? []) each(code);
  }

  /** A slot's document is gone: it no longer counts. */
  drop(slot: number): void {
    const combination = (this.combinationOf[slot] ?? 0) - 1;
    const within = this.liveIn.get(combination);
    if (within)
      this.eachCode(slot, (code) => {
        within[code] = (within[code] ?? 1) - 1;
      });
    this.combinationOf[slot] = 0;
    const mask = this.masks[slot] ?? 0;
    for (let code = 0; code < MASK_BITS; code += 1)
      if ((mask & (1 << code)) !== 0) this.live[code] = (this.live[code] ?? 1) - 1;
    for (const code of this.rare.get(slot) ?? []) this.live[code] = (this.live[code] ?? 1) - 1;
    this.masks[slot] = 0;
    this.rare.delete(slot);
  }

  /**
   * Whether a slot has a label in one of `languages` (lower-case tags), as a
   * test for the search's hot loop; languages nobody has match no slot.
   */
  filter(languages: ReadonlySet<string>): (slot: number) => boolean {
    let mask = 0;
    const rare = new Set<number>();
    for (const language of languages) {
      const code = this.codes.find(language);
      if (code === undefined) continue;
      if (code < MASK_BITS) mask |= 1 << code;
      else rare.add(code);
    }
    const masks = this.masks;
    if (rare.size === 0) return (slot) => ((masks[slot] as number) & mask) !== 0;
    return (slot) =>
      ((masks[slot] as number) & mask) !== 0 ||
      (this.rare.get(slot)?.some((code) => rare.has(code)) ?? false);
  }

  /** How many live documents have labels in each language. */
  counts(): Map<string, number> {
    return this.named(this.live);
  }

  /**
   * A tally of the languages of the documents a search counts: `add` each
   * matching slot, or `addCombination` for every live document of a
   * combination at once; `counts` names them.
   */
  tally(): {
    add(slot: number): void;
    addCombination(combination: number): void;
    counts(): Map<string, number>;
  } {
    // One counter per language seen, typed: the hot loop adds to it by index.
    const tallied = new Int32Array(this.codes.values.length);
    const masks = this.masks;
    const hasRare = this.rare.size > 0;
    return {
      add: (slot) => {
        // The hot loop's share: the bits of one mask, and the rare list only
        // when some document has a rare language.
        let mask = masks[slot] as number;
        while (mask !== 0) {
          const lowest = mask & -mask;
          const code = 31 - Math.clz32(lowest);
          tallied[code] = (tallied[code] as number) + 1;
          mask ^= lowest;
        }
        if (hasRare)
          for (const code of this.rare.get(slot) ?? [])
            tallied[code] = (tallied[code] as number) + 1;
      },
      addCombination: (combination) => {
        const within = this.liveIn.get(combination);
        if (!within) return;
        for (let code = 0; code < within.length; code += 1)
          tallied[code] = (tallied[code] as number) + (within[code] ?? 0);
      },
      counts: () => this.named(Array.from(tallied)),
    };
  }

  private named(byCode: readonly number[]): Map<string, number> {
    const counts = new Map<string, number>();
    byCode.forEach((count, code) => {
      if (count > 0) counts.set(this.codes.values[code] as string, count);
    });
    return counts;
  }
}
