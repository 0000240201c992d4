import { type Expression, type SqlBool, sql } from 'kysely';

/** `column in (ids)`, which for no ids is false rather than the invalid `in ()`. */
export function inIds(column: string, ids: readonly number[]): Expression<SqlBool> {
  if (ids.length === 0) return sql<SqlBool>`1 = 0`;
  // Ids come from the database as integers, so they are written as literals.
  return sql<SqlBool>`${sql.ref(column)} in (${sql.join(ids.map((id) => sql.lit(Math.trunc(id))))})`;
}

/** A case-insensitive substring match, with LIKE's wildcards in the term escaped. */
export function containsText(column: string, term: string): Expression<SqlBool> {
  const pattern = `%${term.toLowerCase().replace(/[\\%_]/g, (char) => `\\${char}`)}%`;
  return sql<SqlBool>`lower(${sql.ref(column)}) like ${pattern} escape '\\'`;
}
