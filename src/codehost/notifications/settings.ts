import type { Kysely, Selectable, Transaction } from 'kysely';
import { allColumns, prefixedColumns, splitPrefixed } from '../../platform/db/joined-rows.js';
import { reusableQuery } from '../../platform/db/reusable-query.js';
import type { UserRow } from '../accounts/users.js';
import type { CodehostTables, Flag, NotificationSettingsTable, SourceType } from '../db/tables.js';
import type { AccessPolicy, ProjectKey } from '../namespaces/access.js';
import type { ProjectRow } from '../namespaces/projects.js';

/** GitLab's levels, each at the index it is stored as. */
export const NOTIFICATION_LEVELS = [
  'disabled',
  'participating',
  'watch',
  'global',
  'mention',
  'custom',
] as const;
export type NotificationLevel = (typeof NOTIFICATION_LEVELS)[number];

/** The ten e-mail events a `custom` level chooses from. */
export const NOTIFICATION_EVENTS = [
  'new_note',
  'new_issue',
  'reopen_issue',
  'close_issue',
  'reassign_issue',
  'new_merge_request',
  'reopen_merge_request',
  'close_merge_request',
  'reassign_merge_request',
  'merge_merge_request',
] as const;
export type NotificationEvent = (typeof NOTIFICATION_EVENTS)[number];

export function isNotificationLevel(value: string): value is NotificationLevel {
  return (NOTIFICATION_LEVELS as readonly string[]).includes(value);
}

export type NotificationSource = { type: 'global' } | { type: SourceType; id: number };

export interface NotificationSetting {
  level: NotificationLevel;
  /** Kept while the level is not `custom`, shown again when it is. */
  events: Record<NotificationEvent, boolean>;
}

export interface NotificationChanges {
  level?: NotificationLevel;
  events?: Partial<Record<NotificationEvent, boolean>>;
}

type SettingRow = Selectable<NotificationSettingsTable>;
type Nullable<Row> = { [Column in keyof Row]: Row[Column] | null };

/** What a stored row is when there is none yet: GitLab's defaults. */
const DEFAULT_LEVEL: Record<NotificationSource['type'], NotificationLevel> = {
  global: 'participating',
  group: 'global',
  project: 'global',
};

function sourceKey(source: NotificationSource): {
  source_type: SettingRow['source_type'];
  source_id: number;
} {
  return source.type === 'global'
    ? { source_type: 'global', source_id: 0 }
    : { source_type: source.type, source_id: source.id };
}

function toSetting(row: SettingRow): NotificationSetting {
  const events = {} as Record<NotificationEvent, boolean>;
  for (const event of NOTIFICATION_EVENTS) events[event] = row[event] === 1;
  return { level: NOTIFICATION_LEVELS[row.level] ?? 'global', events };
}

const SETTING_COLUMNS = allColumns<NotificationSettingsTable>()([
  'id',
  'user_id',
  'source_type',
  'source_id',
  'level',
  ...NOTIFICATION_EVENTS,
  'created_at',
  'updated_at',
]);
const SETTING_PREFIX = 'setting__';

/** Notification settings: one row per user and source (the global one included). */
export class NotificationSettingStore {
  constructor(
    private readonly db: Kysely<CodehostTables>,
    private readonly access: AccessPolicy,
    private readonly now: () => number = Date.now,
  ) {}

  /**
   * A project the user may read, with the user's setting for it (undefined
   * when none is stored), in one statement: the project, its namespace, the
   * user's access and the setting, where a lookup and then a read took two.
   */
  async findForReadableProject(
    user: UserRow,
    key: ProjectKey,
  ): Promise<{ project: ProjectRow; setting: NotificationSetting | undefined } | undefined> {
    const query =
      'id' in key
        ? this.projectSettingById(user.id, key.id)
        : this.projectSettingByPath(user.id, key.fullPath.toLowerCase());
    const [row] = (await this.db.executeQuery(query)).rows;
    if (!row) return undefined;
    const { prefixed, rest } = splitPrefixed<Nullable<SettingRow>, Record<string, unknown>>(
      row,
      SETTING_PREFIX,
    );
    const { project, access } = this.access.projectFromRow(user, rest);
    if (!this.access.readsProjectWith(user, project, access)) return undefined;
    return {
      project,
      setting: prefixed.id === null ? undefined : toSetting(prefixed as SettingRow),
    };
  }

  private projectSettingQuery(userId: string) {
    return this.access
      .projectQuery(userId)
      .leftJoin('notification_settings as setting', (join) =>
        join
          .on('setting.user_id', '=', userId as unknown as number)
          .on('setting.source_type', '=', 'project')
          .onRef('setting.source_id', '=', 'projects.id'),
      )
      .select(prefixedColumns('setting', SETTING_COLUMNS, SETTING_PREFIX));
  }

