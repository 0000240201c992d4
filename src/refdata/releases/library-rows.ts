import type { Refdata } from '../context.js';
import type { Status } from '../db/tables.js';
import type { RowWithFacts } from '../resources/store.js';
import { libraryResourceIds, MEMBER_BATCH } from './store.js';

/**
 * A library's resources of these statuses (every status when undefined; the
 * published ones are what a release takes), `MEMBER_BATCH` rows at a time.
 */
export async function* libraryRows(
  refdata: Refdata,
  libraryIri: string,
  statuses: readonly Status[] | undefined,
): AsyncGenerator<RowWithFacts[]> {
  let after = 0;
  for (;;) {
    const rows = await refdata.store
      .selectWithFacts()
      .where('resource.id', 'in', libraryResourceIds(refdata.db, libraryIri, statuses))
      .where('resource.id', '>', after)
      .orderBy('resource.id')
      .limit(MEMBER_BATCH)
      .execute();
    if (rows.length === 0) return;
    yield rows;
    after = rows[rows.length - 1]?.id ?? after;
  }
}
