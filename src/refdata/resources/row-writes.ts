import { type Kysely, sql, type Transaction } from 'kysely';
import { reusableNamedQuery } from '../../platform/db/reusable-query.js';
import { isPostgres } from '../../platform/db/schema.js';
import { EVENT_OF_ACTION } from '../changes/events.js';
import type { RefdataTables, RevisionsTable, Status } from '../db/tables.js';
import { DEFAULT_LANGUAGE, generalizationsIn } from '../families/common.js';
import { LIBRARY_FAMILY } from '../families/family.js';

import {
  type Change,
  declaredLanguage,
  feedLibraryOfTopLevel,
  LifecycleConflict,
  NEW_ROW_COLUMNS,
  type NewResource,
  newRow,
  normalizedName,
  type OwnedEntry,
  ownedEntry,
  type ResourceContent,
  type ResourceRow,
  type ValuesFieldOf,
} from './rows.js';

/**
 * An event is in the webhooks' outbox (0) only while a subscription is
 * active: with none, nothing reads it, and no write is spent on marking it
 * done. A subscription takes its time after its insert commits
 * (webhooks/subscriptions.ts), so one made meanwhile wants no event this
 * statement could have missed it for.
 */
const UNLESS_SUBSCRIBED = sql<number>`(case when exists (select 1 from webhooks where state = 'active') then 0 else 1 end)`;

/**
 * The statements of one write inside its transaction: a resource's row, its
 * revision, its change event and its generalizations, each guarded by the
 * version it was based on. `ResourceStore` runs them and says when they committed.
 */
export class RowWrites {
  private readonly postgres: boolean;
  /** Libraries' declared languages, by IRI (`languageOf`). */
  private readonly libraryLanguages = new Map<string, string>();
  private readonly aggregateLibraries = new WeakMap<
    Transaction<RefdataTables>,
    Map<string, string>
  >();

  constructor(
    private readonly db: Kysely<RefdataTables>,
    private readonly valuesFieldOf: ValuesFieldOf,
    private readonly now: () => number,
  ) {
    this.postgres = isPostgres(db);
  }

  async insert(
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

  /** Whether a new resource can be stored in one statement (`insertAlone`), without a transaction. */
  insertsAlone(resource: NewResource, owned: readonly NewResource[] | undefined): boolean {
    return this.postgres && owned === undefined && resource.parentIri === null;
  }

  /**
   * A Draft that owns nothing and belongs to no aggregate, as `insert` stores
   * it, in one statement on PostgreSQL: the resource, its first revision, its
   * change event and its generalizations, each insert fed by the one before.
   * One statement is atomic by itself, so the create spends no round trips on
   * BEGIN and COMMIT (a third of its statements).
   */
  async insertAlone(resource: NewResource, change: Change): Promise<ResourceRow> {
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
  async insertMany(
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

  async replace(
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

  async move(
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
  async reviseAggregate(
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
  async remove(trx: Transaction<RefdataTables>, value: ResourceRow, change: Change): Promise<void> {
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
}