  // Built once each (values are stand-ins): the API reads one on every request.
  private readonly projectSettingById = reusableQuery((userId: string, id: string) =>
    this.projectSettingQuery(userId).where('projects.id', '=', id as unknown as number),
  );
  private readonly projectSettingByPath = reusableQuery((userId: string, path: string) =>
    this.projectSettingQuery(userId).where('projects.full_path_normalized', '=', path),
  );

  /** The global setting; the first read stores GitLab's default, `participating`. */
  async global(userId: number): Promise<NotificationSetting> {
    await this.ensureRow(this.db, userId, { type: 'global' });
    return toSetting(await this.row(this.db, userId, { type: 'global' }));
  }

  /** A group's or project's setting, or undefined when none is stored (reads store nothing). */
  /** The API reads one setting per request: built once. */
  private readonly byKey = reusableQuery((userId: string, type: string, id: string) =>
    this.db
      .selectFrom('notification_settings')
      .selectAll()
      .where('user_id', '=', userId as unknown as number)
      .where('source_type', '=', type as SettingRow['source_type'])
      .where('source_id', '=', id as unknown as number),
  );

  async find(userId: number, source: NotificationSource): Promise<NotificationSetting | undefined> {
    const key = sourceKey(source);
    const query = this.byKey(userId, key.source_type, key.source_id);
    const [row] = (await this.db.executeQuery(query)).rows;
    return row ? toSetting(row) : undefined;
  }

  /** Stored levels of several sources of one kind, for listing them. */
  async levels(
    userId: number,
    type: SourceType,
    ids: readonly number[],
  ): Promise<Map<number, NotificationLevel>> {
    if (ids.length === 0) return new Map();
    const rows = await this.db
      .selectFrom('notification_settings')
      .select(['source_id', 'level'])
      .where('user_id', '=', userId)
      .where('source_type', '=', type)
      .where('source_id', 'in', ids)
      .execute();
    return new Map(rows.map((row) => [row.source_id, NOTIFICATION_LEVELS[row.level] ?? 'global']));
  }

  /**
   * Applies exactly the changes given, creating the row (with the default level
   * for what was not sent) if there is none, in one upsert: the unique (user,
   * source) constraint makes concurrent first writes meet in one row. `alongside`
   * runs in the same transaction, so that a related change (the notification
   * e-mail) commits or fails with this one.
   */
  async update(
    userId: number,
    source: NotificationSource,
    changes: NotificationChanges,
    alongside?: (trx: Transaction<CodehostTables>) => Promise<void>,
  ): Promise<NotificationSetting> {
    if (!alongside) return this.upsert(this.db, userId, source, changes);
    return this.db.transaction().execute(async (trx) => {
      const setting = await this.upsert(trx, userId, source, changes);
      await alongside(trx);
      return setting;
    });
  }

  private async upsert(
    db: Kysely<CodehostTables>,
    userId: number,
    source: NotificationSource,
    changes: NotificationChanges,
  ): Promise<NotificationSetting> {
    const now = this.now();
    const changed: Partial<Record<NotificationEvent, Flag>> & { level?: number } = {};
    if (changes.level !== undefined) changed.level = NOTIFICATION_LEVELS.indexOf(changes.level);
    for (const [event, enabled] of Object.entries(changes.events ?? {})) {
      changed[event as NotificationEvent] = enabled ? 1 : 0;
    }
    const row = await db
      .insertInto('notification_settings')
      .values({
        user_id: userId,
        ...sourceKey(source),
        level: NOTIFICATION_LEVELS.indexOf(DEFAULT_LEVEL[source.type]),
        ...changed,
        created_at: now,
        updated_at: now,
      })
      .onConflict((conflict) =>
        conflict
          .columns(['user_id', 'source_type', 'source_id'])
          .doUpdateSet({ ...changed, updated_at: now }),
      )
      .returningAll()
      .executeTakeFirstOrThrow();
    return toSetting(row);
  }

  /**
   * Inserts the default row unless one exists. The unique (user, source)
   * constraint makes concurrent first writes meet in one row instead of two.
   */
  private async ensureRow(
    db: Kysely<CodehostTables>,
    userId: number,
    source: NotificationSource,
  ): Promise<void> {
    const now = this.now();
    await db
      .insertInto('notification_settings')
      .values({
        user_id: userId,
        ...sourceKey(source),
        level: NOTIFICATION_LEVELS.indexOf(DEFAULT_LEVEL[source.type]),
        created_at: now,
        updated_at: now,
      })
      .onConflict((conflict) =>
        conflict.columns(['user_id', 'source_type', 'source_id']).doNothing(),
      )
      .execute();
  }

  private async row(
    db: Kysely<CodehostTables>,
    userId: number,
    source: NotificationSource,
  ): Promise<SettingRow> {
    const key = sourceKey(source);
    return db
      .selectFrom('notification_settings')
      .selectAll()
      .where('user_id', '=', userId)
      .where('source_type', '=', key.source_type)
      .where('source_id', '=', key.source_id)
      .executeTakeFirstOrThrow();
  }
}
