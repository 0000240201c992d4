import type { Refdata } from '../context.js';
import { referencesOf } from '../families/rules.js';
import { PUBLISHED_STATUSES } from '../lifecycle/views.js';
import type { ResourceRow } from '../resources/rows.js';

/** A resource of this service another one names, and where. */
export interface Named {
  row: ResourceRow;
  /** The resource naming it. */
  by: string;
  /** The field that names it (a JSON pointer into `by`'s body). */
  pointer: string;
}

/**
 * The resources of this service `row`'s fields name (its library, superclasses,
 * the picklist behind a property, the terminal of a block...), each once.
 * `replaces` is left out: approving a replacement deprecates what it names.
 */
export async function namedBy(refdata: Refdata, row: ResourceRow): Promise<Named[]> {
  const family = refdata.families.byKey(row.family);
  if (!family) return [];
  const references = referencesOf(family, JSON.parse(row.body) as object).filter(
    (reference) => reference.iri !== row.iri && reference.pointer !== '/replaces',
  );
  const found = new Map(
    (await refdata.store.findMany(references.map((reference) => reference.iri))).map((found) => [
      found.iri,
      found,
    ]),
  );
  const seen = new Set<string>();
  const named: Named[] = [];
  for (const reference of references) {
    const target = found.get(reference.iri);
    if (!target || seen.has(target.iri)) continue;
    seen.add(target.iri);
    // A value stands for its picklist, which it moves with.
    const owner =
      target.parent_iri !== null && refdata.families.byKey(target.family)?.parentIri
        ? await refdata.store.findByIri(target.parent_iri)
        : undefined;
    if (owner && seen.has(owner.iri)) continue;
    if (owner) seen.add(owner.iri);
    named.push({ row: owner ?? target, by: row.iri, pointer: reference.pointer });
  }
  return named;
}

/** How far submitting follows Drafts behind Drafts. */
const MOST_BEHIND = 500;

/**
 * Every Draft `row` depends on, transitively (the picklist behind a property
 * it uses, that property's library...): what submitting it offers to submit
 * with it. Each once, nearest first; `row` itself is not among them.
 */
export async function draftsBehind(refdata: Refdata, row: ResourceRow): Promise<Named[]> {
  const drafts: Named[] = [];
  const seen = new Set([row.iri]);
  const queue = [row];
  while (queue.length > 0 && drafts.length < MOST_BEHIND) {
    const next = queue.shift() as ResourceRow;
    for (const named of await namedBy(refdata, next)) {
      if (seen.has(named.row.iri) || named.row.status !== 'Draft') continue;
      seen.add(named.row.iri);
      drafts.push(named);
      queue.push(named.row);
    }
  }
  return drafts;
}

/** Statuses a resource named by an approved one may have: published, or kept elsewhere. */
const SETTLED = new Set<string>([...PUBLISHED_STATUSES, 'ExternallyManaged']);

/**
 * What `approving` names that is neither published nor approved in the same
 * decision: an approval waits for these (docs/review.md).
 */
export async function unsettled(
  refdata: Refdata,
  approving: readonly ResourceRow[],
): Promise<Named[]> {
  const deciding = new Set(approving.map((row) => row.iri));
  const missing: Named[] = [];
  for (const row of approving) {
    for (const named of await namedBy(refdata, row)) {
      if (!SETTLED.has(named.row.status) && !deciding.has(named.row.iri)) missing.push(named);
    }
  }
  return missing;
}
