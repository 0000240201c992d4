import type { Static, TObject } from '@sinclair/typebox';
import type { FieldError } from '../../platform/http/problem.js';
import type { CatalogueEntry, Catalogues } from '../catalogues/catalogues.js';
import type { Status } from '../db/tables.js';
import type { GraphBuilder } from '../rdf/graph.js';

/** What a rule may ask about another resource. */
export interface ReferencedResource {
  iri: string;
  family: FamilyKey;
  status: Status;
  body: Record<string, unknown>;
  /** The aggregate it belongs to (a picklist value's picklist), null for most. */
  parentIri: string | null;
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
  /** A family's label for messages, or the key of one no longer served. */
  labelOf(family: FamilyKey): string;
}

/**
 * A family's key ("class", "imf-block"): what the `family` column, search filters
 * and page addresses name it by. Families are open: the registry holds them.
 */
export type FamilyKey = string;

/**
 * The family of libraries: the resources every term belongs to (its `ontology`),
 * whose names are unique service-wide, which stream their terms as RDF and list
 * them on their pages. One name for the notion, wherever it is asked about.
 */
export const LIBRARY_FAMILY: FamilyKey = 'library';

/** Whether a stored resource is a library. */
export function isLibrary(resource: { family: FamilyKey }): boolean {
  return resource.family === LIBRARY_FAMILY;
}

/** A `relatedTerms` entry, as a mapping rule reads it. */
export interface RelatedTerm {
  relationType: string;
  targetLibrary: string;
  targetIdentifier: string;
  targetVersion?: string;
}

/** What is wrong with one mapping: the part of the entry it names, and why. */
export interface MappingError {
  at: '' | '/targetIdentifier' | '/relationType';
  detail: string;
}

/**
 * How a family's resources may map to one external catalogue (spec rule 4): the
 * entry kinds that fit a resource, and what else a mapping must respect.
 */
export interface CatalogueMapping<Body> {
  /** Why this resource cannot map to the catalogue at all; undefined when it can. */
  refuses?(body: Body): string | undefined;
  /** What is wrong with mapping the resource to `entry`; undefined when nothing is. */
  check(entry: CatalogueEntry, term: RelatedTerm, body: Body): MappingError | undefined;
}

/** A value an aggregate owns; `id` is the IRI of an existing one. */
export interface OwnedValue {
  id?: string;
  name: string;
  description: string;
  translations?: { language: string; name: string; description?: string }[];
  synonyms?: { language: string; label: string }[];
}

/**
 * One resource family, whole: its write route and request model, how its IRIs
 * are made, its domain rules, its RDF, what search indexes of it, and (for an
 * aggregate such as a picklist) the values it owns. Routes, storage, lifecycle,
 * search, RDF and the authoring forms work from this alone, so adding a family is
 * one module and a registry line.
 *
 * Methods are given bodies that passed `schema` (and, for `rdf` and
 * `identifiers`, bodies as they were stored after passing it).
 */
export interface Family<Schema extends TObject = TObject> {
  key: FamilyKey;
  /** Write route, as the spec names it. */
  route: string;
  /** Human name for messages ("reference-data class"). */
  label: string;
  /**
   * The request model. IRI fields that name a resource of this service carry
   * `x-refers-to` (the families they accept), which forms use to pick one.
   */
  schema: Schema;
  /**
   * Where the IRIs it mints live below the IRI base, as route patterns
   * ('/imf/*'), for dereferencing; a pattern several families share is listed by
   * any of them.
   */
  iriPaths?: readonly string[];
  /** A new IRI for a new resource of this family. */
  mintIri(body: Static<Schema>, context: RuleContext): Promise<string> | string;
  /** The library whose names must be unique, '' when names are unique family-wide. */
  libraryKey(body: Static<Schema>): string;
  /**
   * Within a library, the kind of the family's resources a name is unique
   * among ('' when among all of them): CFIHOS names a tag class and an
   * equipment class alike.
   */
  nameScope?(body: Static<Schema>): string;
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
  /**
   * Rules of this family beyond the schema and beyond what every family is
   * checked for (`families/rules.ts`: the library, `replaces`, every
   * `x-refers-to` reference, an aggregate's values, catalogue mappings,
   * definition sources), each failure naming its field.
   */
  rules?(body: Static<Schema>, context: RuleContext): Promise<FieldError[]> | FieldError[];
  /** The external catalogues (by name, as `relatedTerms` give it) its resources may map to. */
  mappings?: Readonly<Record<string, CatalogueMapping<Static<Schema>>>>;
  /** The family's read route has its own handler (symbols are also listed there). */
  ownReadRoute?: boolean;
  /**
   * An aggregate (a picklist) owns values of another family, created, updated,
   * removed and moved through the lifecycle with it.
   */
  aggregate?: {
    /** The family of the values. */
    valueFamily: FamilyKey;
    /**
     * The body field that lists them (an `ownedValues` array); reads, revisions
     * and forms list the values under it. Left out of a write, the values stay
     * as they are.
     */
    field: string & keyof Static<Schema>;
    /** A value's body, made from the aggregate's. */
    valueBody(value: OwnedValue, aggregate: Static<Schema>, aggregateIri: string): object;
  };
  /** The triples this family adds to every resource's common ones (docs/rdf.md). */
  rdf(body: Static<Schema>, g: GraphBuilder): void;
  /**
   * The standard RDF classes a resource is an instance of, for search hits; when
   * left out, the `rdf:type` triples of `rdf` (override where that is costly).
   */
  rdfTypes?(body: Static<Schema>): string[];
  /** Codes search finds the resource by, beside its IRI's last segment. */
  identifiers?(body: Static<Schema>): (string | undefined)[];
  /** Its pages offer complete SHACL (IMF block and terminal types). */
  hasShacl?: boolean;
}

/** Helps keep each family's types while the registry holds them all. */
export function defineFamily<Schema extends TObject>(family: Family<Schema>): Family<Schema> {
  return family;
}
