import { DataFactory, type NamedNode } from 'n3';
import { IMF } from '../imf/vocabulary.js';

const { namedNode } = DataFactory;

function namespace(base: string) {
  return (local: string): NamedNode => namedNode(`${base}${local}`);
}

export const NS = {
  rdf: 'http://www.w3.org/1999/02/22-rdf-syntax-ns#',
  rdfs: 'http://www.w3.org/2000/01/rdf-schema#',
  owl: 'http://www.w3.org/2002/07/owl#',
  xsd: 'http://www.w3.org/2001/XMLSchema#',
  skos: 'http://www.w3.org/2004/02/skos/core#',
  dcterms: 'http://purl.org/dc/terms/',
  sh: 'http://www.w3.org/ns/shacl#',
  imf: IMF,
  sym: 'https://rdf.equinor.com/ontology/engineering-symbol/v1#',
} as const;

export const rdf = namespace(NS.rdf);
export const rdfs = namespace(NS.rdfs);
export const owl = namespace(NS.owl);
export const xsd = namespace(NS.xsd);
export const skos = namespace(NS.skos);
export const dcterms = namespace(NS.dcterms);
export const sh = namespace(NS.sh);
export const imf = namespace(NS.imf);
export const sym = namespace(NS.sym);

/**
 * Our own small vocabulary (`rdl:`), for what no standard one says: the lifecycle
 * status, the latest change justification, mapping details and CFIHOS attributes.
 * One namespace for every deployment, so data from two services means the same;
 * each service publishes the vocabulary at `/vocab` (docs/rdf.md).
 */
export const RDL_NAMESPACE = 'https://w3id.org/refdata/vocab#';

/** The prefixes Turtle and TriG output declare (and JSON-LD's context): one object, shared. */
export const PREFIXES: Readonly<Record<string, string>> = Object.freeze({
  ...NS,
  rdl: RDL_NAMESPACE,
});
