import SearchableMap from 'minisearch/SearchableMap';
import { type Dimension, FacetCombinations, type Filters } from './facets.js';
import { HitStore, type Shown } from './hit-store.js';
import { LEADING_CHARACTERS, leadingCode } from './leading-code.js';
import { NameOrder } from './name-order.js';
import {
  appendToPosting,
  emptyPosting,
  forEachEntry,
  MAX_COUNT,
  type Posting,
} from './postings.js';
import { isBefore, type RankKey, TopRanked } from './ranking.js';
import { SlotLanguages } from './slot-languages.js';
import { grown, Slots } from './slots.js';

export { DIMENSIONS, type Dimension } from './facets.js';
export type { Shown } from './hit-store.js';

/**
 * The search index each instance holds in memory: documents in numbered slots
 * (`Slots`), the words of four fields in postings (typed arrays, or the posting object
 * itself for a word held by one document), and MiniSearch's radix
 * tree (`SearchableMap`) as the dictionary that finds the words a query word is
 * a prefix of, or one edit away from. MiniSearch's own search was measured at
 * 30 to 70 ms a query on 100,000 resources, because it scores every match into
 * an object of its own; these postings score into two arrays (see docs/search.md).
 * This module matches and scores (BM25); the name order (`NameOrder`), the
 * facet dimensions (`FacetCombinations`) and what a hit shows (`HitStore`) are
 * parts it composes.
 */

export const FIELDS = ['label', 'identifier', 'mappings', 'description'] as const;
export type Field = (typeof FIELDS)[number];

/** Label above identifiers above mapping targets above description. */
export const FIELD_WEIGHTS: Readonly<Record<Field, number>> = {
  label: 4,
  identifier: 3,
  mappings: 2,
  description: 1,
};

/** BM25's term-frequency saturation and length normalization. */
const K1 = 1.2;
const B = 0.75;
/** A word matched only as one edit away counts this much. */
const TYPO_WEIGHT = 0.5;
/** Words shorter than this, or with digits (codes), must be typed right. */
const TYPO_MIN_LENGTH = 5;

const FIELD_COUNT = FIELDS.length;
const WEIGHTS = FIELDS.map((field) => FIELD_WEIGHTS[field]);

/** Everything a hit shows that the index holds. */
export interface HitFacts {
  shown: Shown;
  family: string;
  status: string;
  library: string | undefined;
  types: readonly string[];
}

export interface IndexedDocument {
  /** The resource's id. */
  id: number;
  /** Its label as `foldedName` gives it: for exact and prefix matches and ties. */
  name: string;
  family: string;
  /** The library it is defined in (a value's: its picklist's), if any. */
  library: string | undefined;
  status: string;
  /** The standard RDF classes it is an instance of, which a hit lists. */
  types: readonly string[];
  /** The languages it has labels in, lower case, with their prefixes (`languageKeys`). */
  languages: readonly string[];
  /** Each field's words, as `wordsOf` makes them. */
  words: Readonly<Record<Field, readonly string[]>>;
  /** What its hit shows. */
  shown: Shown;
}

export interface IndexQuery {
  /** The query's words (`queryWords`); none lists everything the filters let through. */
  words: readonly string[];
  /** The whole query as `foldedName` gives it, for exact and prefix label matches. */
  phrase: string;
  filters: Filters;
  /** Only documents with a label in one of these (lower-case BCP 47 tags); none: any. */
  languages?: ReadonlySet<string>;
  /** Count the languages of what the reader may see among the matches (`IndexAnswer.languages`). */
  countLanguages?: boolean;
  limit: number;
  after: RankKey | undefined;
}

export interface IndexAnswer {
  hits: RankKey[];
  /** Every match the filters let through (exact: every match is visited). */
  total: number;
  /** For each dimension, the matches of the words and of the other dimensions' filters, by value. */
  facets: Record<Dimension, Map<string, number>>;
  /** With `countLanguages`, how many of the matches the filters allow have labels in each language. */
  languages: Map<string, number>;
  /** Set when there is a page after this one. */
  next: RankKey | undefined;
  /** The statistics the scores were computed with; a cursor carries it. */
  generation: number;
}

