import type { Kysely } from 'kysely';
import type { UserRow } from '../accounts/users.js';
import type { CodehostTables } from '../db/tables.js';
import { ancestorPaths, type GroupStore, type NamespaceRow } from './groups.js';
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
   * memberships of a group and the groups above it (found by their full paths),
   * since every API request on a private source asks it.
   */
  private async highestAccess(
    user: UserRow,
    project: ProjectRow | undefined,
    group: NamespaceRow | undefined,
  ): Promise<number> {
    const groupPaths = group
      ? [group.full_path_normalized, ...ancestorPaths(group.full_path_normalized)]
      : [];
    const row = await this.db
      .selectFrom('members')
      .leftJoin('namespaces', (join) =>
        join
          .onRef('namespaces.id', '=', 'members.source_id')
          .on('members.source_type', '=', 'group'),
      )
      .select((eb) => eb.fn.max('members.access_level').as('level'))
      .where('members.user_id', '=', user.id)
      .where((eb) =>
        eb.or([
          ...(project
            ? [
                eb.and([
                  eb('members.source_type', '=', 'project'),
                  eb('members.source_id', '=', project.id),
                ]),
              ]
            : []),
          ...(groupPaths.length > 0
            ? [eb('namespaces.full_path_normalized', 'in', groupPaths)]
            : []),
        ]),
      )
      .executeTakeFirst();
    return Number(row?.level ?? 0);
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
    if (user.is_admin === 1 || project.visibility_level >= 10) return true;
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
