import type { Kysely, Selectable } from 'kysely';
import { ConstraintViolationError } from '../../platform/db/errors.js';
import type { CodehostTables, MembersTable, SourceType, UsersTable } from '../db/tables.js';
import type { AccessLevel } from './levels.js';

export type MemberRow = Selectable<MembersTable>;

/** Adding someone who already is a member. */
export class MemberExists extends Error {
  override readonly name = 'MemberExists';
}

/** Memberships of groups and projects, with GitLab's access levels. */
export class MemberStore {
  constructor(
    private readonly db: Kysely<CodehostTables>,
    private readonly now: () => number = Date.now,
  ) {}

  async add(
    sourceType: SourceType,
    sourceId: number,
    userId: number,
    accessLevel: AccessLevel,
  ): Promise<MemberRow> {
    const now = this.now();
    try {
      return await this.db
        .insertInto('members')
        .values({
          user_id: userId,
          source_type: sourceType,
          source_id: sourceId,
          access_level: accessLevel,
          created_at: now,
          updated_at: now,
        })
        .returningAll()
        .executeTakeFirstOrThrow();
    } catch (error) {
      if (error instanceof ConstraintViolationError && error.kind === 'unique') {
        throw new MemberExists('Member already exists');
      }
      throw error;
    }
  }

  /** The highest access a user has through direct membership of any of these sources. */
  async highestAccess(
    userId: number,
    sourceType: SourceType,
    sourceIds: readonly number[],
  ): Promise<number> {
    if (sourceIds.length === 0) return 0;
    const row = await this.db
      .selectFrom('members')
      .select((eb) => eb.fn.max('access_level').as('level'))
      .where('user_id', '=', userId)
      .where('source_type', '=', sourceType)
      .where('source_id', 'in', sourceIds)
      .executeTakeFirst();
    return Number(row?.level ?? 0);
  }

  /** Ids of the sources of one kind a user is a direct member of. */
  async sourceIdsOf(userId: number, sourceType: SourceType): Promise<number[]> {
    const rows = await this.db
      .selectFrom('members')
      .select('source_id')
      .where('user_id', '=', userId)
      .where('source_type', '=', sourceType)
      .execute();
    return rows.map((row) => row.source_id);
  }

  async list(
    sourceType: SourceType,
    sourceId: number,
  ): Promise<(MemberRow & { user: Selectable<UsersTable> })[]> {
    const rows = await this.db
      .selectFrom('members')
      .innerJoin('users', 'users.id', 'members.user_id')
      .selectAll('users')
      .select([
        'members.id as member_id',
        'members.access_level',
        'members.source_type',
        'members.source_id',
        'members.created_at as member_created_at',
        'members.updated_at as member_updated_at',
      ])
      .where('members.source_type', '=', sourceType)
      .where('members.source_id', '=', sourceId)
      .orderBy('members.id')
      .execute();
    return rows.map((row) => {
      const {
        member_id,
        access_level,
        source_type,
        source_id,
        member_created_at,
        member_updated_at,
        ...user
      } = row;
      return {
        id: member_id,
        user_id: user.id,
        source_type,
        source_id,
        access_level,
        created_at: member_created_at,
        updated_at: member_updated_at,
        user,
      };
    });
  }
}
