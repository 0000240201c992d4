import { DataFactory } from 'n3';
import type { Family } from '../families/family.js';
import { GraphBuilder } from './graph.js';
import { NS, RDL_NAMESPACE } from './vocabulary.js';

const RDF_TYPE = `${NS.rdf}type`;
const SUBJECT = DataFactory.namedNode('urn:refdata:types-of');

/**
 * The standard RDF classes a resource is an instance of (our own `rdl:` classes
 * left out): the family's own answer, or the `rdf:type` triples of its mapping.
 */
export function rdfTypesOf(family: Family | undefined, body: Record<string, unknown>): string[] {
  if (!family) return [];
  if (family.rdfTypes) return family.rdfTypes(body);
  const graph = new GraphBuilder('', SUBJECT);
  try {
    family.rdf(body, graph);
  } catch {
    // A body stored before its family's schema asked for a field it lacks: a
    // search hit still lists it, without types, rather than failing the search.
    return [];
  }
  return graph.quads
    .filter((quad) => quad.predicate.value === RDF_TYPE && quad.subject.equals(SUBJECT))
    .map((quad) => quad.object.value)
    .filter((type) => !type.startsWith(RDL_NAMESPACE));
}
