/**
 * Ready queries over the dataset's vocabulary (docs/rdf.md), the ones people
 * who consume reference data ask first. A query about one resource names it
 * in `VALUES`; the query page puts a real one there, found by `seed`, so that
 * each example answers something on the data at hand.
 */
export interface QueryExample {
  key: string;
  title: string;
  description: string;
  /** A query whose first solution's `?seed` is a resource the example can be about. */
  seed?: string;
  /** The query, about `seed` (an IRI) where it takes one. */
  text(seed: string): string;
}

const PREFIXES = {
  rdf: 'http://www.w3.org/1999/02/22-rdf-syntax-ns#',
  rdfs: 'http://www.w3.org/2000/01/rdf-schema#',
  owl: 'http://www.w3.org/2002/07/owl#',
  skos: 'http://www.w3.org/2004/02/skos/core#',
  sh: 'http://www.w3.org/ns/shacl#',
  imf: 'http://ns.imfid.org/imf#',
  rdl: 'https://w3id.org/refdata/vocab#',
} as const;

type Prefix = keyof typeof PREFIXES;

function prologue(...names: Prefix[]): string {
  return names.map((name) => `PREFIX ${name}: <${PREFIXES[name]}>`).join('\n');
}

/** Where an example's resource goes when the data holds none to show. */
export const PLACEHOLDER = 'https://example.org/replace-with-an-iri';

export const QUERY_EXAMPLES: readonly QueryExample[] = [
  {
    key: 'subtree',
    title: 'Classes under a class, with their labels',
    description:
      'Every class below one, at any depth, ordered by label: what a type library pulls each night.',
    // A class at the top of a tree: it has subclasses, and no superclass of ours.
    seed: `${prologue('rdfs', 'owl')}
SELECT ?seed WHERE {
  ?class rdfs:subClassOf ?seed . ?seed a owl:Class .
  FILTER NOT EXISTS { ?seed rdfs:subClassOf ?parent . ?parent a owl:Class }
} LIMIT 1`,
    text: (root) => `${prologue('rdfs', 'skos')}
# Every class under the root, at any depth, with its label.
SELECT ?class ?label WHERE {
  VALUES ?root { <${root}> }
  ?class rdfs:subClassOf+ ?root ;
         skos:prefLabel ?label .
}
ORDER BY ?label`,
  },
  {
    key: 'class-properties',
    title: "A CFIHOS class's properties",
    description:
      'The properties a class takes, with their cardinalities and, for coded values, the picklist.',
    seed: `${prologue('rdfs', 'owl')}
SELECT ?seed WHERE { ?seed rdfs:subClassOf [ owl:onProperty ?property ] } LIMIT 1`,
    text: (entity) => `${prologue('rdfs', 'owl', 'skos', 'rdl')}
# The class's properties: how many values each takes, and the picklist of coded ones.
SELECT ?property ?label ?min ?max ?picklist ?picklistLabel WHERE {
  VALUES ?class { <${entity}> }
  ?class rdfs:subClassOf ?restriction .
  ?restriction owl:onProperty ?property ;
               owl:minCardinality ?min .
  OPTIONAL { ?restriction owl:maxCardinality ?max }
  OPTIONAL { ?property skos:prefLabel ?label }
  OPTIONAL {
    ?property rdfs:range ?picklist . ?picklist a rdl:Picklist .
    OPTIONAL { ?picklist skos:prefLabel ?picklistLabel }
  }
}
ORDER BY ?label`,
  },
  {
    key: 'picklist-values',
    title: "A picklist's values",
    description: 'The values a picklist offers, by label.',
    seed: `${prologue('rdl')}
SELECT ?seed WHERE { ?seed a rdl:Picklist } LIMIT 1`,
    text: (picklist) => `${prologue('skos')}
# The picklist's values: each is an individual of the picklist.
SELECT ?value ?label WHERE {
  VALUES ?picklist { <${picklist}> }
  ?value a ?picklist ;
         skos:prefLabel ?label .
}
ORDER BY ?label`,
  },
  {
    key: 'block-terminals-attributes',
    title: "An IMF block's terminals and attributes",
    description:
      'What a block type has: its terminal types and attribute types, with how many of each.',
    seed: `${prologue('imf')}
SELECT ?seed WHERE { ?seed a imf:BlockType } LIMIT 1`,
    text: (block) => `${prologue('sh', 'imf', 'skos')}
# The block type's terminals (qualified shapes on imf:hasTerminal) and attributes.
SELECT ?kind ?type ?label ?min ?max WHERE {
  VALUES ?block { <${block}> }
  ?block sh:property ?shape .
  {
    ?shape sh:path imf:hasTerminal ;
           sh:qualifiedValueShape/sh:class ?type ;
           sh:qualifiedMinCount ?min .
    OPTIONAL { ?shape sh:qualifiedMaxCount ?max }
    BIND("terminal" AS ?kind)
  } UNION {
    ?shape sh:path ?type ;
           sh:minCount ?min .
    OPTIONAL { ?shape sh:maxCount ?max }
    FILTER(?type NOT IN (imf:hasAspect, imf:hasTerminal, imf:hasPart))
    BIND("attribute" AS ?kind)
  }
  OPTIONAL { ?type skos:prefLabel ?label }
}
ORDER BY ?kind ?label`,
  },
  {
    key: 'units-by-dimension',
    title: 'Units by dimension',
    description: 'Every unit of measure, grouped by the dimension it measures, with its symbol.',
    text: () => `${prologue('skos', 'rdl')}
# Units of measure by dimension.
SELECT ?dimension ?dimensionLabel ?unit ?unitLabel ?symbol WHERE {
  ?unit a rdl:UnitOfMeasure ;
        rdl:dimension ?dimension .
  OPTIONAL { ?unit skos:prefLabel ?unitLabel }
  OPTIONAL { ?unit rdl:symbol ?symbol }
  OPTIONAL { ?dimension skos:prefLabel ?dimensionLabel }
}
ORDER BY ?dimensionLabel ?unitLabel`,
  },
];

/** An IRI as a reader of these examples writes it: with one of their prefixes where one fits. */
export function compactIri(iri: string): string {
  for (const [name, namespace] of Object.entries(PREFIXES)) {
    if (iri.startsWith(namespace) && /^[A-Za-z_][\w-]*$/.test(iri.slice(namespace.length)))
      return `${name}:${iri.slice(namespace.length)}`;
  }
  return iri;
}