/** Collection statistics, frozen so that a score does not move when other resources change. */
interface Statistics {
  generation: number;
  documents: number;
  averageLengths: Float64Array;
}

export class MemoryIndex {
  private readonly dictionary = new SearchableMap<Posting>();
  private readonly slots = new Slots();
  private readonly order = new NameOrder(this.slots);
  private readonly facets = new FacetCombinations();
  private readonly hits = new HitStore();
  private readonly languages = new SlotLanguages();
  /** Each slot's combination of facet values. */
  private combinationOf = new Int32Array(1024);
  private lengths = new Uint16Array(1024 * FIELD_COUNT);
  /**
   * BM25's length normalization (`K1 * norm`) under the frozen average lengths,
   * for each field and each length up to `normStride - 1`: a match looks its
   * slot's field length up here rather than dividing, and a freeze redoes this
   * small table rather than a number per resource.
   */
  private norms = new Float64Array(0);
  private normStride = 0;
  private readonly totalLengths = new Float64Array(FIELD_COUNT);
  private statistics: Statistics = {
    generation: 0,
    documents: 0,
    averageLengths: new Float64Array(FIELD_COUNT).fill(1),
  };
  /** Documents added or removed since the statistics were frozen. */
  private changesSinceFreeze = 0;
  // Per-query scratch, as long as the slots.
  private scores = new Float64Array(1024);
  private matched = new Uint8Array(1024);

  get size(): number {
    return this.slots.live;
  }

  /** Adds a document, replacing the one with its id. */
  put(document: IndexedDocument): void {
    this.remove(document.id);
    const slot = this.slots.add(document.id, document.name, leadingCode(document.name));
    this.ensureCapacity(this.slots.count);
    this.hits.put(slot, document.shown, document.types);
    this.combinationOf[slot] = this.facets.add({
      family: document.family,
      library: document.library ?? '',
      status: document.status,
    });
    this.languages.set(slot, document.languages, this.combinationOf[slot] as number);
    this.changesSinceFreeze += 1;
    const counts = new Map<string, number>();
    FIELDS.forEach((field, f) => {
      const words = document.words[field];
      const length = Math.min(words.length, 0xffff);
      this.lengths[slot * FIELD_COUNT + f] = length;
      this.totalLengths[f] = (this.totalLengths[f] ?? 0) + length;
      for (const word of words) {
        const packed = counts.get(word) ?? 0;
        if (((packed >> (4 * f)) & MAX_COUNT) < MAX_COUNT)
          counts.set(word, packed + (1 << (4 * f)));
      }
    });
    for (let f = 0; f < FIELD_COUNT; f += 1) {
      const length = this.lengths[slot * FIELD_COUNT + f] as number;
      if (length >= this.normStride) this.tabulateNorms(length + 1);
    }
    for (const [word, packed] of counts) this.post(word, slot, packed);
  }

  /** The RDF types of the document with this id, as it was put. */
  typesOf(id: number): readonly string[] {
    const slot = this.slots.slotOf(id);
    return slot === undefined ? [] : this.hits.typesOf(slot);
  }

  /** What the hit of the document with this id shows, as it was put. */
  hitOf(id: number): HitFacts | undefined {
    const slot = this.slots.slotOf(id);
    const shown = slot === undefined ? undefined : this.hits.shownOf(slot);
    if (slot === undefined || shown === undefined) return undefined;
    const combination = this.combinationOf[slot] as number;
    return {
      shown,
      family: this.facets.valueOf(combination, 'family') as string,
      status: this.facets.valueOf(combination, 'status') as string,
      // A value's library is its picklist's (see `IndexedDocument.library`).
      library: this.facets.valueOf(combination, 'library'),
      types: this.hits.typesOf(slot),
    };
  }

