import type { Static, TObject } from '@sinclair/typebox';
import type { FieldError } from '../../platform/http/problem.js';
import type { Catalogues } from '../catalogues/catalogues.js';
import type { Status } from '../db/tables.js';

/** What a rule may ask about another resource. */
export interface ReferencedResource {
  iri: string;
  family: FamilyKey;
  status: Status;
  body: Record<string, unknown>;
}

export interface RuleContext {
  /** The base of minted IRIs. */
  iriBase: string;
  /** Another stored resource, by IRI; undefined when there is none. */
  find(iri: string): Promise<ReferencedResource | undefined>;
  /** The IRI of the resource being updated (undefined on create). */
  self: string | undefined;
  /** External catalogues mappings are checked against. */
  catalogues: Catalogues;
}

export const FAMILY_KEYS = [
  'library',
  'class',
  'property',
  'cfihos-entity',
  'picklist',
  'picklist-value',
  'unit',
  'dimension',
  'imf-attribute',
  'imf-terminal',
  'imf-block',
  'symbol',
] as const;
export type FamilyKey = (typeof FAMILY_KEYS)[number];

/** A value a picklist aggregate owns; `id` is the IRI of an existing one. */
export interface OwnedValue {
  id?: string;
  name: string;
  description: string;
}

/**
 * One resource family: its write route, its request model, how its IRIs are
 * made, and its domain rules. The generic routes, storage and lifecycle work
 * from this alone, so adding a family is one module and a registry line.
 */
export interface Family<Schema extends TObject = TObject> {
  key: FamilyKey;
  /** Write route, as the spec names it. */
  route: string;
  /** Human name for messages ("reference-data class"). */
  label: string;
  schema: Schema;
  /** A new IRI for a new resource of this family. */
  mintIri(body: Static<Schema>, context: RuleContext): Promise<string> | string;
  /** The library whose names must be unique, '' when names are unique family-wide. */
  libraryKey(body: Static<Schema>): string;
  /** The aggregate a resource belongs to (a picklist value's picklist). */
  parentIri?(body: Static<Schema>): string | undefined;
  /**
   * Fields fixed once the resource exists, each with why: part of its IRI, or
   * its place (a value's picklist). `ontology` is fixed for every family. A PUT
   * that leaves one out keeps it; one that changes it is refused.
   */
  fixed?: Readonly<Record<string, string>>;
  /**
   * Fills in what a body may leave to the service (a library's path, a value's
   * library), before the rules run; on update `context.self` is set.
   */
  complete?(body: Static<Schema>, context: RuleContext): Promise<Static<Schema>> | Static<Schema>;
  /** Rules beyond the schema, each failure naming its field. */
  rules(body: Static<Schema>, context: RuleContext): Promise<FieldError[]>;
  /** The family's read route has its own handler (symbols are also listed there). */
  ownReadRoute?: boolean;
  /** Values a picklist aggregate owns, to be created, updated or removed with it. */
  ownedValues?(body: Static<Schema>): OwnedValue[] | undefined;
}

/** Helps keep each family's types while the registry holds them all. */
export function defineFamily<Schema extends TObject>(family: Family<Schema>): Family<Schema> {
  return family;
}
