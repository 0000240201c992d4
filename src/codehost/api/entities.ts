import type { UserRow } from '../accounts/users.js';
import type { NamespaceRow } from '../namespaces/groups.js';
import { visibilityName } from '../namespaces/levels.js';
import type { ProjectRow } from '../namespaces/projects.js';

function iso(time: number | null): string | null {
  return time === null ? null : new Date(Number(time)).toISOString();
}

/**
 * GitLab's entities for groups, projects and members. Visibility is given both
 * ways, `visibility_level` (API v3) and `visibility` (v4), since one shape
 * serves both prefixes and each version's clients read their own field.
 */
export function groupEntity(group: NamespaceRow, publicUrl: string) {
  return {
    id: group.id,
    name: group.name,
    path: group.path,
    description: group.description,
    visibility_level: group.visibility_level,
    visibility: visibilityName(group.visibility_level),
    lfs_enabled: true,
    avatar_url: null,
    web_url: `${publicUrl}/groups/${group.full_path}`,
    request_access_enabled: false,
    full_name: group.full_name,
    full_path: group.full_path,
    parent_id: group.parent_id,
    created_at: iso(group.created_at),
  };
}

export function userBasicEntity(user: UserRow, publicUrl: string) {
  return {
    id: user.id,
    name: user.name,
    username: user.username,
    state: user.state,
    avatar_url: null,
    web_url: `${publicUrl}/${user.username}`,
  };
}

export function memberEntity(user: UserRow, accessLevel: number, publicUrl: string) {
  return { ...userBasicEntity(user, publicUrl), access_level: accessLevel, expires_at: null };
}

export function namespaceEntity(namespace: NamespaceRow) {
  return {
    id: namespace.id,
    name: namespace.name,
    path: namespace.path,
    kind: namespace.kind,
    full_path: namespace.full_path,
    parent_id: namespace.parent_id,
  };
}

export function projectEntity(
  project: ProjectRow,
  namespace: NamespaceRow,
  owner: UserRow | undefined,
  publicUrl: string,
) {
  const host = new URL(publicUrl).hostname;
  return {
    id: project.id,
    description: project.description,
    name: project.name,
    name_with_namespace: `${namespace.full_name} / ${project.name}`,
    path: project.path,
    path_with_namespace: project.full_path,
    created_at: iso(project.created_at),
    last_activity_at: iso(project.updated_at),
    default_branch: null,
    tag_list: [],
    ssh_url_to_repo: `git@${host}:${project.full_path}.git`,
    http_url_to_repo: `${publicUrl}/${project.full_path}.git`,
    web_url: `${publicUrl}/${project.full_path}`,
    visibility_level: project.visibility_level,
    visibility: visibilityName(project.visibility_level),
    public: project.visibility_level === 20,
    ...(owner ? { owner: userBasicEntity(owner, publicUrl) } : {}),
    namespace: namespaceEntity(namespace),
    archived: false,
    avatar_url: null,
    star_count: 0,
    forks_count: 0,
    open_issues_count: 0,
    creator_id: project.creator_id,
    issues_enabled: true,
    merge_requests_enabled: true,
    wiki_enabled: true,
    builds_enabled: true,
    snippets_enabled: false,
    request_access_enabled: false,
    shared_with_groups: [],
  };
}