  /** Removes the document with this id, if there is one. */
  remove(id: number): void {
    const slot = this.slots.remove(id);
    if (slot === undefined) return;
    this.facets.drop(this.combinationOf[slot] as number);
    this.hits.drop(slot);
    this.languages.drop(slot);
    // The name stays: the name order still holds the slot, and is searched by name.
    for (let f = 0; f < FIELD_COUNT; f += 1)
      this.totalLengths[f] =
        (this.totalLengths[f] ?? 0) - (this.lengths[slot * FIELD_COUNT + f] ?? 0);
    this.changesSinceFreeze += 1;
    // Removed slots stay in the postings until a tenth of all are dead.
    if (this.slots.dead > 1000 && this.slots.dead > this.slots.live / 10) this.compact();
  }

  /**
   * Freezes the collection statistics anew when the documents changed by more
   * than `fraction` since the last time (of `floor` documents at least, so a
   * small index is not frozen anew on every write), or when there were none. Scores, and
   * so the order of results, stay put between freezes, whatever else is written.
   */
  freezeStatistics(fraction = 0.01, floor = 1000): void {
    const documents = this.slots.live;
    if (
      this.statistics.generation > 0 &&
      this.changesSinceFreeze <= fraction * Math.max(documents, floor)
    )
      return;
    this.statistics = {
      generation: this.statistics.generation + 1,
      documents,
      averageLengths: Float64Array.from(this.totalLengths, (total) =>
        Math.max(1, total / Math.max(1, documents)),
      ),
    };
    this.changesSinceFreeze = 0;
    this.tabulateNorms(this.normStride);
    this.order.merge();
  }

  /** Fills `norms` for lengths below `lengths` at least (rounded up to a power of two). */
  private tabulateNorms(lengths: number): void {
    let stride = 64;
    while (stride < lengths) stride *= 2;
    const averageLengths = this.statistics.averageLengths;
    const norms = new Float64Array(stride * FIELD_COUNT);
    for (let f = 0; f < FIELD_COUNT; f += 1)
      for (let length = 0; length < stride; length += 1)
        norms[f * stride + length] = K1 * (1 - B + (B * length) / (averageLengths[f] as number));
    this.norms = norms;
    this.normStride = stride;
  }

