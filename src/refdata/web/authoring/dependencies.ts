import { html, type Markup } from '../../../platform/web/html.js';
import type { Refdata } from '../../context.js';
import type { ResourceRow } from '../../resources/rows.js';
import { pageHref, statusLabel } from '../links.js';
import { pointerWords } from './diff.js';
import { draftOf, type FieldSchema, referencesIn } from './form-model.js';
import { type PickedResource, pickedResources } from './references.js';

/** A resource another refers to, and the field that names it. */
export interface Dependency extends PickedResource {
  pointer: string;
}

/**
 * The resources of this service a resource's fields name (its library, its
 * superclasses, the properties and attribute types it uses...), each once, in
 * the order its fields name them. IRIs outside the service are not listed.
 */
export async function dependenciesOf(refdata: Refdata, row: ResourceRow): Promise<Dependency[]> {
  const family = refdata.families.byKey(row.family);
  if (!family) return [];
  const schema = family.schema as FieldSchema;
  const references = referencesIn(schema, draftOf(schema, JSON.parse(row.body))).filter(
    (reference) => reference.value !== '' && reference.value !== row.iri,
  );
  const found = await pickedResources(
    refdata,
    references.map((reference) => reference.value),
  );
  const seen = new Set<string>();
  const dependencies: Dependency[] = [];
  for (const reference of references) {
    const resource = found.get(reference.value);
    if (!resource || seen.has(resource.iri)) continue;
    seen.add(resource.iri);
    dependencies.push({ ...resource, pointer: reference.pointer });
  }
  return dependencies;
}

/** A dependency as a line: its name linked, its family, the field naming it, its state. */
export function dependencyLine(refdata: Refdata, dependency: Dependency): Markup {
  return html`<a href="${pageHref(refdata, dependency.iri) ?? dependency.iri}">${dependency.name}</a> <span class="hint">${refdata.families.labelOf(dependency.family)}, named in ${pointerWords(dependency.pointer)}</span> <span class="status status-${dependency.status}">${statusLabel(dependency.status)}</span>`;
}
