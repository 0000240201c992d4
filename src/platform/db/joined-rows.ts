import { type AliasedRawBuilder, sql } from 'kysely';

/**
 * Two tables' rows from one joined select, so that a request that needs both
 * makes one round trip: one table's columns come as they are (`selectAll`),
 * the other's under a prefix, and `splitPrefixed` takes them apart again. A
 * plain `selectAll` over a join would merge the columns both tables have
 * (`id`, `created_at`). A prefix ends in two underscores, so that no prefixed
 * name is a column of the other table (`namespace_` and `id` would be
 * `projects.namespace_id`).
 */

/**
 * Every column of a table, checked by the compiler: a list that misses one
 * does not compile, so a column added later is not silently left out.
 */
export function allColumns<Table>() {
  return <const Columns extends readonly (keyof Table & string)[]>(
    columns: Columns & (Exclude<keyof Table, Columns[number]> extends never ? unknown : never),
  ): Columns => columns;
}

/** `table.column as prefixcolumn` for each column, for a select. */
export function prefixedColumns(
  table: string,
  columns: readonly string[],
  prefix: string,
): AliasedRawBuilder<unknown, string>[] {
  if (!prefix.endsWith('__')) throw new Error(`A column prefix ends in "__": ${prefix}`);
  return columns.map((column) => sql.ref(`${table}.${column}`).as(`${prefix}${column}`));
}

/**
 * The prefixed columns of a joined row as a row of their own, and the rest.
 * Both are built key by key: deleting keys from a copy would turn it into a
 * slow dictionary-mode object on every request.
 */
export function splitPrefixed<Prefixed, Rest>(
  row: Record<string, unknown>,
  prefix: string,
): { prefixed: Prefixed; rest: Rest } {
  const prefixed: Record<string, unknown> = {};
  const rest: Record<string, unknown> = {};
  for (const key in row) {
    if (key.startsWith(prefix)) prefixed[key.slice(prefix.length)] = row[key];
    else rest[key] = row[key];
  }
  return { prefixed: prefixed as Prefixed, rest: rest as Rest };
}
