import { type Expression, type Kysely, sql } from 'kysely';
import { prefixedColumns, splitPrefixed } from '../../platform/db/joined-rows.js';
import { reusableQuery } from '../../platform/db/reusable-query.js';
import type { UserRow } from '../accounts/users.js';
import type { CodehostTables } from '../db/tables.js';
import { ancestorPaths, type GroupStore, NAMESPACE_COLUMNS, type NamespaceRow } from './groups.js';
import { ACCESS_LEVELS } from './levels.js';
import type { MemberStore } from './members.js';
import type { ProjectRow } from './projects.js';

/**
 * Who may read and manage what. Readability follows GitLab: public and internal
 * groups and projects for every signed-in user (the API has no anonymous
 * callers), private ones for admins and members; membership of a group reaches
 * its subgroups and projects, and a member of something inside a private group
 * may see that group.
 */
export class AccessPolicy {
  constructor(
    private readonly db: Kysely<CodehostTables>,
    private readonly groups: GroupStore,
    private readonly members: MemberStore,
  ) {}

  /** The highest access through the group or any group above it. */
  async groupAccess(user: UserRow, group: NamespaceRow): Promise<number> {
    return this.highestAccess(user, undefined, group);
  }

  async projectAccess(
    user: UserRow,
    project: ProjectRow,
    namespace: NamespaceRow,
  ): Promise<number> {
    if (namespace.kind === 'user' && namespace.owner_id === user.id) return ACCESS_LEVELS.owner;
    return this.highestAccess(user, project, namespace.kind === 'group' ? namespace : undefined);
  }

  /**
   * One query for the highest of a user's direct membership of a project and
   * memberships of a group and the groups above it, since every API request on
   * a private source asks it.
   */
  private async highestAccess(
    user: UserRow,
    project: ProjectRow | undefined,
    group: NamespaceRow | undefined,
  ): Promise<number> {
    const row = await this.db
      .selectNoFrom(
        membershipLevel(this.db, {
          userId: sql.val(user.id),
          projectId: project ? sql.val(project.id) : undefined,
          namespace: group
            ? {
                id: sql.val(group.id),
                kind: sql.val(group.kind),
                path: sql.val(group.full_path_normalized),
              }
            : undefined,
        }).as('level'),
      )
      .executeTakeFirst();
    return Number(row?.level ?? 0);
  }

  /**
   * A project, its namespace and the user's access to it, in one statement
   * (every API request on a project asks), by id or by full path.
   */
  async projectWithAccess(
    user: UserRow,
    key: ProjectKey,
  ): Promise<{ project: ProjectRow; namespace: NamespaceRow; access: number } | undefined> {
    const query =
      'id' in key
        ? this.projectWithAccessById(user.id, key.id)
        : this.projectWithAccessByPath(user.id, key.fullPath.toLowerCase());
    const [row] = (await this.db.executeQuery(query)).rows;
    return row ? this.projectFromRow(user, row) : undefined;
  }

  /** A row of `projectQuery` as the project, its namespace and the user's access. */
  projectFromRow(
    user: UserRow,
    row: Record<string, unknown>,
  ): { project: ProjectRow; namespace: NamespaceRow; access: number } {
    const { member_access_level: level, ...rest } = row;
    const { prefixed: namespace, rest: project } = splitPrefixed<NamespaceRow, ProjectRow>(
      rest,
      NAMESPACE_PREFIX,
    );
    const owner = namespace.kind === 'user' && namespace.owner_id === user.id;
    return { project, namespace, access: owner ? ACCESS_LEVELS.owner : Number(level ?? 0) };
  }

  /**
   * Projects with their namespaces and the access of the user `userId` names
   * (a value or a reusableQuery stand-in), for a caller to narrow and join to;
   * `projectFromRow` reads its rows.
   */
  projectQuery(userId: string) {
    return this.db
      .selectFrom('projects')
      .innerJoin('namespaces', 'namespaces.id', 'projects.namespace_id')
      .selectAll('projects')
      .select(prefixedColumns('namespaces', NAMESPACE_COLUMNS, NAMESPACE_PREFIX))
      .select(
        membershipLevel(this.db, {
          userId: sql<number>`${userId}`,
          projectId: sql.ref('projects.id'),
          namespace: {
            id: sql.ref('namespaces.id'),
            kind: sql.ref('namespaces.kind'),
            path: sql.ref('namespaces.full_path_normalized'),
          },
        }).as('member_access_level'),
      );
  }

  // Built once each: every API request on a project runs one of them.
  private readonly projectWithAccessById = reusableQuery((userId: string, id: string) =>
    this.projectQuery(userId).where('projects.id', '=', id as unknown as number),
  );
  private readonly projectWithAccessByPath = reusableQuery((userId: string, path: string) =>
    this.projectQuery(userId).where('projects.full_path_normalized', '=', path),
  );

  /** Whether a user with this access may read the project: the rule of `canReadProject`. */
  readsProjectWith(user: UserRow, project: ProjectRow, access: number): boolean {
    return user.is_admin === 1 || project.visibility_level >= 10 || access > 0;
  }

