import { HttpError } from '../../platform/http/problem.js';
import { problem } from '../problem-codes.js';
import type { ResourceContext } from '../resources/resource-context.js';
import type { ResourceRow } from '../resources/rows.js';

/**
 * Who may change a Draft: its author, the person who created it, alone
 * (docs/review.md). Others propose their change in a comment or as a Draft of
 * their own; the same rule holds for submitting it and for copying a
 * Rejected resource into a new Draft.
 */
export function checkAuthor(
  row: Pick<ResourceRow, 'iri' | 'created_by' | 'status'>,
  subject: string,
  doing: 'change' | 'submit' | 'copy',
): void {
  if (row.created_by === subject) return;
  const what = {
    change: 'Only its author changes a Draft',
    submit: 'Only its author submits a Draft',
    copy: 'Only its author copies a Rejected resource into a new Draft',
  }[doing];
  throw new HttpError(
    problem(
      403,
      'not-author',
      `${what}; ${row.iri} was written by ${row.created_by}. Comment on it, or write a Draft of your own.`,
      { title: 'Not the author' },
    ),
  );
}

/** Where a decision's refusal points: the resource's `iri`, or the package's `id`. */
export interface Place {
  in: 'query' | 'path';
  field: string;
}
export const RESOURCE_PLACE: Place = { in: 'query', field: 'iri' };
export const PACKAGE_PLACE: Place = { in: 'path', field: 'id' };

/** Which of `rows` the four-eyes rule keeps `subject` from deciding, and why. */
export async function ownWork(
  refdata: ResourceContext,
  rows: readonly Pick<ResourceRow, 'id' | 'iri'>[],
  subject: string,
): Promise<{ iri: string; why: 'submitted' | 'changed' }[]> {
  if (rows.length === 0) return [];
  const revisions = await refdata.db
    .selectFrom('revisions')
    .select(['resource_id', 'action', 'actor'])
    .where(
      'resource_id',
      'in',
      rows.map((row) => row.id),
    )
    .where('action', 'in', ['create', 'update', 'submit'])
    .orderBy('resource_id')
    .orderBy('version')
    .execute();
  const lastSubmitter = new Map<number, string>();
  const lastChanger = new Map<number, string>();
  for (const revision of revisions) {
    (revision.action === 'submit' ? lastSubmitter : lastChanger).set(
      revision.resource_id,
      revision.actor,
    );
  }
  const own: { iri: string; why: 'submitted' | 'changed' }[] = [];
  for (const row of rows) {
    if (lastSubmitter.get(row.id) === subject) own.push({ iri: row.iri, why: 'submitted' });
    else if (lastChanger.get(row.id) === subject) own.push({ iri: row.iri, why: 'changed' });
  }
  return own;
}

/**
 * Four eyes (on unless REFDATA_FOUR_EYES=false): nobody approves or rejects
 * what they submitted or last changed; 403 naming what is theirs.
 */
export async function checkFourEyes(
  refdata: ResourceContext,
  rows: readonly Pick<ResourceRow, 'id' | 'iri'>[],
  subject: string,
  decision: 'approve' | 'reject',
  place: Place = RESOURCE_PLACE,
): Promise<void> {
  if (!refdata.review.fourEyes) return;
  const own = await ownWork(refdata, rows, subject);
  if (own.length === 0) return;
  const listed = own.map((entry) => `${entry.iri} (you ${entry.why} it)`).join(', ');
  throw new HttpError(
    problem(
      403,
      'four-eyes',
      `Another Reviewer must ${decision} this: ${listed}. Four eyes see more than two; nobody ${decision}s what they submitted or last changed.`,
      {
        title: 'Four eyes',
        errors: own.map((entry) => ({
          ...place,
          detail: `${entry.iri}: you ${entry.why} it`,
        })),
      },
    ),
  );
}
