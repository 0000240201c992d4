import { type Kysely, type Selectable, sql, type Transaction } from 'kysely';
import { ConstraintViolationError } from '../../platform/db/errors.js';
import { isPostgres } from '../../platform/db/schema.js';
import { betweenBatches } from '../../platform/streams/between-batches.js';
import type { RefdataTables, ReleasesTable } from '../db/tables.js';
import { DEFAULT_LANGUAGE } from '../families/common.js';
import { PUBLISHED_STATUSES } from '../lifecycle/views.js';
import type { RowWithFacts } from '../resources/rows.js';

export type ReleaseRow = Selectable<ReleasesTable>;

/** A release of this version of this library, or one made at the same moment, exists. */
export class ReleaseConflict extends Error {
  override readonly name = 'ReleaseConflict';
}

/**
 * A library's published view, by id: the library itself, its Approved and
 * Deprecated terms, and the values those of them that are picklists own
 * (wherever their own rows say they live). What a release takes.
 */
export function publishedViewIds(db: Kysely<RefdataTables>, libraryIri: string) {
  const published = [...PUBLISHED_STATUSES];
  return db
    .selectFrom('resources as member')
    .select('member.id')
    .where((eb) =>
      eb.or([
        eb('member.iri', '=', libraryIri),
        eb.and([eb('member.library_key', '=', libraryIri), eb('member.status', 'in', published)]),
        eb(
          'member.parent_iri',
          'in',
          eb
            .selectFrom('resources as aggregate')
            .select('aggregate.iri')
            .where('aggregate.library_key', '=', libraryIri)
            .where('aggregate.status', 'in', published),
        ),
      ]),
    );
}

/** The members read at a time, so a release of any size is read in bounded memory. */
export const MEMBER_BATCH = 500;

/** A file of a release as stored: its checksum, size and gzipped bytes. */
export interface ReleaseFile {
  format: string;
  sha256: string;
  byteSize: number;
  gzipped: Buffer;
}

/**
 * Releases and their members. A release is written in one transaction (its row,
 * one member per resource of the library's published view, each pointing at the
 * revision it is released at, and its files) and never changed after.
 */
export class ReleaseStore {
  constructor(
    private readonly db: Kysely<RefdataTables>,
    /** The body field an aggregate's revisions list its values under. */
    private readonly valuesFieldOf: (family: string) => string | undefined,
  ) {}

  /** A library's releases, the latest first. */
  list(libraryIri: string): Promise<ReleaseRow[]> {
    return this.db
      .selectFrom('releases')
      .selectAll()
      .where('library_iri', '=', libraryIri)
      .orderBy('sequence', 'desc')
      .execute();
  }

  find(libraryIri: string, version: string): Promise<ReleaseRow | undefined> {
    return this.db
      .selectFrom('releases')
      .selectAll()
      .where('library_iri', '=', libraryIri)
      .where('version', '=', version)
      .executeTakeFirst();
  }

  latest(libraryIri: string): Promise<ReleaseRow | undefined> {
    return this.db
      .selectFrom('releases')
      .selectAll()
      .where('library_iri', '=', libraryIri)
      .orderBy('sequence', 'desc')
      .limit(1)
      .executeTakeFirst();
  }

  /**
   * The latest release holding this resource, and the version of the resource
   * it holds (older than the resource's own when it changed since).
   */
  async latestHolding(
    resourceId: number,
  ): Promise<{ iri: string; version: string; memberVersion: number } | undefined> {
    const row = await this.db
      .selectFrom('release_members as member')
      .innerJoin('releases as release', 'release.id', 'member.release_id')
      .innerJoin('revisions as revision', 'revision.id', 'member.revision_id')
      .select(['release.iri', 'release.version', 'revision.version as member_version'])
      .where('member.resource_id', '=', resourceId)
      .orderBy('release.sequence', 'desc')
      .limit(1)
      .executeTakeFirst();
    return row
      ? { iri: row.iri, version: row.version, memberVersion: Number(row.member_version) }
      : undefined;
  }

  /** Each released library's latest release, by library IRI. */
  async latestOfEach(): Promise<Map<string, { iri: string; version: string }>> {
    const rows = await this.db
      .selectFrom('releases as release')
      .select(['release.library_iri', 'release.iri', 'release.version'])
      .where(({ eb, selectFrom }) =>
        eb(
          'release.sequence',
          '=',
          selectFrom('releases as other')
            .select(({ fn }) => fn.max('other.sequence').as('latest'))
            .whereRef('other.library_iri', '=', 'release.library_iri'),
        ),
      )
      .execute();
    return new Map(rows.map((row) => [row.library_iri, { iri: row.iri, version: row.version }]));
  }

  /** The release made just before this one, if any. */
  previous(release: ReleaseRow): Promise<ReleaseRow | undefined> {
    return this.db
      .selectFrom('releases')
      .selectAll()
      .where('library_iri', '=', release.library_iri)
      .where('sequence', '=', release.sequence - 1)
      .executeTakeFirst();
  }

