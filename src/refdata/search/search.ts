import { type Kysely, type RawBuilder, sql } from 'kysely';
import { isPostgres } from '../../platform/db/schema.js';
import type { RefdataTables, Status } from '../db/tables.js';
import { normalizedName, type ResourceRow } from '../resources/store.js';

export interface SearchRequest {
  q: string | undefined;
  families: readonly string[];
  libraries: readonly string[];
  statuses: readonly Status[];
  limit: number;
  after: Cursor | undefined;
}

/** Where the previous page ended: rank bucket, normalized name, id. */
export interface Cursor {
  bucket: number;
  name: string;
  id: number;
}

export interface SearchHit {
  row: ResourceRow;
  bucket: number;
  /** The library the resource is defined in (a value's: its picklist's). */
  library: { iri: string; label: string | undefined } | undefined;
}

export function encodeCursor(cursor: Cursor): string {
  return Buffer.from(JSON.stringify([cursor.bucket, cursor.name, cursor.id])).toString('base64url');
}

/** The cursor a client sent back, or undefined when it is not one of ours. */
export function decodeCursor(text: string): Cursor | undefined {
  try {
    const value = JSON.parse(Buffer.from(text, 'base64url').toString('utf8')) as unknown;
    if (
      Array.isArray(value) &&
      value.length === 3 &&
      Number.isInteger(value[0]) &&
      value[0] >= 0 &&
      value[0] <= 3 &&
      typeof value[1] === 'string' &&
      value[1].length <= 1000 &&
      Number.isInteger(value[2]) &&
      value[2] >= 0
    ) {
      return { bucket: value[0], name: value[1], id: value[2] };
    }
  } catch {
    // Falls through: not a cursor.
  }
  return undefined;
}

/** The words of a query: letters and digits only, so nothing reaches FTS5 or tsquery syntax. */
export function queryTokens(q: string): string[] {
  return (
    q
      .toLowerCase()
      .normalize('NFKD')
      .replace(/[\u0300-\u036f]/g, '')
      .match(/[\p{L}\p{N}]+/gu) ?? []
  )
    .slice(0, 10)
    .map((token) => token.slice(0, 50));
}

function likePrefix(text: string): string {
  return `${text.replace(/[\\%_]/g, (char) => `\\${char}`)}%`;
}

/**
 * Matching resources, best first: an exact label, then a label that starts with
 * the query, then a label with every word (as a prefix), then a match only in
 * identifiers, mappings or the description. Within a bucket, by name and id: an
 * order that does not move when other resources are written, so a cursor pages
 * without gaps or duplicates.
 */
type Dimension = 'family' | 'status' | 'library';

/** The filters of a request as conditions on `resources r`, one per dimension used. */
function filterConditions(request: SearchRequest): Partial<Record<Dimension, RawBuilder<unknown>>> {
  const list = (values: readonly string[]) => sql.join(values.map((value) => sql`${value}`));
  const conditions: Partial<Record<Dimension, RawBuilder<unknown>>> = {};
  if (request.families.length > 0) conditions.family = sql`r.family in (${list(request.families)})`;
  if (request.statuses.length > 0) conditions.status = sql`r.status in (${list(request.statuses)})`;
  // An owned value (a picklist value) is keyed by its aggregate, where names are unique;
  // its library is the aggregate's.
  if (request.libraries.length > 0)
    // Both sides of the `or` use an index (library_key; the id), so neither database scans.
    conditions.library = sql`(r.library_key in (${list(request.libraries)})
      or r.id in (select v.id from resources p join resources v on v.parent_iri = p.iri
        where p.library_key in (${list(request.libraries)})))`;
  return conditions;
}

/** The words of a request as a condition on `resources r` (always true without words). */
function textCondition(db: Kysely<RefdataTables>, tokens: readonly string[]): RawBuilder<unknown> {
  if (tokens.length === 0) return sql`1 = 1`;
  if (isPostgres(db as never)) {
    const query = tokens.map((token) => `${token}:*`).join(' & ');
    return sql`r.id in (select d.resource_id from search_documents d where d.document @@ to_tsquery('simple', ${query}))`;
  }
  const expression = tokens.map((token) => `"${token}"*`).join(' AND ');
  return sql`r.id in (select resource_id from search_documents where search_documents match ${expression})`;
}

/** How many matches each value of a dimension has. */
export interface SearchFacets {
  family: Map<string, number>;
  status: Map<string, number>;
  library: Map<string, number>;
}

/**
 * Counts for a search page's filters: for each dimension, the matches of the
 * words and of the other dimensions' filters, by value of this one (so a
 * chosen family still shows what the other families would give).
 */