  search(query: IndexQuery): IndexAnswer {
    if (this.statistics.generation === 0) this.freezeStatistics();
    const allowed = this.facets.allowed(query.filters);
    // A language filter acts before counting, as the words do: facets and the
    // total count only documents with a label in one of the languages.
    const inLanguage =
      query.languages && query.languages.size > 0
        ? this.languages.filter(query.languages)
        : undefined;
    const page = new TopRanked(query.limit + 1);
    // The languages of what the reader may see among the matches, the
    // language filter aside (so that ticking one shows what another would add).
    const languageTally = query.countLanguages ? this.languages.tally() : undefined;
    // The hot loop: every match passes here, so it reads typed arrays held in
    // locals and compares numbers before it ever compares a name.
    const combinationOf = this.combinationOf;
    const matches = new Int32Array(this.facets.size);
    const { names, ids } = this.slots;
    const after = query.after;
    /** Offers a match the filters let through to the page. */
    const offer = (slot: number, tier: number, score: number) => {
      if (after !== undefined) {
        if (tier < after.tier) return;
        if (tier === after.tier) {
          if (score > after.score) return;
          if (
            score === after.score &&
            !isBefore(after, tier, score, names[slot] as string, ids[slot] as number)
          )
            return;
        }
      }
      const worst = page.worst;
      if (worst !== undefined) {
        if (tier > worst.tier) return;
        if (tier === worst.tier) {
          if (score < worst.score) return;
          if (score === worst.score) {
            const name = names[slot] as string;
            if (name > worst.name || (name === worst.name && (ids[slot] as number) >= worst.id))
              return;
          }
        }
      }
      page.offer({ tier, score, name: names[slot] as string, id: ids[slot] as number });
    };
    if (query.words.length === 0) {
      // Every live document matches: the counts per combination are kept on
      // every write. The page comes from the front of the name order, stopping
      // once it is full, then from the slots added since it was sorted.
      if (languageTally)
        for (let combination = 0; combination < allowed.length; combination += 1)
          if (allowed[combination] === 1) languageTally.addCombination(combination);
      if (inLanguage === undefined) matches.set(this.facets.live);
      else
        for (let slot = 0; slot < this.slots.count; slot += 1)
          if (ids[slot] !== -1 && inLanguage(slot)) {
            const combination = combinationOf[slot] as number;
            matches[combination] = (matches[combination] as number) + 1;
          }
      const sorted = this.order.sorted;
      const wanted = query.limit + 1;
      let offered = 0;
      for (
        let i = after ? this.order.firstAfter(after) : 0;
        i < sorted.length && offered < wanted;
        i += 1
      ) {
        const slot = sorted[i] as number;
        if (ids[slot] === -1 || allowed[combinationOf[slot] as number] !== 1) continue;
        if (inLanguage !== undefined && !inLanguage(slot)) continue;
        page.offer({ tier: 0, score: 0, name: names[slot] as string, id: ids[slot] as number });
        offered += 1;
      }
      for (let slot = this.order.sortedFrom; slot < this.slots.count; slot += 1)
        if (
          ids[slot] !== -1 &&
          allowed[combinationOf[slot] as number] === 1 &&
          (inLanguage === undefined || inLanguage(slot))
        )
          offer(slot, 0, 0);
    } else {
      const phrase = query.phrase;
      const leading = this.slots.leading;
      // Only as many of the four packed characters as the phrase has are compared.
      const shift = 8 * Math.max(0, LEADING_CHARACTERS - phrase.length);
      const phraseLeading = leadingCode(phrase);
      // Sorted slots whose name starts with the phrase are marked from the name
      // order; only a slot added since the sort has its name read.
      const marked = this.order.markLeadingTiers(phrase);
      const tierMarks = this.order.tierMarks;
      const sortedFrom = this.order.sortedFrom;
      const onMatch = (slot: number, score: number) => {
        const combination = combinationOf[slot] as number;
        matches[combination] = (matches[combination] as number) + 1;
        if (allowed[combination] !== 1) return;
        languageTally?.add(slot);
        let tier = 2;
        if (slot < sortedFrom) {
          const mark = tierMarks[slot] as number;
          if (mark !== 0) tier = mark - 1;
        } else if (
          shift === 32 ||
          (leading[slot] as number) >>> shift === phraseLeading >>> shift
        ) {
          const name = names[slot] as string;
          tier = name === phrase ? 0 : name.startsWith(phrase) ? 1 : 2;
        }
        offer(slot, tier, score);
      };
      // Without a language filter the matches go straight on, as they always did.
      this.match(
        query.words,
        inLanguage === undefined
          ? onMatch
          : (slot, score) => {
              if (inLanguage(slot)) onMatch(slot, score);
              else if (languageTally && allowed[combinationOf[slot] as number] === 1)
                languageTally.add(slot);
            },
      );
      this.order.unmark(marked);
    }
    const { total, facets } = this.facets.counts(matches, query.filters);
    const hits = page.sorted();
    const more = hits.length > query.limit;
    if (more) hits.length = query.limit;
    return {
      hits,
      total,
      facets,
      languages: languageTally ? languageTally.counts() : new Map(),
      next: more ? hits[hits.length - 1] : undefined,
      generation: this.statistics.generation,
    };
  }

