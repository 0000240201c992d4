import { type Kysely, type Selectable, sql } from 'kysely';
import { ConstraintViolationError } from '../../platform/db/errors.js';
import { allColumns } from '../../platform/db/joined-rows.js';
import type { CodehostTables, NamespacesTable, VisibilityLevel } from '../db/tables.js';
import { RecordInvalid } from '../record-invalid.js';
import { ACCESS_LEVELS, visibilityName } from './levels.js';
import { isFullPathShaped, nameProblem, pathProblem } from './paths.js';

export type NamespaceRow = Selectable<NamespacesTable>;

/** Every column of a namespace, for reading one joined to what it holds. */
export const NAMESPACE_COLUMNS = allColumns<NamespacesTable>()([
  'id',
  'kind',
  'name',
  'path',
  'full_path',
  'full_path_normalized',
  'full_name',
  'description',
  'visibility_level',
  'parent_id',
  'owner_id',
  'created_at',
  'updated_at',
]);

/** GitLab's limit on group nesting. */
export const MAX_GROUP_DEPTH = 20;

export interface NewGroup {
  name: string;
  path: string;
  description?: string;
  visibilityLevel?: VisibilityLevel;
  parent?: NamespaceRow;
}

/** The full paths of a namespace's ancestors, nearest last: `a/b/c` has `a` and `a/b`. */
export function ancestorPaths(fullPath: string): string[] {
  const parts = fullPath.split('/');
  return parts.slice(0, -1).map((_, index) => parts.slice(0, index + 1).join('/'));
}

/** Groups and personal namespaces. A group's id is its namespace's id, as in GitLab. */
export class GroupStore {
  constructor(
    private readonly db: Kysely<CodehostTables>,
    private readonly now: () => number = Date.now,
  ) {}

  /** Creates a group and makes its creator its owner. */
  async create(input: NewGroup, creatorId: number): Promise<NamespaceRow> {
    const name = input.name.trim();
    const path = input.path.trim();
    const errors: Record<string, string[]> = {};
    const nameError = nameProblem(name);
    if (nameError) errors.name = [nameError];
    const pathError = pathProblem(path);
    if (pathError) errors.path = [pathError];
    const parent = input.parent;
    const visibilityLevel = input.visibilityLevel ?? parent?.visibility_level ?? 0;
    if (parent) {
      if (parent.full_path.split('/').length >= MAX_GROUP_DEPTH) {
        errors.parent_id = ['has too deep level of nesting'];
      }
      if (visibilityLevel > parent.visibility_level) {
        errors.visibility_level = [
          `${visibilityName(visibilityLevel)} is not allowed since the parent group has a ${visibilityName(parent.visibility_level)} visibility.`,
        ];
      }
    }
    if ((input.description ?? '').length > 2000) {
      errors.description = ['is too long (maximum is 2000 characters)'];
    }
    if (Object.keys(errors).length > 0) throw new RecordInvalid(errors);

    const fullPath = parent ? `${parent.full_path}/${path}` : path;
    const now = this.now();
    try {
      return await this.db.transaction().execute(async (trx) => {
        const group = await trx
          .insertInto('namespaces')
          .values({
            kind: 'group',
            name,
            path,
            full_path: fullPath,
            full_path_normalized: fullPath.toLowerCase(),
            full_name: parent ? `${parent.full_name} / ${name}` : name,
            description: input.description ?? '',
            visibility_level: visibilityLevel,
            parent_id: parent?.id ?? null,
            owner_id: null,
            created_at: now,
            updated_at: now,
          })
          .returningAll()
          .executeTakeFirstOrThrow();
        await trx
          .insertInto('members')
          .values({
            user_id: creatorId,
            source_type: 'group',
            source_id: group.id,
            access_level: ACCESS_LEVELS.owner,
            created_at: now,
            updated_at: now,
          })
          .execute();
        return group;
      });
    } catch (error) {
      if (error instanceof ConstraintViolationError && error.kind === 'unique') {
        throw new RecordInvalid({ path: ['has already been taken'] });
      }
      throw error;
    }
  }

  async findById(id: number): Promise<NamespaceRow | undefined> {
    return this.db
      .selectFrom('namespaces')
      .selectAll()
      .where('id', '=', id)
      .where('kind', '=', 'group')
      .executeTakeFirst();
  }

  async findByFullPath(fullPath: string): Promise<NamespaceRow | undefined> {
    if (!isFullPathShaped(fullPath)) return undefined;
    return this.db
      .selectFrom('namespaces')
      .selectAll()
      .where('full_path_normalized', '=', fullPath.toLowerCase())
      .where('kind', '=', 'group')
      .executeTakeFirst();
  }

  /** Any namespace, a user's own or a group. */
  async findNamespace(id: number): Promise<NamespaceRow | undefined> {
    return this.db.selectFrom('namespaces').selectAll().where('id', '=', id).executeTakeFirst();
  }

  async findNamespacesByIds(ids: readonly number[]): Promise<NamespaceRow[]> {
    if (ids.length === 0) return [];
    return this.db.selectFrom('namespaces').selectAll().where('id', 'in', ids).execute();
  }

  async personalNamespace(userId: number): Promise<NamespaceRow | undefined> {
    return this.db
      .selectFrom('namespaces')
      .selectAll()
      .where('owner_id', '=', userId)
      .executeTakeFirst();
  }

  /** The groups and every group below them. */
  async selfAndDescendantIds(groupIds: readonly number[]): Promise<number[]> {
    if (groupIds.length === 0) return [];
    const groups = await this.findNamespacesByIds(groupIds);
    const prefixes = groups.map((group) => `${group.full_path_normalized}/`);
    // A prefix match by substr, not LIKE: paths may hold `_`, LIKE's wildcard.
    const below = await this.db
      .selectFrom('namespaces')
      .select('id')
      .where('kind', '=', 'group')
      .where((eb) =>
        eb.or(
          prefixes.map((prefix) =>
            eb(sql`substr(full_path_normalized, 1, ${prefix.length})`, '=', prefix),
          ),
        ),
      )
      .execute();
    return [...new Set([...groupIds, ...below.map((row) => row.id)])];
  }
}
