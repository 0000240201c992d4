import { type Kysely, sql } from 'kysely';
import { reusableQuery } from '../../platform/db/reusable-query.js';
import type { RefdataTables, Status } from '../db/tables.js';
import { LIBRARY_FAMILY } from '../families/family.js';
import { writableIri } from '../rdf/writable-terms.js';

import {
  type GraphFacts,
  normalizedName,
  type RemovedRow,
  type ResourceRow,
  type RevisionRow,
  type RowWithFacts,
  storable,
} from './rows.js';

/**
 * The resources as they are stored: libraries, one resource or many, with the
 * facts their RDF needs (justifications, replacements), their revisions and
 * what was removed. Reads only; `ResourceStore` adds the writes.
 */
export class ResourceReader {
  constructor(protected readonly db: Kysely<RefdataTables>) {}

  /** The libraries, by name; only those in `statuses` when given. */
  async libraries(
    statuses?: readonly Status[],
  ): Promise<Pick<ResourceRow, 'iri' | 'name' | 'status' | 'body'>[]> {
    return this.db
      .selectFrom('resources')
      .select(['iri', 'name', 'status', 'body'])
      .where('family', '=', LIBRARY_FAMILY)
      .$if(statuses !== undefined, (query) => query.where('status', 'in', statuses ?? []))
      .orderBy('name_normalized')
      .execute();
  }

  /** The stored resources among `iris`, read a few hundred at a time. */
  async findMany(iris: readonly string[]): Promise<ResourceRow[]> {
    const wanted = iris.filter(storable);
    const rows: ResourceRow[] = [];
    for (let start = 0; start < wanted.length; start += 500) {
      rows.push(
        ...(await this.db
          .selectFrom('resources')
          .selectAll()
          .where('iri', 'in', wanted.slice(start, start + 500))
          .execute()),
      );
    }
    return rows;
  }

  /** Every resource of a library (by `library_key`), and the values of its aggregates. */
  async libraryContents(libraryIri: string): Promise<ResourceRow[]> {
    return this.db
      .selectFrom('resources as r')
      .selectAll('r')
      .where((eb) =>
        eb.or([
          eb('r.library_key', '=', libraryIri),
          eb(
            'r.parent_iri',
            'in',
            eb.selectFrom('resources as p').select('p.iri').where('p.library_key', '=', libraryIri),
          ),
        ]),
      )
      .orderBy('r.id')
      .execute();
  }

  async findByIri(iri: string): Promise<ResourceRow | undefined> {
    if (!storable(iri)) return undefined;
    return this.db.selectFrom('resources').selectAll().where('iri', '=', iri).executeTakeFirst();
  }

  /**
   * Resources (as `resource`) with their latest justification and replacement in
   * the same query: one round trip where `graphFacts` takes two more, each with a
   * list of every row's key (what made PostgreSQL's exports and dereferencing
   * slower than SQLite's). The subqueries pick what `graphFacts` does: the
   * latest create or update, the latest Approved or Deprecated replacement.
   */
  selectWithFacts() {
    return this.db
      .selectFrom('resources as resource')
      .selectAll('resource')
      .select((eb) => [
        eb
          .selectFrom('revisions')
          .select('revisions.justification')
          .whereRef('revisions.resource_id', '=', 'resource.id')
          .where('revisions.action', 'in', ['create', 'update'])
          .orderBy('revisions.id', 'desc')
          .limit(1)
          .as('justification'),
        eb
          .selectFrom('resources as replacement')
          .select('replacement.iri')
          .whereRef('replacement.replaces_iri', '=', 'resource.iri')
          .where('replacement.status', 'in', ['Approved', 'Deprecated'])
          .orderBy('replacement.id', 'desc')
          .limit(1)
          .as('replaced_by'),
      ]);
  }

  /**
   * Changed resources as a copy of them needs them: the rows still stored, with
   * their facts, and the IRIs of all of them, those removed since found by their
   * tombstones (a removed picklist value among them), each as triples name it
   * (an IRI stored before the writable rules is written escaped).
   */
  async changed(ids: readonly number[]): Promise<{ rows: RowWithFacts[]; iris: string[] }> {
    const rows = await this.selectWithFacts().where('resource.id', 'in', ids).execute();
    const present = new Set(rows.map((row) => row.id));
    const gone = ids.filter((id) => !present.has(id));
    const removed =
      gone.length === 0
        ? []
        : await this.db
            .selectFrom('removed_resources')
            .select('iri')
            .where('resource_id', 'in', gone)
            .execute();
    const iris = [...rows.map((row) => row.iri), ...removed.map((row) => row.iri)];
    return { rows, iris: iris.map(writableIri) };
  }