  async canReadGroup(user: UserRow, group: NamespaceRow): Promise<boolean> {
    if (user.is_admin === 1 || group.visibility_level >= 10) return true;
    return (await this.reachableGroupIds(user)).has(group.id);
  }

  async canReadProject(
    user: UserRow,
    project: ProjectRow,
    namespace: NamespaceRow,
  ): Promise<boolean> {
    if (this.readsProjectWith(user, project, 0)) return true;
    return (await this.projectAccess(user, project, namespace)) > 0;
  }

  async canAdminGroup(user: UserRow, group: NamespaceRow): Promise<boolean> {
    return user.is_admin === 1 || (await this.groupAccess(user, group)) >= ACCESS_LEVELS.owner;
  }

  async canAdminProject(user: UserRow, project: ProjectRow, namespace: NamespaceRow) {
    return (
      user.is_admin === 1 ||
      (await this.projectAccess(user, project, namespace)) >= ACCESS_LEVELS.master
    );
  }

  /** Projects go into one's own namespace, or a group where one is master or owner. */
  async canCreateProjectIn(user: UserRow, namespace: NamespaceRow): Promise<boolean> {
    if (namespace.kind === 'user') return namespace.owner_id === user.id || user.is_admin === 1;
    return user.is_admin === 1 || (await this.groupAccess(user, namespace)) >= ACCESS_LEVELS.master;
  }

  /** Groups a user is a member of, with everything below them. */
  async memberGroupIds(user: UserRow): Promise<number[]> {
    return this.groups.selfAndDescendantIds(await this.members.sourceIdsOf(user.id, 'group'));
  }

  /**
   * Groups a user may read through membership, whatever their visibility: those
   * below a membership, above one, and above a project membership.
   */
  async reachableGroupIds(user: UserRow): Promise<Set<number>> {
    const below = await this.memberGroupIds(user);
    const projectIds = await this.members.sourceIdsOf(user.id, 'project');
    const projectNamespaces =
      projectIds.length === 0
        ? []
        : await this.db
            .selectFrom('projects')
            .select('namespace_id')
            .where('id', 'in', projectIds)
            .execute();
    const containing = await this.groups.findNamespacesByIds([
      ...below,
      ...projectNamespaces.map((row) => row.namespace_id),
    ]);
    const abovePaths = new Set<string>();
    for (const namespace of containing) {
      if (namespace.kind !== 'group') continue;
      abovePaths.add(namespace.full_path_normalized);
      for (const path of ancestorPaths(namespace.full_path_normalized)) abovePaths.add(path);
    }
    const above =
      abovePaths.size === 0
        ? []
        : await this.db
            .selectFrom('namespaces')
            .select('id')
            .where('kind', '=', 'group')
            .where('full_path_normalized', 'in', [...abovePaths])
            .execute();
    return new Set([...below, ...above.map((row) => row.id)]);
  }

  /** Projects a user reaches through membership: direct, through groups, or their own. */
  async memberProjectFilter(
    user: UserRow,
  ): Promise<{ projectIds: number[]; namespaceIds: number[] }> {
    const personal = await this.groups.personalNamespace(user.id);
    return {
      projectIds: await this.members.sourceIdsOf(user.id, 'project'),
      namespaceIds: [...(await this.memberGroupIds(user)), ...(personal ? [personal.id] : [])],
    };
  }
}

const NAMESPACE_PREFIX = 'namespace__';

/** How an API path names a project: by id, or by its full path. */
export type ProjectKey = { id: number } | { fullPath: string };

/**
 * The highest access level a user's memberships give (null for none): a direct
 * membership of the project, or of the namespace's group or any group above it.
 * A group is above when the namespace's full path starts with the group's and
 * a slash; `substr` rather than LIKE, whose wildcards paths may hold (`_`).
 */
function membershipLevel(
  db: Kysely<CodehostTables>,
  input: {
    userId: Expression<number>;
    projectId: Expression<number> | undefined;
    namespace:
      | { id: Expression<number>; kind: Expression<string>; path: Expression<string> }
      | undefined;
  },
) {
  const { projectId, namespace } = input;
  return db
    .selectFrom('members')
    .leftJoin('namespaces as member_group', (join) =>
      join
        .onRef('member_group.id', '=', 'members.source_id')
        .on('members.source_type', '=', 'group'),
    )
    .select((inner) => inner.fn.max('members.access_level').as('level'))
    .where('members.user_id', '=', input.userId)
    .where((inner) =>
      inner.or([
        ...(projectId
          ? [
              inner.and([
                inner('members.source_type', '=', 'project'),
                inner('members.source_id', '=', projectId),
              ]),
            ]
          : []),
        ...(namespace
          ? [
              inner.and([
                inner(namespace.kind, '=', 'group'),
                inner.or([
                  inner('member_group.id', '=', namespace.id),
                  sql<boolean>`substr(${namespace.path}, 1, length(member_group.full_path_normalized) + 1) = member_group.full_path_normalized || '/'`,
                ]),
              ]),
            ]
          : []),
      ]),
    );
}
