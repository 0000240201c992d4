import type { UserRow } from '../accounts/users.js';
import type { Codehost } from '../context.js';
import type { ProjectKey } from '../namespaces/access.js';
import type { NamespaceRow } from '../namespaces/groups.js';
import { isFullPathShaped } from '../namespaces/paths.js';
import type { ProjectRow } from '../namespaces/projects.js';
import { notFound } from './gitlab-errors.js';

const NUMERIC_ID = /^\d{1,15}$/;

async function ifReadableGroup(codehost: Codehost, user: UserRow, group: NamespaceRow | undefined) {
  return group && (await codehost.access.canReadGroup(user, group)) ? group : undefined;
}

/** A group by id, when the user may read it (the web pages name groups by id only). */
export async function readableGroupById(codehost: Codehost, user: UserRow, id: number) {
  return ifReadableGroup(codehost, user, await codehost.groups.findById(id));
}

export async function readableProjectById(codehost: Codehost, user: UserRow, id: number) {
  return readableProjectWith(codehost, user, { id });
}

/** The project with its namespace, if the user may read it: one statement with the access check. */
async function readableProjectWith(
  codehost: Codehost,
  user: UserRow,
  key: ProjectKey,
): Promise<{ project: ProjectRow; namespace: NamespaceRow } | undefined> {
  const found = await codehost.access.projectWithAccess(user, key);
  if (!found || !codehost.access.readsProjectWith(user, found.project, found.access)) {
    return undefined;
  }
  return { project: found.project, namespace: found.namespace };
}

/**
 * The group an API path names, by URL-encoded full path first and then by id
 * (GitLab's order), if the caller may read it. Missing and unreadable are the
 * same 404, so the answer never tells that a private group exists.
 */
export async function readableGroup(
  codehost: Codehost,
  user: UserRow,
  id: string,
): Promise<NamespaceRow> {
  const group =
    (await codehost.groups.findByFullPath(id)) ??
    (NUMERIC_ID.test(id) ? await codehost.groups.findById(Number(id)) : undefined);
  const readable = await ifReadableGroup(codehost, user, group);
  if (!readable) throw notFound('Group');
  return readable;
}

/** How an API path's `:id` names a project: a number is an id, anything path-shaped a full path. */
export function projectKey(id: string): ProjectKey | undefined {
  if (NUMERIC_ID.test(id)) return { id: Number(id) };
  return isFullPathShaped(id) ? { fullPath: id } : undefined;
}

/** The project an API path names, by id or URL-encoded full path, if readable. */
export async function readableProject(
  codehost: Codehost,
  user: UserRow,
  id: string,
): Promise<{ project: ProjectRow; namespace: NamespaceRow }> {
  const key = projectKey(id);
  const readable = key ? await readableProjectWith(codehost, user, key) : undefined;
  if (!readable) throw notFound('Project');
  return readable;
}
