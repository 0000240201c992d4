import type { Refdata } from '../context.js';
import type { Status } from '../db/tables.js';

/** The page of one of our resources: its IRI's path here (IRIs are the addresses). */
export function pageHref(refdata: Refdata, iri: string): string | undefined {
  if (!iri.startsWith(`${refdata.iriBase}/`)) return undefined;
  return iri.slice(refdata.iriBase.length);
}

/** How people see a status: Submitted is "Pending review", as on PCA's platform. */
export function statusLabel(status: string): string {
  if (status === 'Submitted') return 'Pending review';
  if (status === 'ExternallyManaged') return 'Externally managed';
  return status;
}

/**
 * What a visitor who is not signed in may see: everything but Drafts, which are
 * work in progress (PCA's platform shows them only inside the workspace).
 */
export function visibleStatuses(signedIn: boolean): readonly Status[] | undefined {
  return signedIn
    ? undefined
    : ['Submitted', 'Approved', 'Rejected', 'Deprecated', 'ExternallyManaged'];
}
