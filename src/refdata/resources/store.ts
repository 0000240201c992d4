import { type Kysely, type Selectable, sql, type Transaction } from 'kysely';
import { ConstraintViolationError } from '../../platform/db/errors.js';
import { allColumns } from '../../platform/db/joined-rows.js';
import { reusableNamedQuery, reusableQuery } from '../../platform/db/reusable-query.js';
import { isPostgres } from '../../platform/db/schema.js';
import { EVENT_OF_ACTION } from '../changes/events.js';
import type {
  RefdataTables,
  RemovedResourcesTable,
  ResourcesTable,
  RevisionsTable,
  Status,
} from '../db/tables.js';
import { DEFAULT_LANGUAGE, generalizationsIn } from '../families/common.js';
import { LIBRARY_FAMILY } from '../families/family.js';
import { writableIri } from '../rdf/writable-terms.js';

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

/** A row read with its graph facts in the same query (`ResourceStore.selectWithFacts`). */
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
interface OwnedEntry {
  id: string;
  name: string;
  description: unknown;
  translations?: unknown;
  synonyms?: unknown;
}

function ownedEntry(iri: string, content: Pick<ResourceContent, 'name' | 'body'>): OwnedEntry {
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
const NEW_ROW_COLUMNS = allColumns<ReturnType<typeof newRow>>()([
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
function newRow(resource: NewResource, change: Change, now: number, language: string) {
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
function declaredLanguage(body: Record<string, unknown>): string {
  return typeof body.defaultLanguage === 'string' ? body.defaultLanguage : DEFAULT_LANGUAGE;
}

/**
 * The library whose feed a resource outside any aggregate is in: a library's
 * own, a term's library (see `ResourceStore.feedLibraryOf`).
 */
function feedLibraryOfTopLevel(family: string, iri: string, libraryKey: string): string {
  return family === LIBRARY_FAMILY ? iri : libraryKey;
}

/** No stored IRI is longer, or holds a NUL (which PostgreSQL's text refuses). */
function storable(iri: string): boolean {
  return iri.length <= 2048 && !iri.includes('\u0000');
}

export function normalizedName(name: string): string {
  return name.trim().replace(/\s+/g, ' ').toLowerCase();
}

/** The `ETag` of a resource's current version. */
export function etagOf(row: Pick<ResourceRow, 'version'>): string {
  return `"${row.version}"`;
}

/**
 * An event is in the webhooks' outbox (0) only while a subscription is
 * active: with none, nothing reads it, and no write is spent on marking it
 * done. A subscription takes its time after its insert commits
 * (webhooks/subscriptions.ts), so one made meanwhile wants no event this
 * statement could have missed it for.
 */
const UNLESS_SUBSCRIBED = sql<number>`(case when exists (select 1 from webhooks where state = 'active') then 0 else 1 end)`;

/** The body field an aggregate family lists its values under; undefined for other families. */
export type ValuesFieldOf = (family: string) => string | undefined;

/** Told after each write this instance committed (search; later SPARQL and the change feed). */
export type CommittedListener = () => void;

interface Follower {
  heard: CommittedListener;
  /** Where a follower's own failure goes: the write it heard of stays committed. */
  failed: (error: unknown) => void;
}

/**
 * Resources of every family, their lifecycle and their revisions. Every write is
 * atomic (one transaction; on PostgreSQL a plain create is one statement),
 * guarded by the version it was based on, and leaves a revision
 * (who, when, why, and the body) behind. Whoever follows the resources hears of
 * each committed write here; the database's change log (written by the same
 * transaction) stays the truth across instances, this only says "read it now".
 */
export class ResourceStore {
  private readonly followers: Follower[] = [];
  private readonly postgres: boolean;
  /** Libraries' declared languages, by IRI (`languageOf`). */
  private readonly libraryLanguages = new Map<string, string>();
  private readonly aggregateLibraries = new WeakMap<
    Transaction<RefdataTables>,
    Map<string, string>
  >();

  /**
   * `valuesFieldOf` names the body field an aggregate family's revisions list
   * its values under (undefined for a family that owns none).
   */
  constructor(
    private readonly db: Kysely<RefdataTables>,
    private readonly valuesFieldOf: ValuesFieldOf,
    private readonly now: () => number = Date.now,
  ) {
    this.postgres = isPostgres(db);
  }

  /**
   * Calls `heard` after every write this store commits. A follower that throws
   * is reported to `failed`; the write is still answered as done.
   */
  onCommitted(heard: CommittedListener, failed: (error: unknown) => void): void {
    this.followers.push({ heard, failed });
  }

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

  /**
   * Stores a Draft, and for an aggregate (a picklist) the values it owns, in one
   * transaction. `owned` is undefined for resources that own nothing.
   */
  async create(
    resource: NewResource,
    owned: NewResource[] | undefined,
    change: Change,
  ): Promise<ResourceRow> {
    if (this.postgres && owned === undefined && resource.parentIri === null)
      return this.committing(() => this.insertAlone(resource, change));
    return this.write((trx) => this.createIn(trx, resource, owned, change));
  }

  private async createIn(
    trx: Transaction<RefdataTables>,
    resource: NewResource,
    owned: NewResource[] | undefined,
    change: Change,
  ): Promise<ResourceRow> {
    const values = owned?.map((value) => ownedEntry(value.iri, value));
    const row = await this.insert(trx, resource, change, values);
    for (const value of owned ?? []) await this.insert(trx, value, change);
    // A value added on its own changes its aggregate (see `update`).
    if (owned === undefined && resource.parentIri !== null) {
      await this.reviseAggregate(trx, resource.parentIri, change);
    }
    return row;
  }

  /**
   * Creates and updates Drafts together, in one transaction, as `create` and
   * `update` each would (an import's batch), then `alongside` in the same
   * transaction (the import's progress, committed with what it counts).
   */
  async writeMany(
    steps: readonly WriteStep[],
    change: Change,
    alongside?: (trx: Transaction<RefdataTables>) => Promise<void>,
  ): Promise<void> {
    await this.write(async (trx) => {
      // New resources go in a hundred rows a statement; each update is its own.
      let creates: { resource: NewResource; values?: OwnedEntry[] }[] = [];
      const flush = async () => {
        await this.insertMany(trx, creates, change);
        creates = [];
      };
      for (const step of steps) {
        if (
          step.kind === 'create' &&
          (step.owned !== undefined || step.resource.parentIri === null)
        ) {
          creates.push({
            resource: step.resource,
            ...(step.owned
              ? { values: step.owned.map((value) => ownedEntry(value.iri, value)) }
              : {}),
          });
          for (const value of step.owned ?? []) creates.push({ resource: value });
          continue;
        }
        await flush();
        if (step.kind === 'create') await this.createIn(trx, step.resource, step.owned, change);
        else await this.updateIn(trx, step.row, step.content, step.owned, change);
      }
      await flush();
      await alongside?.(trx);
    });
  }

  /**
   * Replaces a Draft's content, if it is still the version `basedOn` was and
   * still a Draft; otherwise nothing changes and the write is refused. Values an
   * aggregate no longer lists are removed, leaving their history behind them.
   */
  async update(
    basedOn: ResourceRow,
    content: ResourceContent,
    owned: OwnedChanges | undefined,
    change: Change,
  ): Promise<ResourceRow> {
    return this.write((trx) => this.updateIn(trx, basedOn, content, owned, change));
  }

  private async updateIn(
    trx: Transaction<RefdataTables>,
    basedOn: ResourceRow,
    content: ResourceContent,
    owned: OwnedChanges | undefined,
    change: Change,
  ): Promise<ResourceRow> {
    // The values in the order a read lists them: kept ones by id, then new ones.
    const values = owned && [
      ...[...owned.update]
        .sort((a, b) => a.row.id - b.row.id)
        .map((value) => ownedEntry(value.row.iri, value.content)),
      ...owned.create.map((value) => ownedEntry(value.iri, value)),
    ];
    const row = await this.replace(trx, basedOn, content, change, values);
    for (const value of owned?.update ?? [])
      await this.replace(trx, value.row, value.content, change);
    for (const value of owned?.create ?? []) await this.insert(trx, value, change);
    for (const value of owned?.remove ?? []) await this.remove(trx, value, change);
    // A value changed on its own changes its aggregate too: the aggregate's
    // version (and so its ETag, which If-Match and If-None-Match compare) covers
    // its values, and its revision records them as they now are.
    if (owned === undefined && basedOn.parent_iri !== null) {
      await this.reviseAggregate(trx, basedOn.parent_iri, change);
    }
    return row;
  }

  private async reviseAggregate(
    trx: Transaction<RefdataTables>,
    aggregateIri: string,
    change: Change,
  ): Promise<void> {
    const aggregate = await trx
      .selectFrom('resources')
      .selectAll()
      .where('iri', '=', aggregateIri)
      .executeTakeFirst();
    if (!aggregate) return;
    const values = await trx
      .selectFrom('resources')
      .select(['iri', 'name', 'body'])
      .where('parent_iri', '=', aggregateIri)
      .orderBy('id')
      .execute();
    const row = await trx
      .updateTable('resources')
      .set({
        version: aggregate.version + 1,
        updated_by: change.actor,
        updated_at: this.after(aggregate.updated_at),
      })
      .where('id', '=', aggregate.id)
      .where('version', '=', aggregate.version)
      .returningAll()
      .executeTakeFirst();
    if (!row) throw new LifecycleConflict('stale-write', `${aggregateIri} changed meanwhile.`);
    await this.revise(
      trx,
      row,
      'update',
      change,
      values.map((value) =>
        ownedEntry(value.iri, {
          name: value.name,
          body: JSON.parse(value.body) as ResourceContent['body'],
        }),
      ),
    );
  }

  /**
   * Deletes a Draft value, keeping its IRI and its revisions, closed by a
   * `remove` revision (the tombstone), so `/revisions` still tells its story.
   */
  private async remove(
    trx: Transaction<RefdataTables>,
    value: ResourceRow,
    change: Change,
  ): Promise<void> {
    const removed = await trx
      .deleteFrom('resources')
      .where('id', '=', value.id)
      .where('version', '=', value.version)
      .where('status', '=', 'Draft')
      .executeTakeFirst();
    if (removed.numDeletedRows !== 1n) {
      throw new LifecycleConflict('stale-write', `${value.iri} changed meanwhile.`);
    }
    await trx.deleteFrom('generalizations').where('resource_id', '=', value.id).execute();
    const now = this.after(value.updated_at);
    await trx
      .insertInto('removed_resources')
      .values({
        resource_id: value.id,
        iri: value.iri,
        family: value.family,
        parent_iri: value.parent_iri,
        removed_by: change.actor,
        removed_at: now,
      })
      .execute();
    await this.revise(
      trx,
      { ...value, version: value.version + 1, updated_at: now },
      'remove',
      change,
    );
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
   * Moves resources from one state to the next together (a picklist with its
   * values), each guarded by the version it was read at.
   */
  async transition(
    rows: readonly ResourceRow[],
    from: Status,
    to: Status,
    action: RevisionsTable['action'],
    change: Change,
    options: { alsoDeprecate?: ResourceRow | undefined; values?: readonly ResourceRow[] } = {},
  ): Promise<ResourceRow> {
    const [moved] = await this.transitionAll([
      {
        rows,
        from,
        to,
        action,
        change,
        alsoDeprecate: options.alsoDeprecate,
        values: options.values,
      },
    ]);
    return moved as ResourceRow;
  }

  /**
   * Several moves in one transaction (a package decided as a whole): all of
   * them or, when one finds its resource changed meanwhile, none. `within`
   * writes what goes with them (a package's rows) in the same transaction.
   * Answers each move's first row as it is now.
   */
  async transitionAll(
    moves: readonly StoredMove[],
    within?: (trx: Transaction<RefdataTables>, moved: readonly ResourceRow[]) => Promise<void>,
  ): Promise<ResourceRow[]> {
    return this.write(async (trx) => {
      const firsts: ResourceRow[] = [];
      for (const { rows, from, to, action, change, alsoDeprecate, values } of moves) {
        // The aggregate's revision lists its values, as its create and updates do.
        const listed = values?.map((value) =>
          ownedEntry(value.iri, {
            name: value.name,
            body: JSON.parse(value.body) as Record<string, unknown>,
          }),
        );
        for (const [index, row] of rows.entries()) {
          const moved = await this.move(
            trx,
            row,
            from,
            to,
            action,
            change,
            index === 0 ? listed : undefined,
          );
          if (index === 0) firsts.push(moved);
        }
        if (alsoDeprecate) {
          await this.move(trx, alsoDeprecate, 'Approved', 'Deprecated', 'deprecate', {
            actor: change.actor,
            justification: `Replaced by ${rows[0]?.iri}`,
          });
        }
      }
      await within?.(trx, firsts);
      return firsts;
    });
  }

  /**
   * The library whose feed a resource's events are in: a library's own, a
   * term's library, and for a value its aggregate's library (a value's
   * `library_key` names its picklist). Looked up once per transaction.
   */
  private async feedLibraryOf(trx: Transaction<RefdataTables>, row: ResourceRow): Promise<string> {
    if (row.parent_iri === null) return feedLibraryOfTopLevel(row.family, row.iri, row.library_key);
    if (row.family === LIBRARY_FAMILY) return row.iri;
    const known = this.aggregateLibraryCache(trx);
    const cached = known.get(row.parent_iri);
    if (cached !== undefined) return cached;
    const parent = await trx
      .selectFrom('resources')
      .select('library_key')
      .where('iri', '=', row.parent_iri)
      .executeTakeFirst();
    const library = parent?.library_key ?? row.library_key;
    known.set(row.parent_iri, library);
    return library;
  }

  /**
   * The language a resource's name and description are in: a library's own
   * declared default, else its library's, English when none is declared.
   * Libraries' are kept for the process: a library's default never changes.
   */
  private async languageOf(
    trx: Kysely<RefdataTables>,
    resource: Pick<NewResource, 'family' | 'libraryKey' | 'body'>,
  ): Promise<string> {
    if (resource.family === LIBRARY_FAMILY) return declaredLanguage(resource.body);
    // A value's `libraryKey` is its picklist; its `ontology`, the library.
    const libraryIri =
      typeof resource.body.ontology === 'string' ? resource.body.ontology : resource.libraryKey;
    if (!libraryIri) return DEFAULT_LANGUAGE;
    const cached = this.libraryLanguages.get(libraryIri);
    if (cached !== undefined) return cached;
    const library = await trx
      .selectFrom('resources')
      .select('body')
      .where('iri', '=', libraryIri)
      .where('family', '=', LIBRARY_FAMILY)
      .executeTakeFirst();
    if (!library) return DEFAULT_LANGUAGE;
    const language = declaredLanguage(JSON.parse(library.body) as Record<string, unknown>);
    this.libraryLanguages.set(libraryIri, language);
    return language;
  }

  /** The libraries of aggregates this transaction has looked up or inserted, by IRI. */
  private aggregateLibraryCache(trx: Transaction<RefdataTables>): Map<string, string> {
    let known = this.aggregateLibraries.get(trx);
    if (!known) {
      known = new Map();
      this.aggregateLibraries.set(trx, known);
    }
    return known;
  }

  /**
   * Now, or a millisecond after a resource's last change if the clock has not
   * moved past it: each version of a resource is later than the one before, so
   * the change feed orders them by time alone.
   */
  private after(previous: number): number {
    return Math.max(this.now(), Number(previous) + 1);
  }

  private async write<T>(work: (trx: Transaction<RefdataTables>) => Promise<T>): Promise<T> {
    return this.committing(() => this.db.transaction().execute(work));
  }

  /**
   * Runs `commit` (a transaction, or one statement that is atomic by itself),
   * answering a duplicate as one, then tells the followers.
   */
  private async committing<T>(commit: () => Promise<T>): Promise<T> {
    let result: T;
    try {
      result = await commit();
    } catch (error) {
      if (error instanceof ConstraintViolationError && error.kind === 'unique') {
        throw new DuplicateResource(
          error.columns.includes('iri')
            ? 'A resource with this IRI already exists.'
            : 'A resource of this family with this name already exists in the library.',
        );
      }
      throw error;
    }
    for (const follower of this.followers) {
      try {
        follower.heard();
      } catch (error) {
        follower.failed(error);
      }
    }
    return result;
  }

  private async insert(
    trx: Transaction<RefdataTables>,
    resource: NewResource,
    change: Change,
    values?: OwnedEntry[],
  ): Promise<ResourceRow> {
    const now = this.now();
    const language = await this.languageOf(trx, resource);
    const row = await trx
      .insertInto('resources')
      .values(newRow(resource, change, now, language))
      .returningAll()
      .executeTakeFirstOrThrow();
    await this.revise(trx, row, 'create', change, values);
    await this.keepGeneralizations(trx, [row], false);
    return row;
  }

  /**
   * A Draft that owns nothing and belongs to no aggregate, as `insert` stores
   * it, in one statement on PostgreSQL: the resource, its first revision, its
   * change event and its generalizations, each insert fed by the one before.
   * One statement is atomic by itself, so the create spends no round trips on
   * BEGIN and COMMIT (a third of its statements).
   */
  private async insertAlone(resource: NewResource, change: Change): Promise<ResourceRow> {
    const row = newRow(resource, change, this.now(), await this.languageOf(this.db, resource));
    const { rows } = await this.db.executeQuery(
      this.insertAloneQuery({
        ...row,
        justification: change.justification,
        feed_library: feedLibraryOfTopLevel(resource.family, resource.iri, resource.libraryKey),
        parents: generalizationsIn(resource.body),
      }),
    );
    return rows[0] as ResourceRow;
  }

  private readonly insertAloneQuery = reusableNamedQuery(
    [...NEW_ROW_COLUMNS, 'justification', 'feed_library', 'parents'],
    (value) =>
      this.db
        .with('resource', (db) =>
          db
            .insertInto('resources')
            // Stand-ins for the row's values, whatever their column's type (`reusableNamedQuery`).
            .values(
              Object.fromEntries(
                NEW_ROW_COLUMNS.map((column) => [column, value[column]]),
              ) as unknown as ReturnType<typeof newRow>,
            )
            .returningAll(),
        )
        .with('revision', (db) =>
          db
            .insertInto('revisions')
            .columns([
              'resource_id',
              'version',
              'action',
              'status',
              'actor',
              'justification',
              'body',
              'created_at',
            ])
            .expression((eb) =>
              eb
                .selectFrom('resource')
                .select([
                  'id',
                  'version',
                  sql.lit('create').as('action'),
                  'status',
                  'created_by',
                  sql<string>`${value.justification}::text`.as('justification'),
                  'body',
                  'updated_at',
                ]),
            )
            .returning(['id', 'resource_id']),
        )
        .with('event', (db) =>
          db
            .insertInto('change_events')
            .columns([
              'revision_id',
              'resource_id',
              'iri',
              'family',
              'library_key',
              'event',
              'status',
              'version',
              'actor',
              'at',
              'created_at',
              'fanned_out',
            ])
            .expression((eb) =>
              eb
                .selectFrom('revision')
                .innerJoin('resource', 'resource.id', 'revision.resource_id')
                .select([
                  'revision.id',
                  'resource.id as resource_id',
                  'resource.iri',
                  'resource.family',
                  sql<string>`${value.feed_library}::text`.as('library_key'),
                  sql.lit(EVENT_OF_ACTION.create).as('event'),
                  'resource.status',
                  'resource.version',
                  'resource.created_by',
                  'resource.updated_at',
                  'resource.created_at',
                  UNLESS_SUBSCRIBED.as('fanned_out'),
                ]),
            ),
        )
        .with('links', (db) =>
          db
            .insertInto('generalizations')
            .columns(['resource_id', 'parent_iri'])
            .expression((eb) =>
              eb
                .selectFrom('resource')
                .select(['id', sql<string>`unnest(${value.parents}::text[])`.as('parent_iri')]),
            ),
        )
        .selectFrom('resource')
        .selectAll(),
  );

  /** The `generalizations` rows of resources just written, as their bodies name them. */
  private async keepGeneralizations(
    trx: Transaction<RefdataTables>,
    rows: readonly ResourceRow[],
    replacing: boolean,
  ): Promise<void> {
    if (replacing && rows.length > 0)
      await trx
        .deleteFrom('generalizations')
        .where(
          'resource_id',
          'in',
          rows.map((row) => row.id),
        )
        .execute();
    const links = rows.flatMap((row) =>
      generalizationsIn(JSON.parse(row.body) as Record<string, unknown>).map((parent) => ({
        resource_id: row.id,
        parent_iri: parent,
      })),
    );
    for (let start = 0; start < links.length; start += 500)
      await trx
        .insertInto('generalizations')
        .values(links.slice(start, start + 500))
        .execute();
  }

  /**
   * Inserts Drafts as `insert` does, a hundred rows a statement for each of
   * the three tables: the one round trip per row was what a bulk import spent
   * its time on. An aggregate comes before its values.
   */
  private async insertMany(
    trx: Transaction<RefdataTables>,
    resources: readonly { resource: NewResource; values?: OwnedEntry[] }[],
    change: Change,
  ): Promise<void> {
    const known = this.aggregateLibraryCache(trx);
    for (let start = 0; start < resources.length; start += 100) {
      const chunk = resources.slice(start, start + 100);
      const now = this.now();
      const languages: string[] = [];
      for (const { resource } of chunk) languages.push(await this.languageOf(trx, resource));
      const rows = await trx
        .insertInto('resources')
        .values(
          chunk.map(({ resource }, index) =>
            newRow(resource, change, now, languages[index] as string),
          ),
        )
        .returningAll()
        .execute();
      await this.keepGeneralizations(trx, rows, false);
      const byIri = new Map(rows.map((row) => [row.iri, row]));
      for (const row of rows) if (row.parent_iri === null) known.set(row.iri, row.library_key);
      const inserted = chunk.map(({ resource, values }) => ({
        row: byIri.get(resource.iri) as ResourceRow,
        values,
      }));
      const revisions = await trx
        .insertInto('revisions')
        .values(
          inserted.map(({ row, values }) => {
            const field = values === undefined ? undefined : this.valuesFieldOf(row.family);
            return {
              resource_id: row.id,
              version: 1,
              action: 'create' as const,
              status: row.status,
              actor: change.actor,
              justification: change.justification,
              body:
                field === undefined
                  ? row.body
                  : JSON.stringify({ ...(JSON.parse(row.body) as object), [field]: values }),
              created_at: Number(row.updated_at),
            };
          }),
        )
        .returning(['id', 'resource_id'])
        .execute();
      const revisionOf = new Map(revisions.map((revision) => [revision.resource_id, revision.id]));
      const events = [];
      for (const { row } of inserted) {
        events.push({
          revision_id: revisionOf.get(row.id) as number,
          resource_id: row.id,
          iri: row.iri,
          family: row.family,
          library_key: await this.feedLibraryOf(trx, row),
          event: EVENT_OF_ACTION.create,
          status: row.status,
          version: row.version,
          actor: change.actor,
          at: Number(row.updated_at),
          created_at: Number(row.created_at),
          fanned_out: UNLESS_SUBSCRIBED,
        });
      }
      await trx.insertInto('change_events').values(events).execute();
    }
  }

  private async replace(
    trx: Transaction<RefdataTables>,
    basedOn: ResourceRow,
    content: ResourceContent,
    change: Change,
    values?: OwnedEntry[],
  ): Promise<ResourceRow> {
    const row = await trx
      .updateTable('resources')
      .set({
        name: content.name.trim(),
        name_normalized: normalizedName(content.name),
        library_key: content.libraryKey,
        name_scope: content.nameScope,
        parent_iri: content.parentIri,
        replaces_iri: content.replacesIri,
        body: JSON.stringify(content.body),
        language: await this.languageOf(trx, { ...content, family: basedOn.family }),
        version: basedOn.version + 1,
        updated_by: change.actor,
        updated_at: this.after(basedOn.updated_at),
      })
      .where('id', '=', basedOn.id)
      .where('version', '=', basedOn.version)
      .where('status', '=', 'Draft')
      .returningAll()
      .executeTakeFirst();
    if (!row) throw await this.conflictFor(trx, basedOn, 'not-draft');
    await this.revise(trx, row, 'update', change, values);
    await this.keepGeneralizations(trx, [row], true);
    return row;
  }

  private async move(
    trx: Transaction<RefdataTables>,
    basedOn: ResourceRow,
    from: Status,
    to: Status,
    action: RevisionsTable['action'],
    change: Change,
    values?: OwnedEntry[],
  ): Promise<ResourceRow> {
    if (basedOn.status !== from) {
      throw new LifecycleConflict(
        'wrong-state',
        `${basedOn.iri} is ${basedOn.status}; this step starts from ${from}.`,
      );
    }
    const row = await trx
      .updateTable('resources')
      .set({
        status: to,
        version: basedOn.version + 1,
        updated_by: change.actor,
        updated_at: this.after(basedOn.updated_at),
      })
      .where('id', '=', basedOn.id)
      .where('version', '=', basedOn.version)
      .where('status', '=', from)
      .returningAll()
      .executeTakeFirst();
    if (!row) throw await this.conflictFor(trx, basedOn, 'wrong-state');
    await this.revise(trx, row, action, change, values);
    return row;
  }

  private async conflictFor(
    trx: Transaction<RefdataTables>,
    basedOn: ResourceRow,
    moved: 'not-draft' | 'wrong-state',
  ): Promise<LifecycleConflict> {
    const current = await trx
      .selectFrom('resources')
      .select(['status', 'version'])
      .where('id', '=', basedOn.id)
      .executeTakeFirst();
    return current && current.status !== basedOn.status && current.version !== basedOn.version
      ? new LifecycleConflict(moved, `${basedOn.iri} is now ${current.status}.`)
      : new LifecycleConflict('stale-write', `${basedOn.iri} changed meanwhile; read it again.`);
  }

  private async revise(
    trx: Transaction<RefdataTables>,
    row: ResourceRow,
    action: RevisionsTable['action'],
    change: Change,
    values?: OwnedEntry[],
  ): Promise<void> {
    // An aggregate's revision records the values it listed at that version.
    const field = values === undefined ? undefined : this.valuesFieldOf(row.family);
    const body =
      field === undefined
        ? row.body
        : JSON.stringify({ ...(JSON.parse(row.body) as object), [field]: values });
    const at = Number(row.updated_at);
    const revision = {
      resource_id: row.id,
      version: row.version,
      action,
      status: row.status,
      actor: change.actor,
      justification: change.justification,
      body,
      created_at: at,
    };
    // The change feed's member and the webhooks' outbox entry, in the same transaction.
    const event = {
      resource_id: row.id,
      iri: row.iri,
      family: row.family,
      library_key: await this.feedLibraryOf(trx, row),
      event: EVENT_OF_ACTION[action],
      status: row.status,
      version: row.version,
      actor: change.actor,
      at,
      created_at: Number(row.created_at),
    };
    if (this.postgres) {
      // One round trip for both rows (what the outbox cost a create on PostgreSQL).
      await sql`with revision as (
          insert into revisions (resource_id, version, action, status, actor, justification, body, created_at)
          values (${revision.resource_id}, ${revision.version}, ${revision.action}, ${revision.status},
            ${revision.actor}, ${revision.justification}, ${revision.body}, ${revision.created_at})
          returning id)
        insert into change_events
          (revision_id, resource_id, iri, family, library_key, event, status, version, actor, at, created_at, fanned_out)
        select id, ${event.resource_id}::integer, ${event.iri}, ${event.family}, ${event.library_key},
          ${event.event}, ${event.status}, ${event.version}::integer, ${event.actor},
          ${event.at}::bigint, ${event.created_at}::bigint, ${UNLESS_SUBSCRIBED}
        from revision`.execute(trx);
      return;
    }
    const { id } = await trx
      .insertInto('revisions')
      .values(revision)
      .returning('id')
      .executeTakeFirstOrThrow();
    await trx
      .insertInto('change_events')
      .values({ revision_id: id, ...event, fanned_out: UNLESS_SUBSCRIBED })
      .execute();
  }
}