  /**
   * Makes a release of the library's published view: the library itself and
   * every Approved or Deprecated term of it, with the values its published
   * picklists own, each at its current revision, in one transaction. `follows`
   * is the release it must come right after (undefined for the first): one made
   * meanwhile is a conflict. Its files are written after (`addFile`), so that no
   * transaction is held open while they are.
   */
  async create(release: {
    iri: string;
    libraryIri: string;
    version: string;
    notes: string;
    actor: string;
    at: number;
    follows: ReleaseRow | undefined;
    /** What `changeMarker` said when the library was checked: it must still say so. */
    checked: string;
  }): Promise<ReleaseRow> {
    try {
      // On PostgreSQL every statement of the transaction reads one snapshot, so the
      // members are what the marker describes (SQLite's one writer gives the same).
      const transaction = isPostgres(this.db)
        ? this.db.transaction().setIsolationLevel('repeatable read')
        : this.db.transaction();
      return await transaction.execute(async (trx) => {
        if ((await this.changeMarker(release.libraryIri, trx)) !== release.checked)
          throw new ReleaseConflict(
            'The library changed while its quality report was made; release again.',
          );
        const row = await trx
          .insertInto('releases')
          .values({
            iri: release.iri,
            library_iri: release.libraryIri,
            version: release.version,
            sequence: (release.follows?.sequence ?? 0) + 1,
            notes: release.notes,
            released_by: release.actor,
            released_at: release.at,
          })
          .returningAll()
          .executeTakeFirstOrThrow();
        await this.insertMembers(trx, row.id, release.libraryIri);
        const counted = await trx
          .selectFrom('release_members')
          .select((eb) => eb.fn.countAll<number>().as('count'))
          .where('release_id', '=', row.id)
          .executeTakeFirstOrThrow();
        const count = Number(counted.count);
        await trx
          .updateTable('releases')
          .set({ resource_count: count })
          .where('id', '=', row.id)
          .execute();
        return { ...row, resource_count: count };
      });
    } catch (error) {
      if (error instanceof ConstraintViolationError && error.kind === 'unique')
        throw new ReleaseConflict(
          `A release of this library was made meanwhile, or ${release.version} exists; read its releases again.`,
        );
      throw error;
    }
  }

  /**
   * A mark that changes whenever the library or one of its terms does (a new
   * term, any write, any step of the lifecycle bumps a version): taken before a
   * quality report and again in the release's transaction, so that nothing
   * reaches a release unchecked.
   */
  async changeMarker(libraryIri: string, db: Kysely<RefdataTables> = this.db): Promise<string> {
    const row = await db
      .selectFrom('resources')
      .select((eb) => [
        eb.fn.countAll<number>().as('count'),
        eb.fn.sum<number>('version').as('versions'),
      ])
      .where((eb) => eb.or([eb('library_key', '=', libraryIri), eb('iri', '=', libraryIri)]))
      .executeTakeFirstOrThrow();
    return `${Number(row.count)}-${Number(row.versions ?? 0)}`;
  }

  /** Stores a file of a release; a file stored already (by another instance) is kept. */
  async addFile(releaseId: number, file: ReleaseFile): Promise<void> {
    await this.db
      .insertInto('release_files')
      .values({
        release_id: releaseId,
        format: file.format,
        sha256: file.sha256,
        byte_size: file.byteSize,
        gzipped: file.gzipped,
      })
      .onConflict((conflict) => conflict.columns(['release_id', 'format']).doNothing())
      .execute();
  }

  /** One member per resource of the published view, in one statement. */
  private async insertMembers(
    trx: Transaction<RefdataTables>,
    releaseId: number,
    libraryIri: string,
  ): Promise<void> {
    const published = [...PUBLISHED_STATUSES];
    const members = trx
      .selectFrom('resources as resource')
      .innerJoin('revisions as revision', (join) =>
        join
          .onRef('revision.resource_id', '=', 'resource.id')
          .onRef('revision.version', '=', 'resource.version'),
      )
      .select((eb) => [
        sql<number>`${releaseId}`.as('release_id'),
        'resource.id as resource_id',
        'revision.id as revision_id',
        'resource.iri',
        'resource.family',
        'resource.library_key',
        'resource.parent_iri',
        'resource.created_by',
        'resource.created_at',
        eb
          .selectFrom('resources as replacement')
          .select('replacement.iri')
          .whereRef('replacement.replaces_iri', '=', 'resource.iri')
          .where('replacement.status', 'in', published)
          .orderBy('replacement.id', 'desc')
          .limit(1)
          .as('replaced_by'),
      ])
      .where('resource.id', 'in', publishedViewIds(trx, libraryIri));
    await trx
      .insertInto('release_members')
      .columns([
        'release_id',
        'resource_id',
        'revision_id',
        'iri',
        'family',
        'library_key',
        'parent_iri',
        'created_by',
        'created_at',
        'replaced_by',
      ])
      .expression(members)
      .execute();
  }