  /**
   * Calls `found` with each live slot that has every word (as itself, as a
   * prefix, or one edit away) in any field, and its score: BM25 of each term a
   * word stands for, by field weight, times the term's weight for the word
   * (a completion a little less than the word, a typo half), all summed.
   */
  private match(words: readonly string[], found: (slot: number, score: number) => void): void {
    const ids = this.slots.ids;
    // The rarest word first: its matches bound the candidates.
    const expanded = words.map((word) => this.expand(word)).sort((a, b) => a.postings - b.postings);
    const only = expanded.length === 1 ? expanded[0]?.terms : undefined;
    if (only?.length === 1) {
      // One word standing for one term: each slot comes once, so it is found
      // as it is read, with no scores to add up and no second pass.
      const [, weight, posting] = only[0] as [string, number, Posting];
      const factor = weight * this.idfOf(posting) * (K1 + 1);
      const impacts = this.impactsOf(posting);
      const slots = posting.slots;
      if (slots === undefined || impacts === undefined) {
        if (posting.size === 1 && ids[posting.first] !== -1)
          found(posting.first, factor * posting.firstImpact);
        return;
      }
      const size = posting.size;
      for (let i = 0; i < size; i += 1) {
        const slot = slots[i] as number;
        if (ids[slot] !== -1) found(slot, factor * (impacts[i] as number));
      }
      return;
    }
    const scores = this.scores;
    const matched = this.matched;
    const candidates: number[] = [];
    if (expanded.length === 1) {
      // One word standing for several terms (a prefix of `pump` and `pumpe`,
      // a name in several languages): every slot read is a match, so only the
      // scores are added up; a slot is new while its score is 0 (each term's
      // share is above 0), with no second array to keep.
      for (const [, weight, posting] of expanded[0]?.terms ?? []) {
        const factor = weight * this.idfOf(posting) * (K1 + 1);
        const impacts = this.impactsOf(posting);
        const slots = posting.slots;
        if (slots === undefined || impacts === undefined) {
          const slot = posting.first;
          if (posting.size !== 1 || ids[slot] === -1) continue;
          if (scores[slot] === 0) candidates.push(slot);
          scores[slot] = (scores[slot] as number) + factor * posting.firstImpact;
          continue;
        }
        const size = posting.size;
        for (let i = 0; i < size; i += 1) {
          const slot = slots[i] as number;
          if (ids[slot] === -1) continue;
          const score = scores[slot] as number;
          if (score === 0) candidates.push(slot);
          scores[slot] = score + factor * (impacts[i] as number);
        }
      }
      for (const slot of candidates) {
        found(slot, scores[slot] as number);
        scores[slot] = 0;
      }
      return;
    }
    expanded.forEach((word, w) => {
      for (const [, weight, posting] of word.terms) {
        const factor = weight * this.idfOf(posting) * (K1 + 1);
        const impacts = this.impactsOf(posting);
        const slots = posting.slots;
        if (slots === undefined || impacts === undefined) {
          if (posting.size === 1) {
            const slot = posting.first;
            const seen = matched[slot] as number;
            if (w === 0) {
              if (ids[slot] === -1) continue;
              if (seen === 0) candidates.push(slot);
            } else if (seen !== w && seen !== w + 1) continue;
            scores[slot] = (scores[slot] as number) + factor * posting.firstImpact;
            matched[slot] = w + 1;
          }
          continue;
        }
        const size = posting.size;
        for (let i = 0; i < size; i += 1) {
          const slot = slots[i] as number;
          const seen = matched[slot] as number;
          // A slot stays a candidate only while it has every word so far.
          if (w === 0) {
            if (ids[slot] === -1) continue;
            if (seen === 0) candidates.push(slot);
          } else if (seen !== w && seen !== w + 1) continue;
          scores[slot] = (scores[slot] as number) + factor * (impacts[i] as number);
          matched[slot] = w + 1;
        }
      }
    });
    for (const slot of candidates) {
      if (matched[slot] === expanded.length) found(slot, scores[slot] as number);
      matched[slot] = 0;
      scores[slot] = 0;
    }
  }

  /** BM25's inverse document frequency of the posting's word under the current statistics. */
  private idfOf(posting: Posting): number {
    const documents = Math.max(1, this.statistics.documents);
    // A word new since the freeze counts as often as it is now.
    const frequency = Math.min(Math.max(1, this.frequencyOf(posting)), documents);
    return Math.log(1 + (documents - frequency + 0.5) / (frequency + 0.5));
  }

  /** The posting's impacts under the current statistics (see `Posting.impacts`). */
  private impactsOf(posting: Posting): Float32Array | undefined {
    const generation = this.statistics.generation;
    if (posting.impactGeneration !== generation) {
      posting.impactGeneration = generation;
      posting.impactSize = 0;
    }
    if (posting.impactSize === posting.size) return posting.impacts;
    const slots = posting.slots;
    const counts = posting.counts;
    if (slots === undefined || counts === undefined) {
      // Rounded as the array rounds it, so the score stays put when a second document comes.
      posting.firstImpact = Math.fround(this.impact(posting.first, posting.firstCounts));
    } else {
      let impacts = posting.impacts;
      // A word of one document that gained a second has no impacts array yet.
      let from = impacts === undefined ? 0 : posting.impactSize;
      if (impacts === undefined || impacts.length < slots.length) {
        const grown = new Float32Array(slots.length);
        if (impacts !== undefined) grown.set(impacts.subarray(0, from));
        else from = 0;
        impacts = grown;
        posting.impacts = impacts;
      }
      for (let i = from; i < posting.size; i += 1)
        impacts[i] = this.impact(slots[i] as number, counts[i] as number);
    }
    posting.impactSize = posting.size;
    return posting.impacts;
  }

