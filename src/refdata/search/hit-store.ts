import { Codes } from './codes.js';
import { grown } from './slots.js';

/** What a hit shows of its resource, kept with it so that a page needs no database read. */
export interface Shown {
  iri: string;
  /** The label as written. */
  label: string;
  description: string | undefined;
}

/**
 * Per slot, what its hit shows: the label, description and IRI as written, and
 * its RDF types, held as one of the few distinct lists there are (a few per
 * family) rather than a list per resource.
 */
export class HitStore {
  private shown: (Shown | undefined)[] = [];
  private readonly typeLists = new Codes();
  private readonly typeListValues: (readonly string[])[] = [];
  private typeListOf = new Int32Array(1024);

  put(slot: number, shown: Shown, types: readonly string[]): void {
    if (slot >= this.typeListOf.length)
      this.typeListOf = grown(this.typeListOf, slot + 1, (n) => new Int32Array(n));
    this.shown[slot] = shown;
    const code = this.typeLists.code(types.join(' '));
    if (code === this.typeListValues.length) this.typeListValues.push([...types]);
    this.typeListOf[slot] = code;
  }

  /** The slot's document is gone: what its hit showed is let go. */
  drop(slot: number): void {
    this.shown[slot] = undefined;
  }

  shownOf(slot: number): Shown | undefined {
    return this.shown[slot];
  }

  typesOf(slot: number): readonly string[] {
    return this.typeListValues[this.typeListOf[slot] as number] ?? [];
  }
}
