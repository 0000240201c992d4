import { type Kysely, type Selectable, sql, type Transaction } from 'kysely';
import type { PackagesTable, RefdataTables, Status } from '../db/tables.js';
import type { ResourceRow } from '../resources/rows.js';

export type PackageRow = Selectable<PackagesTable>;

/** Where a package stands, from its items' statuses. */
export type PackageState = 'waiting' | 'changes-requested' | 'decided';

export const PACKAGE_STATES: readonly PackageState[] = ['waiting', 'changes-requested', 'decided'];

/** A package with how many of its items are in each status. */
export interface PackageSummary extends PackageRow {
  counts: Partial<Record<Status, number>>;
  state: PackageState;
  /** The library's name, when it is stored here. */
  library: string | null;
}

/**
 * A package waits while something in it is Submitted; otherwise, while a Draft
 * in it waits for its author (changes were requested); else it is decided.
 */
export function stateOf(counts: Partial<Record<Status, number>>): PackageState {
  if ((counts.Submitted ?? 0) > 0) return 'waiting';
  if ((counts.Draft ?? 0) > 0) return 'changes-requested';
  return 'decided';
}

/**
 * Packages: what was submitted together and is reviewed as one (docs/review.md).
 * A resource joins a package when first submitted and stays in it: sent back
 * with changes requested and submitted again, it is reviewed in the same one.
 */
export class PackageStore {
  constructor(private readonly db: Kysely<RefdataTables>) {}

  /** The package each of these resources is in, by resource id. */
  async ofResources(ids: readonly number[]): Promise<Map<number, number>> {
    if (ids.length === 0) return new Map();
    const rows = await this.db
      .selectFrom('package_items')
      .select(['resource_id', 'package_id'])
      .where('resource_id', 'in', ids)
      .execute();
    return new Map(rows.map((row) => [row.resource_id, row.package_id]));
  }

  async find(id: number): Promise<PackageRow | undefined> {
    return this.db.selectFrom('packages').selectAll().where('id', '=', id).executeTakeFirst();
  }

  /** A package's resources, in the order they joined it. */
  async items(id: number): Promise<ResourceRow[]> {
    return this.db
      .selectFrom('package_items as i')
      .innerJoin('resources as r', 'r.id', 'i.resource_id')
      .selectAll('r')
      .where('i.package_id', '=', id)
      .orderBy('r.id')
      .execute();
  }

  /**
   * Packages with their items' statuses, at most `limit`: newest first, or
   * oldest first when asking for those waiting (the queue's order). The state
   * is worked out and filtered in the query, so only the page is read.
   */
  async list(
    filter: { state?: PackageState | undefined; library?: string | undefined },
    limit: number,
  ): Promise<PackageSummary[]> {
    const submitted = sql<number>`sum(case when r.status = 'Submitted' then 1 else 0 end)`;
    const drafts = sql<number>`sum(case when r.status = 'Draft' then 1 else 0 end)`;
    const picked = await this.db
      .selectFrom('packages as p')
      .innerJoin('package_items as i', 'i.package_id', 'p.id')
      .innerJoin('resources as r', 'r.id', 'i.resource_id')
      .select('p.id')
      .$if(filter.library !== undefined, (select) =>
        select.where('p.library_key', '=', filter.library as string),
      )
      .groupBy('p.id')
      .$if(filter.state === 'waiting', (select) => select.having(submitted, '>', 0))
      .$if(filter.state === 'changes-requested', (select) =>
        select.having(submitted, '=', 0).having(drafts, '>', 0),
      )
      .$if(filter.state === 'decided', (select) =>
        select.having(submitted, '=', 0).having(drafts, '=', 0),
      )
      .orderBy('p.id', filter.state === 'waiting' ? 'asc' : 'desc')
      .limit(limit)
      .execute();
    if (picked.length === 0) return [];
    const ids = picked.map((row) => row.id);
    const counted = await this.db
      .selectFrom('packages as p')
      .innerJoin('package_items as i', 'i.package_id', 'p.id')
      .innerJoin('resources as r', 'r.id', 'i.resource_id')
      .leftJoin('resources as library', 'library.iri', 'p.library_key')
      .select([
        'p.id',
        'p.name',
        'p.library_key',
        'p.submitted_by',
        'p.submitted_at',
        'r.status',
        'library.name as library',
      ])
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('p.id', 'in', ids)
      .groupBy(['p.id', 'p.name', 'p.library_key', 'p.submitted_by', 'p.submitted_at', 'r.status'])
      .groupBy('library.name')
      .execute();
    const byId = new Map<number, PackageSummary>();
    for (const row of counted) {
      let entry = byId.get(row.id);
      if (!entry) {
        entry = {
          id: row.id,
          name: row.name,
          library_key: row.library_key,
          submitted_by: row.submitted_by,
          submitted_at: Number(row.submitted_at),
          library: row.library,
          counts: {},
          state: 'decided',
        };
        byId.set(row.id, entry);
      }
      entry.counts[row.status] = Number(row.n);
    }
    return ids.flatMap((id) => {
      const entry = byId.get(id);
      return entry ? [{ ...entry, state: stateOf(entry.counts) }] : [];
    });
  }

