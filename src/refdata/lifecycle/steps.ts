import { HttpError } from '../../platform/http/problem.js';
import type { Refdata } from '../context.js';
import type { Status } from '../db/tables.js';
import { problem } from '../problem-codes.js';
import { conflictProblem } from '../resources/lookup.js';
import type { ResourceRow, StoredMove } from '../resources/rows.js';
import type { ResourceStore } from '../resources/store.js';

export type Step = 'submit' | 'approve' | 'reject' | 'request-changes';

/** One lifecycle step: from which state to which, who takes it and why. */
export interface Move {
  from: Status;
  to: Status;
  action: Step;
  actor: string;
  justification: string;
}

function wrongState(row: ResourceRow, action: Step, from: Status): HttpError {
  return new HttpError(
    problem(409, 'wrong-state', `${row.iri} is ${row.status}; ${action} takes a ${from} resource.`),
  );
}

/** A value an aggregate owns (a picklist value) moves only with it: 409 when `row` is one. */
export function checkMovesAlone(refdata: Refdata, row: ResourceRow): void {
  const family = refdata.families.byKey(row.family);
  if (!family?.parentIri) return;
  const owner = refdata.families.all.find(
    (candidate) => candidate.aggregate?.valueFamily === family.key,
  );
  throw new HttpError(
    problem(
      409,
      'moves-with-picklist',
      `A ${family.label} is submitted, approved and rejected with its ${owner?.label ?? 'owner'} (${row.parent_iri}), never alone.`,
    ),
  );
}

/**
 * What moving a resource from `from` to `to` takes (a picklist with every
 * value, a replacement's predecessor deprecated on approval), or why it
 * cannot: values never move alone, and each step starts from one state.
 */
export async function plannedMove(
  refdata: Refdata,
  row: ResourceRow,
  move: Move,
): Promise<StoredMove> {
  const family = refdata.families.byKey(row.family);
  checkMovesAlone(refdata, row);
  if (row.status !== move.from) throw wrongState(row, move.action, move.from);
  const aggregate = family?.aggregate !== undefined;
  const values = aggregate ? await refdata.store.childrenOf(row.iri) : [];
  const behind = values.find((value) => value.status !== move.from);
  if (behind) {
    throw new HttpError(
      problem(
        409,
        'wrong-state',
        `The picklist's value ${behind.iri} is ${behind.status}, not ${move.from}; values move with their picklist.`,
      ),
    );
  }
  // Approving a replacement deprecates what it replaces, if that is still in use.
  const replaced =
    (move.action === 'approve' || move.action === 'submit') && row.replaces_iri
      ? await refdata.store.findByIri(row.replaces_iri)
      : undefined;
  // One successor each: a resource another replacement already deprecated keeps
  // that one as its dcterms:isReplacedBy (docs/refdata-model.md).
  if (replaced && replaced.status !== 'Approved') {
    const successor = await refdata.store.replacementOf(replaced.iri);
    if (successor !== undefined && successor !== row.iri) {
      throw new HttpError(
        problem(
          409,
          'already-replaced',
          `${replaced.iri} is already replaced by ${successor}; a second replacement cannot be ${move.action === 'approve' ? 'approved' : 'submitted'}. Replace ${successor} instead, or change this Draft's replaces.`,
          { title: 'Already replaced' },
        ),
      );
    }
  }
  return {
    rows: [row, ...values],
    from: move.from,
    to: move.to,
    action: move.action,
    change: { actor: move.actor, justification: move.justification },
    alsoDeprecate:
      move.action === 'approve' && replaced?.status === 'Approved' ? replaced : undefined,
    values: aggregate ? values : undefined,
  };
}

/**
 * Moves resources together, all or none (a package decided as a whole), with
 * what `within` writes in the same transaction; answers each as it is now.
 */
export async function moveResources(
  refdata: Refdata,
  rows: readonly ResourceRow[],
  move: Omit<Move, 'justification'> & { justification: string },
  within?: Parameters<ResourceStore['transitionAll']>[1],
): Promise<ResourceRow[]> {
  const moves: StoredMove[] = [];
  for (const row of rows) moves.push(await plannedMove(refdata, row, move));
  return commitMoves(refdata, moves, within);
}

/** Moves planned by `plannedMove`, in one transaction with what `within` writes. */
export async function commitMoves(
  refdata: Refdata,
  moves: readonly StoredMove[],
  within?: Parameters<ResourceStore['transitionAll']>[1],
): Promise<ResourceRow[]> {
  try {
    return await refdata.store.transitionAll(moves, within);
  } catch (error) {
    throw conflictProblem(error);
  }
}

/** Moves one resource, as `moveResources` does. */
export async function moveResource(
  refdata: Refdata,
  row: ResourceRow,
  move: Move,
): Promise<ResourceRow> {
  const [moved] = await moveResources(refdata, [row], move);
  return moved as ResourceRow;
}
