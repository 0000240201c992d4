import type { Refdata } from '../context.js';

/** The page of one of our resources: its IRI's path here (IRIs are the addresses). */
export function pageHref(refdata: Pick<Refdata, 'iriBase'>, iri: string): string | undefined {
  if (!iri.startsWith(`${refdata.iriBase}/`)) return undefined;
  const path = iri.slice(refdata.iriBase.length);
  // `//host` or `/\host` would leave the site while looking like one of its own paths.
  return /^\/[/\\]/.test(path) ? undefined : path;
}
