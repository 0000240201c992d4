import type { Codehost } from '../context.js';
import type { ProjectRow } from '../namespaces/projects.js';
import { projectEntity } from './entities.js';

/** Project entities for rows, with their namespaces and owners fetched in two queries. */
export async function projectEntities(codehost: Codehost, projects: readonly ProjectRow[]) {
  const namespaces = new Map(
    (
      await codehost.groups.findNamespacesByIds([...new Set(projects.map((p) => p.namespace_id))])
    ).map((namespace) => [namespace.id, namespace]),
  );
  const ownerIds = [...namespaces.values()].flatMap((namespace) =>
    namespace.owner_id === null ? [] : [namespace.owner_id],
  );
  const owners = new Map(
    (await codehost.users.findByIds(ownerIds)).map((owner) => [owner.id, owner]),
  );
  return projects.flatMap((project) => {
    const namespace = namespaces.get(project.namespace_id);
    if (!namespace) return [];
    const owner = namespace.owner_id === null ? undefined : owners.get(namespace.owner_id);
    return [projectEntity(project, namespace, owner, codehost.config.publicUrl)];
  });
}
