/**
 * The facet dimensions of the index: each document's values, held as one small
 * number (its combination), and the totals and facet counts worked out from the
 * matches per combination. There are far fewer combinations than matches, so
 * the hot loop only counts a match under its combination; everything per value
 * happens here, once per query, in a loop over the declared dimensions.
 */

import { Codes } from './codes.js';

/** The dimensions a search filters and counts by. */
export const DIMENSIONS = ['family', 'library', 'status'] as const;
export type Dimension = (typeof DIMENSIONS)[number];

/** Per dimension, the values a query lets through; a dimension left out lets all through. */
export type Filters = Partial<Record<Dimension, ReadonlySet<string>>>;

/** A document's value of each dimension; '' when it has none (a term outside every library). */
export type FacetValues = Readonly<Record<Dimension, string>>;

/** What no facet lists: the value of a document without one. */
const NO_VALUE = '';

/** Per dimension, each value code: 1 when the filters let it through; undefined when not filtered. */
type AllowedCodes = (Uint8Array | undefined)[];

export class FacetCombinations {
  private readonly codes = DIMENSIONS.map(() => new Codes());
  private readonly byKey = new Map<string, number>();
  /** Per dimension, each combination's value code. */
  private readonly valueCodes: number[][] = DIMENSIONS.map(() => []);
  /** Live documents per combination, kept on every write (a listing without words counts from it). */
  readonly live: number[] = [];

  get size(): number {
    return this.live.length;
  }

  /** The combination of these values, numbered on first sight; counted live. */
  add(values: FacetValues): number {
    const codes = DIMENSIONS.map((dimension, d) =>
      (this.codes[d] as Codes).code(values[dimension]),
    );
    const key = codes.join(' ');
    let combination = this.byKey.get(key);
    if (combination === undefined) {
      combination = this.live.length;
      this.byKey.set(key, combination);
      codes.forEach((code, d) => {
        this.valueCodes[d]?.push(code);
      });
      this.live.push(0);
    }
    this.live[combination] = (this.live[combination] as number) + 1;
    return combination;
  }

  /** A document of this combination is gone. */
  drop(combination: number): void {
    this.live[combination] = (this.live[combination] as number) - 1;
  }

  /** The combination's value of a dimension; undefined for none. */
  valueOf(combination: number, dimension: Dimension): string | undefined {
    const d = DIMENSIONS.indexOf(dimension);
    const value = this.codes[d]?.values[this.valueCodes[d]?.[combination] as number];
    return value === NO_VALUE ? undefined : value;
  }

  /** Per combination, 1 when every filter lets it through. */
  allowed(filters: Filters): Uint8Array {
    const allowedCodes = this.allowedCodes(filters);
    const allowed = new Uint8Array(this.size);
    for (let combination = 0; combination < this.size; combination += 1)
      if (this.failedDimensions(allowedCodes, combination) === 0) allowed[combination] = 1;
    return allowed;
  }

  /**
   * The total and the facets from the matches per combination: a match counts
   * in the total when every filter lets it through, and under a dimension's
   * value when the other dimensions' filters do.
   */
  counts(
    matches: Int32Array,
    filters: Filters,
  ): { total: number; facets: Record<Dimension, Map<string, number>> } {
    const allowedCodes = this.allowedCodes(filters);
    const counts = this.codes.map((codes) => new Int32Array(codes.values.length));
    let total = 0;
    matches.forEach((count, combination) => {
      if (count === 0) return;
      const failed = this.failedDimensions(allowedCodes, combination);
      if (failed === 0) total += count;
      DIMENSIONS.forEach((_dimension, d) => {
        // Let through by the filters of every other dimension (its own may refuse it).
        if ((failed & ~(1 << d)) !== 0) return;
        const code = this.valueCodes[d]?.[combination] as number;
        const byCode = counts[d] as Int32Array;
        byCode[code] = (byCode[code] as number) + count;
      });
    });
    const facets = {} as Record<Dimension, Map<string, number>>;
    DIMENSIONS.forEach((dimension, d) => {
      const values = this.codes[d]?.values ?? [];
      const facet = new Map<string, number>();
      counts[d]?.forEach((count, code) => {
        const value = values[code] as string;
        if (count > 0 && value !== NO_VALUE) facet.set(value, count);
      });
      facets[dimension] = facet;
    });
    return { total, facets };
  }

  /** A bit per dimension whose filter refuses the combination. */
  private failedDimensions(allowedCodes: AllowedCodes, combination: number): number {
    let failed = 0;
    for (let d = 0; d < DIMENSIONS.length; d += 1) {
      const allowed = allowedCodes[d];
      if (allowed !== undefined && allowed[this.valueCodes[d]?.[combination] as number] !== 1)
        failed |= 1 << d;
    }
    return failed;
  }

  private allowedCodes(filters: Filters): AllowedCodes {
    return DIMENSIONS.map((dimension, d) => {
      const values = filters[dimension];
      if (!values) return undefined;
      const codes = this.codes[d] as Codes;
      const allowed = new Uint8Array(codes.values.length);
      for (const value of values) {
        const code = codes.find(value);
        if (code !== undefined) allowed[code] = 1;
      }
      return allowed;
    });
  }
}
