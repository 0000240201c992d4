import type { Kysely, Transaction } from 'kysely';
import { ConstraintViolationError } from '../../platform/db/errors.js';
import type { RefdataTables, RevisionsTable, Status } from '../db/tables.js';
import { ResourceReader } from './reader.js';
import { RowWrites } from './row-writes.js';
import {
  type Change,
  DuplicateResource,
  type NewResource,
  type OwnedChanges,
  type OwnedEntry,
  ownedEntry,
  type ResourceContent,
  type ResourceRow,
  type StoredMove,
  type ValuesFieldOf,
  type WriteStep,
} from './rows.js';

/** Told after each write this instance committed (search; later SPARQL and the change feed). */
export type CommittedListener = () => void;

interface Follower {
  heard: CommittedListener;
  /** Where a follower's own failure goes: the write it heard of stays committed. */
  failed: (error: unknown) => void;
}

/**
 * Resources of every family, their lifecycle and their revisions. Every write is
 * atomic (one transaction; on PostgreSQL a plain create is one statement),
 * guarded by the version it was based on, and leaves a revision
 * (who, when, why, and the body) behind. Whoever follows the resources hears of
 * each committed write here; the database's change log (written by the same
 * transaction) stays the truth across instances, this only says "read it now".
 */
export class ResourceStore extends ResourceReader {
  private readonly followers: Follower[] = [];
  private readonly rows: RowWrites;

  /**
   * `valuesFieldOf` names the body field an aggregate family's revisions list
   * its values under (undefined for a family that owns none).
   */
  constructor(
    db: Kysely<RefdataTables>,
    valuesFieldOf: ValuesFieldOf,
    now: () => number = Date.now,
  ) {
    super(db);
    this.rows = new RowWrites(db, valuesFieldOf, now);
  }

  /**
   * Calls `heard` after every write this store commits. A follower that throws
   * is reported to `failed`; the write is still answered as done.
   */
  onCommitted(heard: CommittedListener, failed: (error: unknown) => void): void {
    this.followers.push({ heard, failed });
  }

  /**
   * Stores a Draft, and for an aggregate (a picklist) the values it owns, in one
   * transaction. `owned` is undefined for resources that own nothing.
   */
  async create(
    resource: NewResource,
    owned: NewResource[] | undefined,
    change: Change,
  ): Promise<ResourceRow> {
    if (this.rows.insertsAlone(resource, owned))
      return this.committing(() => this.rows.insertAlone(resource, change));
    return this.write((trx) => this.createIn(trx, resource, owned, change));
  }

  private async createIn(
    trx: Transaction<RefdataTables>,
    resource: NewResource,
    owned: NewResource[] | undefined,
    change: Change,
  ): Promise<ResourceRow> {
    const values = owned?.map((value) => ownedEntry(value.iri, value));
    const row = await this.rows.insert(trx, resource, change, values);
    for (const value of owned ?? []) await this.rows.insert(trx, value, change);
    // A value added on its own changes its aggregate (see `update`).
    if (owned === undefined && resource.parentIri !== null) {
      await this.rows.reviseAggregate(trx, resource.parentIri, change);
    }
    return row;
  }

  /**
   * Creates and updates Drafts together, in one transaction, as `create` and
   * `update` each would (an import's batch), then `alongside` in the same
   * transaction (the import's progress, committed with what it counts).
   */
  async writeMany(
    steps: readonly WriteStep[],
    change: Change,
    alongside?: (trx: Transaction<RefdataTables>) => Promise<void>,
  ): Promise<void> {
    await this.write(async (trx) => {
      // New resources go in a hundred rows a statement; each update is its own.
      let creates: { resource: NewResource; values?: OwnedEntry[] }[] = [];
      const flush = async () => {
        await this.rows.insertMany(trx, creates, change);
        creates = [];
      };
      for (const step of steps) {
        if (
          step.kind === 'create' &&
          (step.owned !== undefined || step.resource.parentIri === null)
        ) {
          creates.push({
            resource: step.resource,
            ...(step.owned
              ? { values: step.owned.map((value) => ownedEntry(value.iri, value)) }
              : {}),
          });
          for (const value of step.owned ?? []) creates.push({ resource: value });
          continue;
        }
        await flush();
        if (step.kind === 'create') await this.createIn(trx, step.resource, step.owned, change);
        else await this.updateIn(trx, step.row, step.content, step.owned, change);
      }
      await flush();
      await alongside?.(trx);
    });
  }

