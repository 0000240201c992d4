/**
 * The answer format named in the query string or form, as SPARQL servers
 * before content negotiation took it and clients still send it: Fuseki's
 * `output=` and `format=`, Virtuoso's `format=`, Sesame's and MarkLogic's
 * `results=`. SPARQLWrapper, the most used Python client, sends all three
 * (`format=json&output=json&results=json`) beside its `Accept`.
 *
 * A value naming a format this endpoint writes takes the place of `Accept`,
 * as in Fuseki; a value naming none is let be, and `Accept` chooses (Fuseki
 * refuses such a value, but SPARQLWrapper sends some, `xml` for a graph among
 * them, that other servers take). Each name stands for a results format for
 * `SELECT` and `ASK` and an RDF format for graphs, as `Accept` would.
 */
const BY_NAME: Record<string, string> = {
  json: 'application/sparql-results+json, application/ld+json;q=0.9',
  xml: 'application/sparql-results+xml, application/rdf+xml;q=0.9',
  csv: 'text/csv',
  tsv: 'text/tab-separated-values',
  turtle: 'text/turtle',
  ttl: 'text/turtle',
  n3: 'text/turtle',
  ntriples: 'application/n-triples',
  nt: 'application/n-triples',
  'n-triples': 'application/n-triples',
  rdfxml: 'application/rdf+xml',
  'rdf+xml': 'application/rdf+xml',
  rdf: 'application/rdf+xml',
  jsonld: 'application/ld+json',
  'json-ld': 'application/ld+json',
  trig: 'application/trig',
  nquads: 'application/n-quads',
  'n-quads': 'application/n-quads',
};

/** Media types that may be named whole, as `format=application/sparql-results+json`. */
const MEDIA_TYPE = /^[a-z]+\/[a-z0-9.+-]+$/;

/** The parameters that may name a format, in the order they are read. */
export const FORMAT_PARAMETERS = ['format', 'output', 'results'] as const;

/**
 * The `Accept` a request's format parameters stand for, or its own `Accept`
 * when none names a format (a media type is taken as the client wrote it, and
 * negotiation then offers it or says 406).
 */
export function acceptFor(
  parameters: Partial<Record<(typeof FORMAT_PARAMETERS)[number], string | string[]>>,
  accept: string | undefined,
): string | undefined {
  for (const name of FORMAT_PARAMETERS) {
    const given = parameters[name];
    for (const value of Array.isArray(given) ? given : given === undefined ? [] : [given]) {
      const key = value.trim().toLowerCase();
      const named = BY_NAME[key] ?? (MEDIA_TYPE.test(key) ? key : undefined);
      if (named) return named;
    }
  }
  return accept;
}
