/** The last segment of an IRI, for vocabulary terms shown in words (`imf:maximumQualifier`). */
export function localName(iri: string): string {
  return iri.slice(Math.max(iri.lastIndexOf('#'), iri.lastIndexOf('/')) + 1);
}
