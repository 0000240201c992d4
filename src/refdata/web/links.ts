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
