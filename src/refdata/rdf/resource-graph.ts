import { DataFactory, type Quad } from 'n3';
import { DEFAULT_LANGUAGE, type StoredCommonBody } from '../families/common.js';
import { isLibrary } from '../families/family.js';
import type { FamilyRegistry } from '../families/registry.js';
import type { GraphFacts, ResourceRow } from '../resources/rows.js';
import { GraphBuilder } from './graph.js';
import { dcterms, rdfs, skos } from './vocabulary.js';
import { writableIri } from './writable-terms.js';

const { namedNode } = DataFactory;

/** What every resource says: labels, library, status, dates, provenance, mappings. */
function commonTriples(
  g: GraphBuilder,
  row: ResourceRow,
  body: StoredCommonBody,
  justification: string | undefined,
  replacedBy: string | undefined,
) {
  // Its name and definition in its library's language, then in others: one
  // preferred label per language (SKOS S14), other labels as alternatives.
  // Each preferred label is an rdfs:label too, the one RDFS and OWL tools read
  // (the IMF tools, Cognite NEAT, Protégé); PCA's hosting rules allow both (docs/rdf.md).
  const language = row.language || DEFAULT_LANGUAGE;
  const label = (name: string, tag: string) => {
    const text = g.text(name, tag);
    g.about(skos('prefLabel'), text);
    g.about(rdfs('label'), text);
  };
  if (body.name) label(body.name, language);
  if (body.description) g.about(skos('definition'), g.text(body.description, language));
  for (const translation of body.translations ?? []) {
    label(translation.name, translation.language);
    if (translation.description)
      g.about(skos('definition'), g.text(translation.description, translation.language));
  }
  for (const synonym of body.synonyms ?? [])
    g.about(skos('altLabel'), g.text(synonym.label, synonym.language));
  if (body.ontology && !isLibrary(row)) g.about(rdfs('isDefinedBy'), g.iri(body.ontology));
  g.about(g.our('status'), g.our(row.status));
  g.about(dcterms('created'), g.dateTime(Number(row.created_at)));
  g.about(dcterms('modified'), g.dateTime(Number(row.updated_at)));
  if (justification) g.about(g.our('changeJustification'), g.text(justification));
  if (body.replaces) g.about(dcterms('replaces'), g.iri(body.replaces));
  if (replacedBy) g.about(dcterms('isReplacedBy'), g.iri(replacedBy));
  if (body.packageName) g.about(g.our('packageName'), g.plain(body.packageName));
  for (const term of body.relatedTerms ?? []) {
    // The target is named by library and identifier, not an IRI: a node holds the details.
    const target = g.node();
    g.about(skos(term.relationType), target);
    g.add(target, g.our('targetLibrary'), g.plain(term.targetLibrary));
    g.add(target, g.our('targetIdentifier'), g.plain(term.targetIdentifier));
    if (term.targetVersion) g.add(target, g.our('targetVersion'), g.plain(term.targetVersion));
    if (term.targetSourceName)
      g.add(target, g.our('targetSourceName'), g.plain(term.targetSourceName));
  }
  for (const source of body.definitionSources ?? []) {
    if (source.sourceIri) {
      g.about(dcterms('source'), g.iri(source.sourceIri));
      continue;
    }
    const node = g.node();
    g.about(dcterms('source'), node);
    if (source.sourceName) g.add(node, dcterms('title'), g.plain(source.sourceName));
    if (source.sourceId) g.add(node, dcterms('identifier'), g.plain(source.sourceId));
    if (source.sourceUrl) g.add(node, rdfs('seeAlso'), g.iri(source.sourceUrl));
    if (source.version) g.add(node, g.our('version'), g.plain(source.version));
  }
}

/**
 * The RDF of one resource, and of the values a picklist owns: the same triples
 * whatever the serialization. `facts` holds each resource's latest justification
 * and its replacement (`ResourceStore.graphFacts`).
 */
export function resourceGraph(
  { families, iriBase }: { families: FamilyRegistry; iriBase: string },
  row: ResourceRow,
  children: readonly ResourceRow[],
  facts: GraphFacts,
): Quad[] {
  const quads: Quad[] = [];
  for (const resource of [row, ...children]) {
    const g = new GraphBuilder(iriBase, namedNode(writableIri(resource.iri)));
    const body = JSON.parse(resource.body) as Record<string, unknown>;
    commonTriples(
      g,
      resource,
      body as StoredCommonBody,
      facts.justifications.get(resource.id),
      facts.replacedBy.get(resource.iri),
    );
    families.byKey(resource.family)?.rdf(body, g);
    quads.push(...g.quads);
  }
  return quads;
}