  /**
   * Replaces a Draft's content, if it is still the version `basedOn` was and
   * still a Draft; otherwise nothing changes and the write is refused. Values an
   * aggregate no longer lists are removed, leaving their history behind them.
   */
  async update(
    basedOn: ResourceRow,
    content: ResourceContent,
    owned: OwnedChanges | undefined,
    change: Change,
  ): Promise<ResourceRow> {
    return this.write((trx) => this.updateIn(trx, basedOn, content, owned, change));
  }

  private async updateIn(
    trx: Transaction<RefdataTables>,
    basedOn: ResourceRow,
    content: ResourceContent,
    owned: OwnedChanges | undefined,
    change: Change,
  ): Promise<ResourceRow> {
    // The values in the order a read lists them: kept ones by id, then new ones.
    const values = owned && [
      ...[...owned.update]
        .sort((a, b) => a.row.id - b.row.id)
        .map((value) => ownedEntry(value.row.iri, value.content)),
      ...owned.create.map((value) => ownedEntry(value.iri, value)),
    ];
    const row = await this.rows.replace(trx, basedOn, content, change, values);
    for (const value of owned?.update ?? [])
      await this.rows.replace(trx, value.row, value.content, change);
    for (const value of owned?.create ?? []) await this.rows.insert(trx, value, change);
    for (const value of owned?.remove ?? []) await this.rows.remove(trx, value, change);
    // A value changed on its own changes its aggregate too: the aggregate's
    // version (and so its ETag, which If-Match and If-None-Match compare) covers
    // its values, and its revision records them as they now are.
    if (owned === undefined && basedOn.parent_iri !== null) {
      await this.rows.reviseAggregate(trx, basedOn.parent_iri, change);
    }
    return row;
  }

  /**
   * Moves resources from one state to the next together (a picklist with its
   * values), each guarded by the version it was read at.
   */
  async transition(
    rows: readonly ResourceRow[],
    from: Status,
    to: Status,
    action: RevisionsTable['action'],
    change: Change,
    options: { alsoDeprecate?: ResourceRow | undefined; values?: readonly ResourceRow[] } = {},
  ): Promise<ResourceRow> {
    const [moved] = await this.transitionAll([
      {
        rows,
        from,
        to,
        action,
        change,
        alsoDeprecate: options.alsoDeprecate,
        values: options.values,
      },
    ]);
    return moved as ResourceRow;
  }

  /**
   * Several moves in one transaction (a package decided as a whole): all of
   * them or, when one finds its resource changed meanwhile, none. `within`
   * writes what goes with them (a package's rows) in the same transaction.
   * Answers each move's first row as it is now.
   */
  async transitionAll(
    moves: readonly StoredMove[],
    within?: (trx: Transaction<RefdataTables>, moved: readonly ResourceRow[]) => Promise<void>,
  ): Promise<ResourceRow[]> {
    return this.write(async (trx) => {
      const firsts: ResourceRow[] = [];
      for (const { rows, from, to, action, change, alsoDeprecate, values } of moves) {
        // The aggregate's revision lists its values, as its create and updates do.
        const listed = values?.map((value) =>
          ownedEntry(value.iri, {
            name: value.name,
            body: JSON.parse(value.body) as Record<string, unknown>,
          }),
        );
        for (const [index, row] of rows.entries()) {
          const moved = await this.rows.move(
            trx,
            row,
            from,
            to,
            action,
            change,
            index === 0 ? listed : undefined,
          );
          if (index === 0) firsts.push(moved);
        }
        if (alsoDeprecate) {
          await this.rows.move(trx, alsoDeprecate, 'Approved', 'Deprecated', 'deprecate', {
            actor: change.actor,
            justification: `Replaced by ${rows[0]?.iri}`,
          });
        }
      }
      await within?.(trx, firsts);
      return firsts;
    });
  }

  private async write<T>(work: (trx: Transaction<RefdataTables>) => Promise<T>): Promise<T> {
    return this.committing(() => this.db.transaction().execute(work));
  }

  /**
   * Runs `commit` (a transaction, or one statement that is atomic by itself),
   * answering a duplicate as one, then tells the followers.
   */
  private async committing<T>(commit: () => Promise<T>): Promise<T> {
    let result: T;
    try {
      result = await commit();
    } catch (error) {
      if (error instanceof ConstraintViolationError && error.kind === 'unique') {
        throw new DuplicateResource(
          error.columns.includes('iri')
            ? 'A resource with this IRI already exists.'
            : 'A resource of this family with this name already exists in the library.',
        );
      }
      throw error;
    }
    for (const follower of this.followers) {
      try {
        follower.heard();
      } catch (error) {
        follower.failed(error);
      }
    }
    return result;
  }
}
