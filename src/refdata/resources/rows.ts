import type { Selectable } from 'kysely';
import { allColumns } from '../../platform/db/joined-rows.js';
import type {
  RemovedResourcesTable,
  ResourcesTable,
  RevisionsTable,
  Status,
} from '../db/tables.js';
import { DEFAULT_LANGUAGE } from '../families/common.js';
import { LIBRARY_FAMILY } from '../families/family.js';

export type ResourceRow = Selectable<ResourcesTable>;
export type RevisionRow = Selectable<RevisionsTable>;

/** Another resource holds this IRI, or this name in the same family and library. */
export class DuplicateResource extends Error {
  override readonly name = 'DuplicateResource';
}

/** The resource is not in the state the step starts from, or changed meanwhile. */
export class LifecycleConflict extends Error {
  override readonly name = 'LifecycleConflict';
  constructor(
    readonly kind: 'not-draft' | 'wrong-state' | 'stale-write',
    message: string,
  ) {
    super(message);
  }
}

export interface ResourceContent {
  name: string;
  libraryKey: string;
  /** See `Family.nameScope`. */
  nameScope: string;
  parentIri: string | null;
  replacesIri: string | null;
  body: Record<string, unknown>;
}

export interface NewResource extends ResourceContent {
  iri: string;
  family: string;
}

/** Changes to the values an aggregate (a picklist) owns, applied with it. */
export interface OwnedChanges {
  create: NewResource[];
  update: { row: ResourceRow; content: ResourceContent }[];
  remove: ResourceRow[];
}

/** One write of `ResourceStore.writeMany`. */
export type WriteStep =
  | { kind: 'create'; resource: NewResource; owned: NewResource[] | undefined }
  | { kind: 'update'; row: ResourceRow; content: ResourceContent; owned: OwnedChanges | undefined };

/** See `graphFacts`. */
export interface GraphFacts {
  justifications: ReadonlyMap<number, string>;
  replacedBy: ReadonlyMap<string, string>;
}

/** A row read with its graph facts in the same query (`ResourceReader.selectWithFacts`). */
export type RowWithFacts = ResourceRow & {
  justification: string | null;
  replaced_by: string | null;
};

/** The graph facts of rows read with `selectWithFacts`, as `graphFacts` gives them. */
export function factsOf(rows: readonly RowWithFacts[]): GraphFacts {
  const justifications = new Map<number, string>();
  const replacedBy = new Map<string, string>();
  for (const row of rows) {
    if (row.justification !== null) justifications.set(row.id, row.justification);
    if (row.replaced_by !== null) replacedBy.set(row.iri, row.replaced_by);
  }
  return { justifications, replacedBy };
}

/** A value as its aggregate's revision records it. */
export interface OwnedEntry {
  id: string;
  name: string;
  description: unknown;
  translations?: unknown;
  synonyms?: unknown;
}

export function ownedEntry(
  iri: string,
  content: Pick<ResourceContent, 'name' | 'body'>,
): OwnedEntry {
  const { translations, synonyms } = content.body;
  return {
    id: iri,
    name: content.name,
    description: content.body.description,
    ...(translations === undefined ? {} : { translations }),
    ...(synonyms === undefined ? {} : { synonyms }),
  };
}

export type RemovedRow = Selectable<RemovedResourcesTable>;

export interface Change {
  actor: string;
  justification: string;
}

/** One move of `transitionAll`: resources that go from one state to the next together. */
export interface StoredMove {
  rows: readonly ResourceRow[];
  from: Status;
  to: Status;
  action: RevisionsTable['action'];
  change: Change;
  /** The Approved resource the first row replaces, deprecated with it. */
  alsoDeprecate?: ResourceRow | undefined;
  /** An aggregate's values, listed in its revision. */
  values?: readonly ResourceRow[] | undefined;
}

/** The columns of `newRow`, in its order; the compiler checks that none is missing. */
export const NEW_ROW_COLUMNS = allColumns<ReturnType<typeof newRow>>()([
  'language',
  'iri',
  'family',
  'status',
  'name',
  'name_normalized',
  'library_key',
  'name_scope',
  'parent_iri',
  'replaces_iri',
  'body',
  'version',
  'created_by',
  'created_at',
  'updated_by',
  'updated_at',
]);

/** The row a new Draft is stored as, at version 1. */
export function newRow(resource: NewResource, change: Change, now: number, language: string) {
  return {
    language,
    iri: resource.iri,
    family: resource.family,
    status: 'Draft' as const,
    name: resource.name.trim(),
    name_normalized: normalizedName(resource.name),
    library_key: resource.libraryKey,
    name_scope: resource.nameScope,
    parent_iri: resource.parentIri,
    replaces_iri: resource.replacesIri,
    body: JSON.stringify(resource.body),
    version: 1,
    created_by: change.actor,
    created_at: now,
    updated_by: change.actor,
    updated_at: now,
  };
}

/** A library's declared default language, English when it declares none. */
export function declaredLanguage(body: Record<string, unknown>): string {
  return typeof body.defaultLanguage === 'string' ? body.defaultLanguage : DEFAULT_LANGUAGE;
}

/**
 * The library whose feed a resource outside any aggregate is in: a library's
 * own, a term's library (see `RowWrites.feedLibraryOf`).
 */
export function feedLibraryOfTopLevel(family: string, iri: string, libraryKey: string): string {
  return family === LIBRARY_FAMILY ? iri : libraryKey;
}

/** No stored IRI is longer, or holds a NUL (which PostgreSQL's text refuses). */
export function storable(iri: string): boolean {
  return iri.length <= 2048 && !iri.includes('\u0000');
}

export function normalizedName(name: string): string {
  return name.trim().replace(/\s+/g, ' ').toLowerCase();
}

/** The `ETag` of a resource's current version. */
export function etagOf(row: Pick<ResourceRow, 'version'>): string {
  return `"${row.version}"`;
}

/** The body field an aggregate family lists its values under; undefined for other families. */
export type ValuesFieldOf = (family: string) => string | undefined;
