/** Small numbers for the values of a dimension, and for each document's combination of them. */

/** Interned values of a dimension, so a slot holds a small number. */
export class Codes {
  private readonly byValue = new Map<string, number>();
  readonly values: string[] = [];
  code(value: string): number {
    let code = this.byValue.get(value);
    if (code === undefined) {
      code = this.values.length;
      this.values.push(value);
      this.byValue.set(value, code);
    }
    return code;
  }
  find(value: string): number | undefined {
    return this.byValue.get(value);
  }
}

/** Families and statuses are few: a combination's key packs them below the library's code. */
const COMBINATION_BASE = 4096;

/**
 * The combinations of family, library and status the documents have, numbered:
 * a slot holds one number instead of three, a match is counted under its
 * combination, and the totals and facets are worked out from the counts per
 * combination at the end (there are far fewer combinations than matches).
 */
export class Combinations {
  private readonly byKey = new Map<number, number>();
  readonly family: number[] = [];
  readonly library: number[] = [];
  readonly status: number[] = [];
  /** Live documents per combination. */
  readonly live: number[] = [];

  code(family: number, library: number, status: number): number {
    const key = family + COMBINATION_BASE * (status + COMBINATION_BASE * library);
    let code = this.byKey.get(key);
    if (code === undefined) {
      code = this.live.length;
      this.byKey.set(key, code);
      this.family.push(family);
      this.library.push(library);
      this.status.push(status);
      this.live.push(0);
    }
    return code;
  }

  get size(): number {
    return this.live.length;
  }
}
