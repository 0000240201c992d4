import type { FamilyKey } from '../families/family.js';

/** Where a report line points: the file (and sheet), the record's line, and a column counted from 1. */
export interface SourcePlace {
  source: string;
  line: number;
  column?: number;
}

/** Something a record says that cannot be imported, at the column it is in. */
export interface RecordProblem {
  column?: number;
  message: string;
}

/**
 * A record folded into a resource: a class's property row, a picklist's value,
 * a tag class's equipment class. It adds the entry at `pointer` of the
 * resource's list `field`; refused on its own, it is left out and the resource
 * goes on without it.
 */
export interface ImportPart {
  from: SourcePlace;
  /** The body's list this part adds to ('propertyReferences'). */
  field: string;
  /** The entry it adds (an object, or an IRI for a list of IRIs). */
  value: unknown;
  /** The column of what it names (a property's code), where a rule's refusal points. */
  column?: number;
  /** The resource it names, whose own refusal explains its own. */
  names?: string;
  /** For a value of an aggregate, the value's own IRI and family. */
  iri?: string;
  family?: FamilyKey;
  /** Columns the record fills that the model has no place for. */
  notKept: string[];
  problems: RecordProblem[];
  /** Why a part was left out when a part of an earlier record said the same. */
  duplicateOf?: SourcePlace;
}

/**
 * A resource an import makes from one record (or a few, for a picklist with
 * its values): its stable IRI, the write body the API would take (without
 * `changeJustification`, which the import gives), where it came from, and
 * which column each body field was read from, so that a rule's message points
 * at the cell.
 */
export interface ImportItem {
  iri: string;
  family: FamilyKey;
  name: string;
  body: Record<string, unknown>;
  from: SourcePlace;
  /** Column (from 1) a body field came from, by its top-level pointer ('/range'). */
  columns: Record<string, number>;
  notKept: string[];
  /** Problems found while reading the record, before any rule: the item is refused. */
  problems: RecordProblem[];
  parts: ImportPart[];
  /**
   * Its code column held its IRI itself rather than a code: only a resource
   * already stored in the library may be named so (a new one's IRI is made
   * from a code, as the API mints one).
   */
  givenIri: boolean;
}

/** The order families are written in: what a resource names exists before it. */
export const FAMILY_ORDER: readonly FamilyKey[] = [
  'dimension',
  'unit',
  'picklist',
  'property',
  'cfihos-entity',
];