  /**
   * Resources as the lists of people's work show them (their Drafts, the review
   * queue): what each is and where, with its library's name; aggregates only,
   * since a value moves with its aggregate. Filter and order it as the list needs.
   */
  selectListed() {
    return this.db
      .selectFrom('resources as r')
      .leftJoin('resources as library', 'library.iri', 'r.library_key')
      .select([
        'r.iri',
        'r.name',
        'r.family',
        'r.status',
        'r.updated_at',
        'r.updated_by',
        'library.name as library',
      ])
      .where('r.parent_iri', 'is', null);
  }

  /** Dereferencing reads one resource this way for every request: built once. */
  private readonly withFactsByIri = reusableQuery((iri: string) =>
    this.selectWithFacts().where('resource.iri', '=', iri),
  );

  async findWithFacts(iri: string): Promise<RowWithFacts | undefined> {
    if (!storable(iri)) return undefined;
    return (await this.db.executeQuery(this.withFactsByIri(iri))).rows[0];
  }

  async childrenWithFacts(parentIri: string): Promise<RowWithFacts[]> {
    return this.selectWithFacts()
      .where('resource.parent_iri', '=', parentIri)
      .orderBy('resource.id')
      .execute();
  }

  async childrenOf(parentIri: string): Promise<ResourceRow[]> {
    return this.db
      .selectFrom('resources')
      .selectAll()
      .where('parent_iri', '=', parentIri)
      .orderBy('id')
      .execute();
  }

  async revisions(resourceId: number): Promise<RevisionRow[]> {
    return this.db
      .selectFrom('revisions')
      .selectAll()
      .where('resource_id', '=', resourceId)
      .orderBy('id')
      .execute();
  }

  /**
   * Changes whenever a term of the library changes: the number of its terms and
   * the latest time one was written, for the library's ETag.
   */
  async libraryFingerprint(libraryIri: string): Promise<string> {
    const row = await this.db
      .selectFrom('resources')
      .select((eb) => [eb.fn.countAll<number>().as('terms'), eb.fn.max('updated_at').as('latest')])
      .where('library_key', '=', libraryIri)
      .executeTakeFirst();
    return `${Number(row?.terms ?? 0)}.${Number(row?.latest ?? 0)}`;
  }

  /** Each resource's latest author's justification (from its create or last update). */
  async latestJustifications(resourceIds: readonly number[]): Promise<Map<number, string>> {
    if (resourceIds.length === 0) return new Map();
    const rows = await this.db
      .selectFrom('revisions')
      .select(['resource_id', 'justification'])
      .where('resource_id', 'in', resourceIds)
      .where('action', 'in', ['create', 'update'])
      .orderBy('id')
      .execute();
    return new Map(rows.map((row) => [row.resource_id, row.justification]));
  }

  /**
   * What a resource's RDF says beyond its own row: its latest justification and
   * the resource that replaced it (an Approved replacement, or one since deprecated).
   */
  async graphFacts(rows: readonly Pick<ResourceRow, 'id' | 'iri'>[]): Promise<GraphFacts> {
    return {
      justifications: await this.latestJustifications(rows.map((row) => row.id)),
      replacedBy: await this.replacements(rows.map((row) => row.iri)),
    };
  }

  /** The resource that replaced this one, as `graphFacts` finds it. */
  async replacementOf(iri: string): Promise<string | undefined> {
    return (await this.replacements([iri])).get(iri);
  }

  /** For each IRI that was replaced, its Approved (or since deprecated) replacement. */
  private async replacements(iris: readonly string[]): Promise<Map<string, string>> {
    if (iris.length === 0) return new Map();
    const rows = await this.db
      .selectFrom('resources')
      .select(['iri', 'replaces_iri'])
      .where('replaces_iri', 'in', iris)
      .where('status', 'in', ['Approved', 'Deprecated'])
      .orderBy('id')
      .execute();
    return new Map(rows.map((row) => [row.replaces_iri as string, row.iri]));
  }

  /** A resource that was removed (a value its picklist no longer lists). */
  async findRemoved(iri: string): Promise<RemovedRow | undefined> {
    if (!storable(iri)) return undefined;
    return this.db
      .selectFrom('removed_resources')
      .selectAll()
      .where('iri', '=', iri)
      .executeTakeFirst();
  }

