import { DataFactory, type Quad } from 'n3';
import type { Refdata } from '../context.js';
import { rdf } from '../rdf/vocabulary.js';
import { PUBLISHED_STATUSES, unfiledGraph } from './dataset.js';

const { namedNode, blankNode, quad } = DataFactory;

const SD = 'http://www.w3.org/ns/sparql-service-description#';
const FORMATS = 'http://www.w3.org/ns/formats/';
const sd = (name: string) => namedNode(`${SD}${name}`);

/** The formats answers come in, as the W3C names them (https://www.w3.org/ns/formats/). */
const RESULT_FORMATS = [
  'SPARQL_Results_JSON',
  'SPARQL_Results_XML',
  'SPARQL_Results_CSV',
  'SPARQL_Results_TSV',
  'Turtle',
  'N-Triples',
  'JSON-LD',
  'RDF_XML',
  'TriG',
  'N-Quads',
];

/**
 * The SPARQL 1.1 Service Description of `/sparql`: what it takes and answers,
 * and its default dataset: the union of the published libraries' graphs as the
 * default graph, and each library's graph by the library's IRI.
 */
export async function serviceDescription(refdata: Refdata): Promise<Quad[]> {
  const service = namedNode(`${refdata.publicUrl}/sparql`);
  const dataset = blankNode();
  const defaultGraph = blankNode();
  const quads: Quad[] = [
    quad(service, rdf('type'), sd('Service')),
    quad(service, sd('endpoint'), service),
    quad(service, sd('supportedLanguage'), sd('SPARQL11Query')),
    quad(service, sd('feature'), sd('UnionDefaultGraph')),
    quad(service, sd('defaultDataset'), dataset),
    quad(dataset, rdf('type'), sd('Dataset')),
    quad(dataset, sd('defaultGraph'), defaultGraph),
    quad(defaultGraph, rdf('type'), sd('Graph')),
    ...RESULT_FORMATS.map((format) =>
      quad(service, sd('resultFormat'), namedNode(`${FORMATS}${format}`)),
    ),
  ];
  const graphs = [
    ...(await refdata.store.libraries(PUBLISHED_STATUSES)).map((library) => library.iri),
    unfiledGraph(refdata.iriBase),
  ];
  for (const iri of graphs) {
    const named = blankNode();
    quads.push(
      quad(dataset, sd('namedGraph'), named),
      quad(named, rdf('type'), sd('NamedGraph')),
      quad(named, sd('name'), namedNode(iri)),
    );
  }
  return quads;
}