export async function searchFacets(
  db: Kysely<RefdataTables>,
  request: Omit<SearchRequest, 'limit' | 'after'>,
): Promise<SearchFacets> {
  const tokens = request.q === undefined ? [] : queryTokens(request.q);
  const facets: SearchFacets = { family: new Map(), status: new Map(), library: new Map() };
  if (request.q !== undefined && tokens.length === 0) return facets;
  const conditions = filterConditions({ ...request, limit: 0, after: undefined });
  const text = textCondition(db, tokens);
  const groups: Record<Dimension, RawBuilder<unknown>> = {
    family: sql`r.family`,
    status: sql`r.status`,
    // A picklist value counts under its picklist's library.
    library: sql`coalesce(parent.library_key, r.library_key)`,
  };
  for (const dimension of ['family', 'status', 'library'] as const) {
    const others = Object.entries(conditions)
      .filter(([name]) => name !== dimension)
      .map(([, condition]) => condition);
    const rows = await sql<{ value: string; n: number | string }>`
      select ${groups[dimension]} as value, count(*) as n
      from resources r
      left join resources parent on parent.iri = r.parent_iri
      where ${sql.join([text, ...others], sql` and `)}
      group by ${groups[dimension]}`.execute(db);
    for (const row of rows.rows) facets[dimension].set(row.value, Number(row.n));
  }
  return facets;
}

export async function search(
  db: Kysely<RefdataTables>,
  request: SearchRequest,
): Promise<{ hits: SearchHit[]; total: number; next: Cursor | undefined }> {
  const postgres = isPostgres(db as never);
  const tokens = request.q === undefined ? [] : queryTokens(request.q);
  if (request.q !== undefined && tokens.length === 0)
    return { hits: [], total: 0, next: undefined };

  const matches = textCondition(db, tokens);
  let labelMatches: RawBuilder<unknown> = sql`1 = 0`;
  if (tokens.length > 0) {
    if (postgres) {
      const query = tokens.map((token) => `${token}:*`).join(' & ');
      labelMatches = sql`r.id in (select d.resource_id from search_documents d where d.label_document @@ to_tsquery('simple', ${query}))`;
    } else {
      const expression = tokens.map((token) => `"${token}"*`).join(' AND ');
      labelMatches = sql`r.id in (select resource_id from search_documents where search_documents match ${`label : (${expression})`})`;
    }
  }
  const normalized = request.q === undefined ? '' : normalizedName(request.q);
  const bucket =
    request.q === undefined
      ? sql`0`
      : sql`case when r.name_normalized = ${normalized} then 0
          when r.name_normalized like ${likePrefix(normalized)} escape '\\' then 1
          when ${labelMatches} then 2 else 3 end`;

  const where = sql.join([matches, ...Object.values(filterConditions(request))], sql` and `);

  const after = request.after;
  const keyset = after
    ? sql`where (hits.bucket > ${after.bucket}
        or (hits.bucket = ${after.bucket} and hits.name_normalized > ${after.name})
        or (hits.bucket = ${after.bucket} and hits.name_normalized = ${after.name} and hits.id > ${after.id}))`
    : sql``;
  // One pass finds, ranks and counts the matches (counted before the cursor
  // narrows them); only a page past the end needs a count of its own. Libraries
  // are joined to the page alone, not to every match.
  const rows = await sql<
    ResourceRow & {
      bucket: number | string;
      library_iri: string | null;
      library_label: string | null;
      total: number | string;
    }
  >`
    select page.*, library.iri as library_iri, library.name as library_label from (
      select hits.* from (
        select r.*, ${bucket} as bucket, count(*) over () as total from resources r where ${where}
      ) as hits
      ${keyset}
      order by hits.bucket, hits.name_normalized, hits.id
      limit ${request.limit + 1}
    ) as page
    left join resources parent on parent.iri = page.parent_iri
    left join resources library
      on library.iri = coalesce(parent.library_key, page.library_key) and library.family = 'library'
    order by page.bucket, page.name_normalized, page.id`.execute(db);
  const total =
    rows.rows.length > 0
      ? Number(rows.rows[0]?.total ?? 0)
      : Number(
          (
            await sql<{
              total: number | string;
            }>`select count(*) as total from resources r where ${where}`.execute(db)
          ).rows[0]?.total ?? 0,
        );
  const page = rows.rows.slice(0, request.limit);
  const last = page[page.length - 1];
  return {
    hits: page.map(({ bucket: rank, library_iri, library_label, total: _total, ...row }) => ({
      row: row as ResourceRow,
      bucket: Number(rank),
      library:
        library_iri === null ? undefined : { iri: library_iri, label: library_label ?? undefined },
    })),
    total,
    next:
      rows.rows.length > request.limit && last
        ? { bucket: Number(last.bucket), name: last.name_normalized, id: last.id }
        : undefined,
  };
}
