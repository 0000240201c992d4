import type { Refdata } from '../context.js';
import type { Status } from '../db/tables.js';
import { statusLabel } from '../rdf/html.js';

/** The page of one of our resources: its IRI's path here (IRIs are the addresses). */
export function pageHref(refdata: Refdata, iri: string): string | undefined {
  if (!iri.startsWith(`${refdata.iriBase}/`)) return undefined;
  const path = iri.slice(refdata.iriBase.length);
  // `//host` or `/\host` would leave the site while looking like one of its own paths.
  return /^\/[/\\]/.test(path) ? undefined : path;
}

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
