import type { UserRow } from '../accounts/users.js';
import type { Codehost } from '../context.js';
import type { NamespaceRow } from '../namespaces/groups.js';
import type { ProjectRow } from '../namespaces/projects.js';
import { notFound } from './gitlab-errors.js';

const NUMERIC_ID = /^\d{1,15}$/;

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
  if (!group || !(await codehost.access.canReadGroup(user, group))) throw notFound('Group');
  return group;
}

/** The project an API path names, by id or URL-encoded full path, if readable. */
export async function readableProject(
  codehost: Codehost,
  user: UserRow,
  id: string,
): Promise<{ project: ProjectRow; namespace: NamespaceRow }> {
  const project = NUMERIC_ID.test(id)
    ? await codehost.projects.findById(Number(id))
    : await codehost.projects.findByFullPath(id);
  const namespace = project ? await codehost.groups.findNamespace(project.namespace_id) : undefined;
  if (!project || !namespace || !(await codehost.access.canReadProject(user, project, namespace))) {
    throw notFound('Project');
  }
  return { project, namespace };
}
