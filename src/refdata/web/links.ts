import type { Status } from '../db/tables.js';
import { statusLabel } from '../rdf/html.js';

export { pageHref } from '../resources/addresses.js';
export { statusLabel };

/**
 * What a visitor who is not signed in may see: everything but Drafts, which are
 * work in progress (PCA's platform shows them only inside the workspace).
 */
export function visibleStatuses(signedIn: boolean): readonly Status[] | undefined {
  return signedIn
    ? undefined
    : ['Submitted', 'Approved', 'Rejected', 'Deprecated', 'ExternallyManaged'];
}

/**
 * What a visitor is shown when they choose no status: what they may see but
 * Rejected resources, which are not reference data and only crowd out what is
 * (each listing offers a way to include them). Undefined: everything.
 */
export function defaultStatuses(signedIn: boolean): readonly Status[] | undefined {
  return visibleStatuses(signedIn)?.filter((status) => status !== 'Rejected');
}

/** The statuses a listing shows: those chosen (of those the viewer may see), else the default. */
export function shownStatuses(
  signedIn: boolean,
  chosen: readonly Status[] | undefined,
): readonly Status[] | undefined {
  const visible = visibleStatuses(signedIn);
  if (chosen === undefined || chosen.length === 0) return defaultStatuses(signedIn);
  return visible ? chosen.filter((status) => visible.includes(status)) : chosen;
}
