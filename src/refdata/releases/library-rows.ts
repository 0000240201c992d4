import { betweenBatches } from '../../platform/streams/between-batches.js';
import type { Refdata } from '../context.js';
import type { Status } from '../db/tables.js';
import type { RowWithFacts } from '../resources/rows.js';
import { MEMBER_BATCH } from './store.js';

/**
 * A library's resources of these statuses (every status when undefined; the
 * published ones are what a release takes): the library, then its terms
 * `MEMBER_BATCH` at a time in id order (the `(library_key, id)` index), each
 * batch with the values its aggregates own. With the published statuses, the
 * same resources as `publishedViewIds` (what a release takes), read without a
 * subquery per batch, which cost each batch a pass over the whole library.
 */
export async function* libraryRows(
  refdata: Refdata,
  libraryIri: string,
  statuses: readonly Status[] | undefined,
): AsyncGenerator<RowWithFacts[]> {
  const { store } = refdata;
  const library = await store.selectWithFacts().where('resource.iri', '=', libraryIri).execute();
  if (library.length === 0) return;
  yield library;
  let after = 0;
  for (;;) {
    const terms = await store
      .selectWithFacts()
      .where('resource.library_key', '=', libraryIri)
      .$if(statuses !== undefined, (select) =>
        select.where('resource.status', 'in', [...(statuses ?? [])]),
      )
      .where('resource.id', '>', after)
      .orderBy('resource.id')
      .limit(MEMBER_BATCH)
      .execute();
    if (terms.length === 0) return;
    const aggregates = terms
      .filter((term) => refdata.families.byKey(term.family)?.aggregate)
      .map((term) => term.iri);
    const values =
      aggregates.length === 0
        ? []
        : await store
            .selectWithFacts()
            .where('resource.parent_iri', 'in', aggregates)
            .orderBy('resource.id')
            .execute();
    yield [...terms, ...values];
    after = terms[terms.length - 1]?.id ?? after;
    await betweenBatches();
  }
}