  /**
   * What waits in each of these packages, family by family (values of other
   * resources, `valueFamilies`, left out: they move with their owner), and
   * the first of it: what the queue shows of a package.
   */
  async waitingByFamily(
    ids: readonly number[],
    valueFamilies: readonly string[],
  ): Promise<Map<number, { families: Map<string, number>; first: { iri: string; name: string } }>> {
    const waiting = new Map<
      number,
      { families: Map<string, number>; first: { iri: string; name: string } }
    >();
    if (ids.length === 0) return waiting;
    const counted = await this.db
      .selectFrom('package_items as i')
      .innerJoin('resources as r', 'r.id', 'i.resource_id')
      .select(['i.package_id', 'r.family'])
      .select((eb) => [eb.fn.countAll<number>().as('n'), eb.fn.min('r.id').as('first_id')])
      .where('i.package_id', 'in', ids)
      .where('r.status', '=', 'Submitted')
      .$if(valueFamilies.length > 0, (select) => select.where('r.family', 'not in', valueFamilies))
      .groupBy(['i.package_id', 'r.family'])
      .execute();
    const firstIds = new Map<number, number>();
    for (const row of counted) {
      const families = waiting.get(row.package_id)?.families ?? new Map<string, number>();
      families.set(row.family, Number(row.n));
      waiting.set(row.package_id, { families, first: { iri: '', name: '' } });
      const first = Number(row.first_id);
      if (first < (firstIds.get(row.package_id) ?? Number.POSITIVE_INFINITY))
        firstIds.set(row.package_id, first);
    }
    const firsts = await this.db
      .selectFrom('resources')
      .select(['id', 'iri', 'name'])
      .where('id', 'in', [...firstIds.values()])
      .execute();
    const byId = new Map(firsts.map((row) => [row.id, row]));
    for (const [packageId, firstId] of firstIds) {
      const entry = waiting.get(packageId);
      const row = byId.get(firstId);
      if (entry && row) entry.first = { iri: row.iri, name: row.name };
    }
    return waiting;
  }

  /**
   * Puts resources that have no package yet into `existing`, or into a new
   * package named `name`, within the transaction submitting them.
   */
  async addWithin(
    trx: Transaction<RefdataTables>,
    resources: readonly ResourceRow[],
    existing: number | undefined,
    made: { name: string; libraryKey: string; by: string; at: number },
  ): Promise<number> {
    const packageId =
      existing ??
      (
        await trx
          .insertInto('packages')
          .values({
            name: made.name,
            library_key: made.libraryKey,
            submitted_by: made.by,
            submitted_at: made.at,
          })
          .returning('id')
          .executeTakeFirstOrThrow()
      ).id;
    const known = new Set(
      (
        await trx
          .selectFrom('package_items')
          .select('resource_id')
          .where(
            'resource_id',
            'in',
            resources.map((row) => row.id),
          )
          .execute()
      ).map((row) => row.resource_id),
    );
    const joining = resources.filter((row) => !known.has(row.id));
    if (joining.length > 0) {
      await trx
        .insertInto('package_items')
        .values(joining.map((row) => ({ resource_id: row.id, package_id: packageId })))
        .execute();
    }
    return packageId;
  }
}
