import type { Status } from '../db/tables.js';

/**
 * What a reader is shown of the resources: the **published** view holds what
 * has been put out and not taken back (Approved and Deprecated, the latter with
 * its replacement), the **working** view everything, Drafts, Submitted and
 * Rejected resources too, as the people who write and review them see it.
 */
export type View = 'published' | 'working';

export const VIEWS: readonly View[] = ['published', 'working'];

/** The statuses of the published view. */
export const PUBLISHED_STATUSES: readonly Status[] = ['Approved', 'Deprecated'];

/** The statuses a view holds; undefined: all of them. */
export function statusesOf(view: View): readonly Status[] | undefined {
  return view === 'published' ? PUBLISHED_STATUSES : undefined;
}
