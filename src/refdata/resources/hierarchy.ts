import { type Kysely, type SelectQueryBuilder, sql } from 'kysely';
import type { RefdataTables, Status } from '../db/tables.js';
import { generalizationsIn } from '../families/common.js';

/** A class in a tree: what a link to it shows, and how many subclasses it has below it. */
export interface TreeNode {
  iri: string;
  name: string;
  status: Status;
  family: string;
  /** What its name is unique within besides its library and family (a CFIHOS class's `equipment` or `tag`). */
  scope: string;
  /** Its subclasses the viewer may see. */
  subclasses: number;
}

/** A level of a tree lists this many classes; a larger one says how many more there are. */
export const TREE_LEVEL_LIMIT = 500;

/** A superclass chain longer than this is taken as broken data and cut. */
const MAX_TRAIL = 50;

type Db = Kysely<RefdataTables>;

function subclassCount(db: Db, statuses: readonly Status[] | undefined) {
  return db
    .selectFrom('generalizations as below')
    .innerJoin('resources as sub', 'sub.id', 'below.resource_id')
    .select(sql<number>`count(*)`.as('n'))
    .where('below.parent_iri', '=', sql.ref<string>('r.iri'))
    .$if(statuses !== undefined, (select) => select.where('sub.status', 'in', statuses ?? []));
}

function nodes(
  rows: {
    iri: string;
    name: string;
    status: Status;
    family: string;
    name_scope: string;
    n: unknown;
  }[],
) {
  return rows.map(
    (row): TreeNode => ({
      iri: row.iri,
      name: row.name,
      status: row.status,
      family: row.family,
      scope: row.name_scope,
      subclasses: Number(row.n),
    }),
  );
}

/** A class's direct subclasses the viewer may see (`statuses`; undefined: all), by name. */
export async function subclassesOf(
  db: Db,
  iri: string,
  statuses: readonly Status[] | undefined,
): Promise<{ nodes: TreeNode[]; total: number }> {
  return level(
    db,
    statuses,
    db
      .selectFrom('generalizations as g')
      .innerJoin('resources as r', 'r.id', 'g.resource_id')
      .where('g.parent_iri', '=', iri)
      .$if(statuses !== undefined, (select) => select.where('r.status', 'in', statuses ?? [])),
  );
}

/**
 * The top of a library's tree: its classes (of `families`) none of whose
 * superclasses is a class of the library the viewer may see.
 */
export async function rootsOf(
  db: Db,
  libraryIri: string,
  families: readonly string[],
  statuses: readonly Status[] | undefined,
): Promise<{ nodes: TreeNode[]; total: number }> {
  if (families.length === 0) return { nodes: [], total: 0 };
  const base = db
    .selectFrom('resources as r')
    .where('r.library_key', '=', libraryIri)
    .where('r.family', 'in', families)
    .$if(statuses !== undefined, (select) => select.where('r.status', 'in', statuses ?? []))
    .where(({ not, exists, selectFrom }) =>
      not(
        exists(
          selectFrom('generalizations as up')
            .innerJoin('resources as p', 'p.iri', 'up.parent_iri')
            .select(sql<number>`1`.as('one'))
            .whereRef('up.resource_id', '=', 'r.id')
            .where('p.library_key', '=', libraryIri)
            .$if(statuses !== undefined, (select) =>
              select.where('p.status', 'in', statuses ?? []),
            ),
        ),
      ),
    );
  return level(db, statuses, base);
}

/** A level of a tree from the query of its classes (`r`): the first of them by name, and how many. */
async function level(
  db: Db,
  statuses: readonly Status[] | undefined,
  // Both callers' queries have `r`, the classes; their other tables differ.
  // biome-ignore lint/suspicious/noExplicitAny: the two queries' table sets are not one type
  base: SelectQueryBuilder<any, 'r', object>,
): Promise<{ nodes: TreeNode[]; total: number }> {
  const [rows, total] = await Promise.all([
    base
      .select(['r.iri', 'r.name', 'r.status', 'r.family', 'r.name_scope'])
      .select(subclassCount(db, statuses).as('n'))
      .orderBy('r.name_normalized')
      .orderBy('r.id')
      .limit(TREE_LEVEL_LIMIT)
      .execute(),
    base.select(sql<number>`count(*)`.as('n')).executeTakeFirst(),
  ]);
  return {
    nodes: nodes(
      rows as {
        iri: string;
        name: string;
        status: Status;
        family: string;
        name_scope: string;
        n: unknown;
      }[],
    ),
    total: Number((total as { n?: unknown } | undefined)?.n ?? 0),
  };
}

/** A step of a trail: a stored class, or a superclass outside this service (by IRI). */
export type TrailStep =
  | {
      iri: string;
      name: string;
      status: Status;
      stored: true;
      /** Its body and own language, for its labels in other languages. */
      body: Record<string, unknown>;
      language: string;
    }
  | { iri: string; stored: false };

/**
 * The way up from a class: its first superclass, that one's first, and so on,
 * the most general first; a superclass that is not stored (or not visible)
 * ends it, by its IRI. Also the class's other superclasses, for "also a kind of".
 */
export async function trailOf(
  db: Db,
  body: Record<string, unknown>,
  statuses: readonly Status[] | undefined,
): Promise<{ trail: TrailStep[]; others: TrailStep[] }> {
  /** A step, and the superclasses it names in turn (none for one not stored). */
  const find = async (iri: string): Promise<{ step: TrailStep; parents: string[] }> => {
    const row = await db
      .selectFrom('resources')
      .select(['iri', 'name', 'status', 'body', 'language'])
      .where('iri', '=', iri)
      .$if(statuses !== undefined, (select) => select.where('status', 'in', statuses ?? []))
      .executeTakeFirst();
    if (!row) return { step: { iri, stored: false }, parents: [] };
    const body = JSON.parse(row.body) as Record<string, unknown>;
    return { step: { ...row, body, stored: true }, parents: generalizationsIn(body) };
  };
  const [first, ...rest] = generalizationsIn(body);
  const others = await Promise.all(rest.map(async (iri) => (await find(iri)).step));
  const trail: TrailStep[] = [];
  const seen = new Set<string>();
  let next = first;
  while (next !== undefined && !seen.has(next) && trail.length < MAX_TRAIL) {
    seen.add(next);
    const { step, parents } = await find(next);
    trail.unshift(step);
    next = parents[0];
  }
  return { trail, others };
}
