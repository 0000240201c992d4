/** The order of search hits, and the page kept while the matches are visited. */

/** Where a hit stands: tier (0 exact label, 1 label starting with the query, 2 other), score, name, id. */
export interface RankKey {
  tier: number;
  score: number;
  name: string;
  id: number;
}

/** a before b in the results' order. */
function ranksBefore(a: RankKey, b: RankKey): boolean {
  return isBefore(a, b.tier, b.score, b.name, b.id);
}

/** `ranksBefore` against a key given by its parts, so a match that goes nowhere makes no object. */
export function isBefore(
  a: RankKey,
  tier: number,
  score: number,
  name: string,
  id: number,
): boolean {
  if (a.tier !== tier) return a.tier < tier;
  if (a.score !== score) return a.score > score;
  if (a.name !== name) return a.name < name;
  return a.id < id;
}

/** The best `size` keys offered, kept in order (a page is small: insertion beats a heap). */
export class TopRanked {
  private readonly keys: RankKey[] = [];
  constructor(private readonly size: number) {}

  /** The last key kept, once the page is full: anything not before it is not kept. */
  get worst(): RankKey | undefined {
    return this.keys.length === this.size ? this.keys[this.keys.length - 1] : undefined;
  }

  offer(key: RankKey): void {
    const keys = this.keys;
    if (keys.length === this.size && !ranksBefore(key, keys[keys.length - 1] as RankKey)) return;
    let at = keys.length;
    while (at > 0 && ranksBefore(key, keys[at - 1] as RankKey)) at -= 1;
    keys.splice(at, 0, key);
    if (keys.length > this.size) keys.pop();
  }

  sorted(): RankKey[] {
    return [...this.keys];
  }
}
