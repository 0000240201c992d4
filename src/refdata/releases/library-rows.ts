import type { Refdata } from '../context.js';
import type { Status } from '../db/tables.js';
import type { RowWithFacts } from '../resources/store.js';
import { libraryResourceIds, MEMBER_BATCH } from './store.js';

/**
 * A library's resources of these statuses (every status when undefined; the
 * published ones are what a release takes), `MEMBER_BATCH` rows at a time.
 * `withFacts` reads each one's latest justification and replacement too (two
 * subqueries a row); without, they are left empty, for readers that need
 * neither.
 */
export async function* libraryRows(
  refdata: Refdata,
  libraryIri: string,
  statuses: readonly Status[] | undefined,
  withFacts = true,
): AsyncGenerator<RowWithFacts[]> {
  let after = 0;
  for (;;) {
    const ids = libraryResourceIds(refdata.db, libraryIri, statuses);
    const rows: RowWithFacts[] = withFacts
      ? await refdata.store
          .selectWithFacts()
          .where('resource.id', 'in', ids)
          .where('resource.id', '>', after)
          .orderBy('resource.id')
          .limit(MEMBER_BATCH)
          .execute()
      : (
          await refdata.db
            .selectFrom('resources')
            .selectAll()
            .where('id', 'in', ids)
            .where('id', '>', after)
            .orderBy('id')
            .limit(MEMBER_BATCH)
            .execute()
        ).map((row) => ({ ...row, justification: null, replaced_by: null }));
    if (rows.length === 0) return;
    yield rows;
    after = rows[rows.length - 1]?.id ?? after;
  }
}
