import type { Kysely } from 'kysely';
import type { ChangeEvent, RefdataTables, Status } from '../db/tables.js';
import { PUBLISHED_STATUSES } from '../lifecycle/views.js';

/** Which events a reader of the feed is shown. */
export interface FeedFilter {
  /** Only events of resources in this library (its IRI). */
  library?: string | undefined;
  /** Only events at or after this time (epoch ms). */
  since?: number | undefined;
  /** Only events before this time (epoch ms). */
  until?: number | undefined;
  /** Visitors: only versions in the published view (Approved, Deprecated). */
  publishedOnly: boolean;
}

/** A position in the feed: the time and id of the member a page follows. */
export interface Cursor {
  at: number;
  id: number;
}

/** One member of the feed: an event, and the resource as that revision left it. */
export interface FeedEvent {
  id: number;
  resourceId: number;
  iri: string;
  family: string;
  libraryKey: string;
  event: ChangeEvent;
  status: Status;
  version: number;
  at: number;
  createdAt: number;
  /** The family's body at that version. */
  body: string;
  /** The latest justification written with a create or update, up to this version. */
  justification: string | null;
  /** Its replacement, for a Deprecated version. */
  replacedBy: string | null;
  /** The language of its name and description; null once it is removed. */
  language: string | null;
}

/** The cursor in a page address: `<epoch ms>.<id>`. */
export function cursorText(cursor: Cursor): string {
  return `${cursor.at}.${cursor.id}`;
}

/** The largest event id (the column is a 32-bit integer on PostgreSQL). */
export const MAX_EVENT_ID = 2 ** 31 - 1;

export function parseCursor(text: string): Cursor | undefined {
  const match = /^(\d{1,15})\.(\d{1,10})$/.exec(text);
  if (!match) return undefined;
  const cursor = { at: Number(match[1]), id: Number(match[2]) };
  return cursor.id <= MAX_EVENT_ID ? cursor : undefined;
}

/** Events with the revision each one made, and the facts the resource's RDF had then. */
function selectEvents(db: Kysely<RefdataTables>) {
  return db
    .selectFrom('change_events as e')
    .innerJoin('revisions as r', 'r.id', 'e.revision_id')
    .select([
      'e.id',
      'e.resource_id',
      'e.iri',
      'e.family',
      'e.library_key',
      'e.event',
      'e.status',
      'e.version',
      'e.at',
      'e.created_at',
      'r.body',
    ])
    .select((eb) => [
      eb
        .selectFrom('revisions as j')
        .select('j.justification')
        .whereRef('j.resource_id', '=', 'e.resource_id')
        .whereRef('j.id', '<=', 'e.revision_id')
        .where('j.action', 'in', ['create', 'update'])
        .orderBy('j.id', 'desc')
        .limit(1)
        .as('justification'),
      eb
        .selectFrom('resources as replacement')
        .select('replacement.iri')
        .whereRef('replacement.replaces_iri', '=', 'e.iri')
        .where('e.status', '=', 'Deprecated')
        .where('replacement.status', 'in', ['Approved', 'Deprecated'])
        .orderBy('replacement.id', 'desc')
        .limit(1)
        .as('replaced_by'),
      // The language of its labels: fixed for a resource, so its row's now is its row's then.
      eb
        .selectFrom('resources as own')
        .select('own.language')
        .whereRef('own.iri', '=', 'e.iri')
        .as('language'),
    ]);
}

/**
 * Up to `limit` events after `after` (or from the start of the window), in
 * the feed's order: by time, then by id. A resource's versions are strictly
 * later one after the other (the store sees to that), so time alone orders them.
 */
export async function readEvents(
  db: Kysely<RefdataTables>,
  filter: FeedFilter,
  after: Cursor | undefined,
  limit: number,
): Promise<FeedEvent[]> {
  const rows = await selectEvents(db)
    .$if(filter.library !== undefined, (q) => q.where('e.library_key', '=', filter.library ?? ''))
    .$if(filter.publishedOnly, (q) => q.where('e.status', 'in', PUBLISHED_STATUSES))
    .$if(filter.since !== undefined, (q) => q.where('e.at', '>=', filter.since ?? 0))
    .$if(filter.until !== undefined, (q) => q.where('e.at', '<', filter.until ?? 0))
    .$if(after !== undefined, (q) =>
      q.where((eb) =>
        eb.or([
          eb('e.at', '>', after?.at ?? 0),
          eb.and([eb('e.at', '=', after?.at ?? 0), eb('e.id', '>', after?.id ?? 0)]),
        ]),
      ),
    )
    .orderBy('e.at')
    .orderBy('e.id')
    .limit(limit)
    .execute();
  return rows.map(feedEvent);
}

/** The latest `limit` events of the filter, the newest first: what a person reads of the feed. */
export async function readLatestEvents(
  db: Kysely<RefdataTables>,
  filter: FeedFilter,
  limit: number,
): Promise<FeedEvent[]> {
  const rows = await selectEvents(db)
    .$if(filter.library !== undefined, (q) => q.where('e.library_key', '=', filter.library ?? ''))
    .$if(filter.publishedOnly, (q) => q.where('e.status', 'in', PUBLISHED_STATUSES))
    .orderBy('e.at', 'desc')
    .orderBy('e.id', 'desc')
    .limit(limit)
    .execute();
  return rows.map(feedEvent);
}

function feedEvent(
  row: Awaited<ReturnType<ReturnType<typeof selectEvents>['execute']>>[number],
): FeedEvent {
  return {
    id: Number(row.id),
    resourceId: row.resource_id,
    iri: row.iri,
    family: row.family,
    libraryKey: row.library_key,
    language: row.language ?? null,
    event: row.event,
    status: row.status,
    version: row.version,
    at: Number(row.at),
    createdAt: Number(row.created_at),
    body: row.body,
    justification: row.justification,
    replacedBy: row.replaced_by,
  };
}

/** One event by its id; undefined when there is none or the reader may not see it. */
export async function readEvent(
  db: Kysely<RefdataTables>,
  id: number,
  publishedOnly: boolean,
): Promise<FeedEvent | undefined> {
  const row = await selectEvents(db)
    .where('e.id', '=', id)
    .$if(publishedOnly, (q) => q.where('e.status', 'in', PUBLISHED_STATUSES))
    .executeTakeFirst();
  return row && feedEvent(row);
}