  /**
   * A release's members after `afterResourceId`, `MEMBER_BATCH` at a time, each
   * as the row it was when released (its revision's status, body and time),
   * with the justification it had then.
   */
  async members(releaseId: number, afterResourceId: number): Promise<RowWithFacts[]> {
    const rows = await this.db
      .selectFrom('release_members as member')
      .innerJoin('revisions as revision', 'revision.id', 'member.revision_id')
      .select([
        'member.resource_id',
        'member.revision_id',
        'member.iri',
        'member.family',
        'member.library_key',
        'member.parent_iri',
        'member.created_by',
        'member.created_at',
        'member.replaced_by',
        'revision.status',
        'revision.body',
        'revision.version',
        'revision.actor',
        'revision.created_at as revised_at',
      ])
      // The language of its labels: fixed for a resource, so its row's now is its row's then.
      .select((eb) =>
        eb
          .selectFrom('resources as own')
          .select('own.language')
          .whereRef('own.iri', '=', 'member.iri')
          .as('language'),
      )
      .where('member.release_id', '=', releaseId)
      .where('member.resource_id', '>', afterResourceId)
      .orderBy('member.resource_id')
      .limit(MEMBER_BATCH)
      .execute();
    const justifications = await this.justificationsAt(rows);
    return rows.map((member) => {
      const body = this.ownBody(member.family, member.body);
      return {
        id: member.resource_id,
        iri: member.iri,
        family: member.family,
        status: member.status,
        name: typeof body.name === 'string' ? body.name : '',
        name_normalized: '',
        name_scope: '',
        library_key: member.library_key,
        parent_iri: member.parent_iri,
        replaces_iri: typeof body.replaces === 'string' ? body.replaces : null,
        body: JSON.stringify(body),
        language: member.language ?? DEFAULT_LANGUAGE,
        version: member.version,
        created_by: member.created_by,
        created_at: Number(member.created_at),
        updated_by: member.actor,
        updated_at: Number(member.revised_at),
        justification: justifications.get(member.resource_id) ?? null,
        replaced_by: member.replaced_by,
      };
    });
  }

  /**
   * Each member's justification as it was at its revision: its author's last
   * (from the create or update at or before that revision), one query a batch.
   */
  private async justificationsAt(
    members: readonly { resource_id: number; revision_id: number }[],
  ): Promise<Map<number, string>> {
    if (members.length === 0) return new Map();
    const upTo = new Map(members.map((member) => [member.resource_id, member.revision_id]));
    const authored = await this.db
      .selectFrom('revisions')
      .select(['resource_id', 'id', 'justification'])
      .where('resource_id', 'in', [...upTo.keys()])
      .where('action', 'in', ['create', 'update'])
      .orderBy('id')
      .execute();
    const found = new Map<number, string>();
    for (const revision of authored)
      if (revision.id <= (upTo.get(revision.resource_id) ?? 0))
        found.set(revision.resource_id, revision.justification);
    return found;
  }

  /** Every member of a release, batch by batch. */
  async *allMembers(releaseId: number): AsyncGenerator<RowWithFacts[]> {
    let after = 0;
    for (;;) {
      const rows = await this.members(releaseId, after);
      if (rows.length === 0) return;
      yield rows;
      after = rows[rows.length - 1]?.id ?? after;
      await betweenBatches();
    }
  }

  /** The stored summary of a release's changes from the one before, if worked out yet. */
  async changesSummary(releaseId: number): Promise<string | undefined> {
    const row = await this.db
      .selectFrom('release_changes')
      .select('summary')
      .where('release_id', '=', releaseId)
      .executeTakeFirst();
    return row?.summary;
  }

  /** Keeps it; one kept already (by another instance, the same) stays. */
  async keepChangesSummary(releaseId: number, summary: string): Promise<void> {
    await this.db
      .insertInto('release_changes')
      .values({ release_id: releaseId, summary })
      .onConflict((conflict) => conflict.column('release_id').doNothing())
      .execute();
  }

  /** A stored file of a release, or undefined. */
  async file(releaseId: number, format: string): Promise<ReleaseFile | undefined> {
    const row = await this.db
      .selectFrom('release_files')
      .selectAll()
      .where('release_id', '=', releaseId)
      .where('format', '=', format)
      .executeTakeFirst();
    return row && { format, sha256: row.sha256, byteSize: row.byte_size, gzipped: row.gzipped };
  }

  /** A release's files without their bytes: what its description lists. */
  async fileList(releaseId: number): Promise<Omit<ReleaseFile, 'gzipped'>[]> {
    const rows = await this.db
      .selectFrom('release_files')
      .select(['format', 'sha256', 'byte_size'])
      .where('release_id', '=', releaseId)
      .orderBy('format')
      .execute();
    return rows.map((row) => ({ format: row.format, sha256: row.sha256, byteSize: row.byte_size }));
  }

  /**
   * An aggregate's revision lists its values (so its history shows them); its
   * own body, as its row holds it, is the rest: the values are members of their own.
   */
  private ownBody(family: string, text: string): Record<string, unknown> {
    const body = JSON.parse(text) as Record<string, unknown>;
    const field = this.valuesFieldOf(family);
    if (field !== undefined) delete body[field];
    return body;
  }
}