  /** A word's BM25 weight in a slot, from its packed counts per field, before its idf. */
  private impact(slot: number, packed: number): number {
    const norms = this.norms;
    const stride = this.normStride;
    const lengths = this.lengths;
    let impact = 0;
    for (let f = 0; f < FIELD_COUNT; f += 1) {
      const count = (packed >> (4 * f)) & MAX_COUNT;
      if (count === 0) continue;
      impact +=
        ((WEIGHTS[f] as number) * count) /
        (count + (norms[f * stride + (lengths[slot * FIELD_COUNT + f] as number)] as number));
    }
    return impact;
  }

  /** The word's document frequency under the current statistics (see `Posting.frequency`). */
  private frequencyOf(posting: Posting): number {
    const generation = this.statistics.generation;
    if (posting.frequencyGeneration !== generation) {
      const ids = this.slots.ids;
      let live = 0;
      forEachEntry(posting, (slot) => {
        if (ids[slot] !== -1) live += 1;
      });
      posting.frequency = live;
      posting.frequencyGeneration = generation;
    }
    return posting.frequency;
  }

  /** The terms a query word stands for, with their weights and postings. */
  private expand(word: string) {
    const terms: [string, number, Posting][] = [];
    let postings = 0;
    for (const [term, posting] of this.dictionary.atPrefix(word).entries()) {
      // A longer completion of the word counts a little less than the word itself.
      terms.push([term, term.length / (term.length + 0.3 * (term.length - word.length)), posting]);
      postings += posting.size;
    }
    if (word.length >= TYPO_MIN_LENGTH && !/\d/.test(word)) {
      for (const [term, [posting, distance]] of this.dictionary.fuzzyGet(word, 1)) {
        if (distance === 0 || term.startsWith(word) || /\d/.test(term)) continue;
        terms.push([term, TYPO_WEIGHT, posting]);
        postings += posting.size;
      }
    }
    return { terms, postings };
  }

  private post(word: string, slot: number, packed: number): void {
    appendToPosting(this.dictionary.fetch(word, emptyPosting), slot, packed);
  }

  /** Drops removed slots from the postings (slot numbers stay as they are). */
  private compact(): void {
    const emptied: string[] = [];
    for (const [word, posting] of this.dictionary.entries()) {
      const slots = posting.slots;
      const counts = posting.counts;
      if (slots === undefined || counts === undefined) {
        if (this.slots.ids[posting.first] === -1) emptied.push(word);
        continue;
      }
      let kept = 0;
      for (let i = 0; i < posting.size; i += 1) {
        const slot = slots[i] as number;
        if (this.slots.ids[slot] === -1) continue;
        slots[kept] = slot;
        counts[kept] = counts[i] as number;
        kept += 1;
      }
      posting.size = kept;
      // Slots moved: their impacts are worked out anew when next needed.
      posting.impactSize = 0;
      if (kept === 0) emptied.push(word);
    }
    for (const word of emptied) this.dictionary.delete(word);
    this.slots.dead = 0;
  }

  /** Grows the per-slot arrays this module keeps to hold `slots` slots. */
  private ensureCapacity(slots: number): void {
    this.lengths = grown(this.lengths, slots * FIELD_COUNT, (n) => new Uint16Array(n));
    this.combinationOf = grown(this.combinationOf, slots, (n) => new Int32Array(n));
    this.scores = grown(this.scores, slots, (n) => new Float64Array(n));
    this.matched = grown(this.matched, slots, (n) => new Uint8Array(n));
  }
}