  /**
   * How many resources (the library aside) one library holds in `statuses`;
   * only those `createdBy` made, and none of `exceptFamilies`, when given.
   */
  async countInLibrary(
    libraryIri: string,
    statuses: readonly Status[],
    only: { createdBy?: string; exceptFamilies?: readonly string[] } = {},
  ): Promise<number> {
    const row = await this.db
      .selectFrom('resources')
      .select(sql<number>`count(*)`.as('n'))
      .where('library_key', '=', libraryIri)
      .where('family', '!=', LIBRARY_FAMILY)
      .where('status', 'in', statuses)
      .$if(only.createdBy !== undefined, (query) =>
        query.where('created_by', '=', only.createdBy ?? ''),
      )
      .$if((only.exceptFamilies ?? []).length > 0, (query) =>
        query.where('family', 'not in', only.exceptFamilies ?? []),
      )
      .executeTakeFirst();
    return Number(row?.n ?? 0);
  }

  /** How many resources (libraries aside) each library holds in each status, of `statuses` when given. */
  async countsByLibraryAndStatus(
    statuses?: readonly Status[],
  ): Promise<{ library_key: string; status: Status; n: number }[]> {
    const rows = await this.db
      .selectFrom('resources')
      .select(['library_key', 'status', sql<number>`count(*)`.as('n')])
      .where('family', '!=', LIBRARY_FAMILY)
      .$if(statuses !== undefined, (query) => query.where('status', 'in', statuses ?? []))
      .groupBy(['library_key', 'status'])
      .execute();
    return rows.map((row) => ({ ...row, n: Number(row.n) }));
  }

  /** The latest revisions, newest first, of resources now in `statuses` when given. */
  recentRevisions(limit: number, statuses?: readonly Status[]) {
    return this.db
      .selectFrom('revisions')
      .innerJoin('resources', 'resources.id', 'revisions.resource_id')
      .select([
        'resources.iri',
        'resources.name',
        'resources.family',
        'revisions.action',
        'revisions.status',
        'revisions.created_at',
      ])
      .$if(statuses !== undefined, (query) => query.where('resources.status', 'in', statuses ?? []))
      .orderBy('revisions.created_at', 'desc')
      .orderBy('revisions.id', 'desc')
      .limit(limit)
      .execute();
  }

  /** Stored resources by IRI, of `statuses` when given (what a section names). */
  async byIri(
    iris: readonly string[],
    statuses?: readonly string[],
  ): Promise<Map<string, ResourceRow>> {
    const unique = [...new Set(iris)].filter(storable);
    if (unique.length === 0) return new Map();
    const rows = await this.db
      .selectFrom('resources')
      .selectAll()
      .where('iri', 'in', unique)
      .execute();
    return new Map(
      rows
        .filter((row) => statuses === undefined || statuses.includes(row.status))
        .map((row) => [row.iri, row]),
    );
  }

  /**
   * Resources whose bodies name `iri` (a body is JSON, so an IRI is in it as a
   * quoted string), other than the library's own terms and an aggregate's own
   * values, by name, at most `limit`.
   */
  referencing(iri: string, limit: number, statuses?: readonly Status[]) {
    const needle = `%${JSON.stringify(iri).replace(/[\\%_]/g, (char) => `\\${char}`)}%`;
    return this.db
      .selectFrom('resources')
      .select(['iri', 'name', 'family', 'status', 'body'])
      .where(sql<boolean>`body like ${needle} escape '\\'`)
      .where('iri', '!=', iri)
      .where('library_key', '!=', iri)
      .where((eb) => eb.or([eb('parent_iri', 'is', null), eb('parent_iri', '!=', iri)]))
      .$if(statuses !== undefined, (select) => select.where('status', 'in', statuses ?? []))
      .orderBy('name_normalized')
      .limit(limit)
      .execute();
  }

  /** Name, family, status and library name of each resource behind `iris`. */
  namedWithLibrary(iris: readonly string[]) {
    return this.db
      .selectFrom('resources as r')
      .leftJoin('resources as library', 'library.iri', 'r.library_key')
      .select(['r.iri', 'r.name', 'r.family', 'r.status', 'library.name as library'])
      .where('r.iri', 'in', iris.length > 0 ? iris : [''])
      .execute();
  }

  /** Resources of `families` holding `name` (a Rejected one holds no name), oldest first. */
  byExactName(name: string, families: readonly string[], limit: number) {
    return this.db
      .selectFrom('resources as r')
      .leftJoin('resources as library', 'library.iri', 'r.library_key')
      .select(['r.iri', 'r.name', 'r.family', 'r.status', 'library.name as library'])
      .where('r.name_normalized', '=', normalizedName(name).slice(0, 600))
      .where('r.family', 'in', families.length > 0 ? families : [''])
      .where('r.status', '<>', 'Rejected')
      .orderBy('r.id')
      .limit(limit)
      .execute();
  }
}
