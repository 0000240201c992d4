import jsonld from 'jsonld';
import { DataFactory, Parser, type Quad, type Term } from 'n3';
import { RdfXmlParser } from 'rdfxml-streaming-parser';
import { RELATION_TYPES } from '../families/common.js';
import { sameLanguage } from '../families/languages.js';
import { RDL_NAMESPACE } from '../rdf/vocabulary.js';
import type { RefusedRecord } from './cfihos-mapping.js';
import type { ImportItem, ImportPart } from './import-items.js';
import { UnreadableFile, type UploadedFile } from './sources.js';

/**
 * RDF files in the shape refdata writes (docs/rdf.md), read back into the
 * resources they describe, each at its own IRI: a library exported from one
 * refdata imports into another. The CFIHOS families and reference-data
 * classes are read; other kinds are reported, not guessed at.
 */

const RDF = 'http://www.w3.org/1999/02/22-rdf-syntax-ns#';
const RDFS = 'http://www.w3.org/2000/01/rdf-schema#';
const OWL = 'http://www.w3.org/2002/07/owl#';
const SKOS = 'http://www.w3.org/2004/02/skos/core#';
const DCTERMS = 'http://purl.org/dc/terms/';
const rdl = (term: string) => `${RDL_NAMESPACE}${term}`;

const FORMATS: Record<string, 'turtle' | 'ntriples' | 'rdfxml' | 'jsonld'> = {
  ttl: 'turtle',
  nt: 'ntriples',
  rdf: 'rdfxml',
  owl: 'rdfxml',
  xml: 'rdfxml',
  jsonld: 'jsonld',
};

/** The RDF syntax a file's name says it is in; undefined for anything else (CSV). */
export function rdfFormatOf(name: string) {
  return FORMATS[name.slice(name.lastIndexOf('.') + 1).toLowerCase()];
}

/** The triples of an RDF file, read by the registry's parser for its syntax. */
export async function readRdf(file: UploadedFile): Promise<Quad[]> {
  const format = rdfFormatOf(file.name);
  const text = file.bytes.toString('utf8');
  try {
    if (format === 'turtle' || format === 'ntriples')
      return new Parser({ format: format === 'turtle' ? 'Turtle' : 'N-Triples' }).parse(text);
    if (format === 'jsonld') {
      const nquads = (await jsonld.toRDF(JSON.parse(text), {
        format: 'application/n-quads',
        // A context is read from the file alone: nothing is fetched.
        documentLoader: async (url: string) => {
          throw new Error(`the file names a remote context (${url}), which is not fetched`);
        },
      } as never)) as unknown as string;
      return new Parser({ format: 'N-Quads' }).parse(nquads);
    }
    return await new Promise((resolve, reject) => {
      const quads: Quad[] = [];
      const parser = new RdfXmlParser({ dataFactory: DataFactory as never });
      parser.on('data', (quad: Quad) => quads.push(quad));
      parser.on('error', reject);
      parser.on('end', () => resolve(quads));
      parser.write(text);
      parser.end();
    });
  } catch (error) {
    throw new UnreadableFile(
      file.name,
      `${file.name}: is not ${format === 'jsonld' ? 'JSON-LD' : format === 'rdfxml' ? 'RDF/XML' : format === 'ntriples' ? 'N-Triples' : 'Turtle'} that can be read (${error instanceof Error ? error.message.split('\n')[0] : String(error)})`,
    );
  }
}

/** Each subject's triples: its predicates' objects, in the file's order. */
class Graph {
  private readonly subjects = new Map<string, Map<string, Term[]>>();

  constructor(quads: readonly Quad[]) {
    for (const quad of quads) {
      const key = keyOf(quad.subject);
      let predicates = this.subjects.get(key);
      if (!predicates) {
        predicates = new Map();
        this.subjects.set(key, predicates);
      }
      const objects = predicates.get(quad.predicate.value) ?? [];
      objects.push(quad.object);
      predicates.set(quad.predicate.value, objects);
    }
  }

  namedSubjects(): string[] {
    return [...this.subjects.keys()].filter((key) => !key.startsWith('_:'));
  }

  objects(subject: Term | string, predicate: string): Term[] {
    const key = typeof subject === 'string' ? subject : keyOf(subject);
    return this.subjects.get(key)?.get(predicate) ?? [];
  }

  iris(subject: Term | string, predicate: string): string[] {
    return this.objects(subject, predicate)
      .filter((term) => term.termType === 'NamedNode')
      .map((term) => term.value);
  }

  literal(subject: Term | string, predicate: string): string | undefined {
    return this.objects(subject, predicate).find((term) => term.termType === 'Literal')?.value;
  }

  types(subject: Term | string): string[] {
    return this.iris(subject, `${RDF}type`);
  }
}

function keyOf(term: Term): string {
  return term.termType === 'BlankNode' ? `_:${term.value}` : term.value;
}

export interface RdfContext {
  iriBase: string;
  library: string;
  /** The library's language: its terms' name and description are the labels in it. */
  language: string;
}

/** A literal's language, '' for none. */
function languageOf(term: Term): string {
  return term.termType === 'Literal' ? term.language : '';
}

/**
 * The labels as refdata writes them (docs/rdf.md): the preferred label and
 * definition in the library's language (or without one) are `name` and
 * `description`; those in other languages are translations, alternative
 * labels synonyms.
 */
function labels(graph: Graph, subject: string, language: string): Record<string, unknown> {
  const literals = (predicate: string) =>
    graph.objects(subject, `${SKOS}${predicate}`).filter((term) => term.termType === 'Literal');
  const own = (term: Term) => languageOf(term) === '' || sameLanguage(languageOf(term), language);
  const preferred = literals('prefLabel');
  const definitions = literals('definition');
  const body: Record<string, unknown> = {
    name: (preferred.find(own) ?? preferred[0])?.value ?? '',
    description: (definitions.find(own) ?? definitions[0])?.value ?? '',
  };
  const translations = preferred
    .filter((term) => !own(term))
    .map((term) => {
      const definition = definitions.find((other) =>
        sameLanguage(languageOf(other), languageOf(term)),
      );
      return {
        language: languageOf(term),
        name: term.value,
        ...(definition ? { description: definition.value } : {}),
      };
    });
  if (translations.length > 0) body.translations = translations;
  const synonyms = literals('altLabel')
    .filter((term) => languageOf(term) !== '')
    .map((term) => ({ language: languageOf(term), label: term.value }));
  if (synonyms.length > 0) body.synonyms = synonyms;
  return body;
}

/** The fields every family's RDF gives (docs/rdf.md), as a body has them. */
function commonBody(graph: Graph, subject: string, context: RdfContext): Record<string, unknown> {
  const body: Record<string, unknown> = {
    ...labels(graph, subject, context.language),
    ontology: context.library,
  };
  const replaces = graph.iris(subject, `${DCTERMS}replaces`)[0];
  if (replaces) body.replaces = replaces;
  const packageName = graph.literal(subject, rdl('packageName'));
  if (packageName) body.packageName = packageName;
  const relatedTerms = RELATION_TYPES.flatMap((relationType) =>
    graph.objects(subject, `${SKOS}${relationType}`).map((node) => ({
      relationType,
      targetLibrary: graph.literal(node, rdl('targetLibrary')) ?? '',
      targetIdentifier: graph.literal(node, rdl('targetIdentifier')) ?? '',
      ...optional('targetVersion', graph.literal(node, rdl('targetVersion'))),
      ...optional('targetSourceName', graph.literal(node, rdl('targetSourceName'))),
    })),
  );
  if (relatedTerms.length > 0) body.relatedTerms = relatedTerms;
  const sources = graph.objects(subject, `${DCTERMS}source`).map((node) =>
    node.termType === 'NamedNode'
      ? { sourceIri: node.value }
      : {
          ...optional('sourceName', graph.literal(node, `${DCTERMS}title`)),
          ...optional('sourceId', graph.literal(node, `${DCTERMS}identifier`)),
          ...optional('sourceUrl', graph.iris(node, `${RDFS}seeAlso`)[0]),
          ...optional('version', graph.literal(node, rdl('version'))),
        },
  );
  if (sources.length > 0) body.definitionSources = sources;
  return body;
}

function optional(field: string, value: string | undefined): Record<string, string> {
  return value === undefined ? {} : { [field]: value };
}

function flag(graph: Graph, subject: string, term: string): Record<string, boolean> {
  const value = graph.literal(subject, rdl(term));
  return value === undefined ? {} : { [term]: value === 'true' || value === '1' };
}

/**
 * The resources an RDF file describes, in the target library; what it
 * describes that this reader does not know is refused, saying so.
 */
export function rdfItems(
  quads: readonly Quad[],
  source: string,
  context: RdfContext,
): { items: ImportItem[]; refused: RefusedRecord[] } {
  const graph = new Graph(quads);
  const items: ImportItem[] = [];
  const refused: RefusedRecord[] = [];
  const subjects = graph.namedSubjects();
  const picklists = new Set(
    subjects.filter((subject) => graph.types(subject).includes(rdl('Picklist'))),
  );
  // Under this service's base, only IRIs it mints for these families are taken as they are.
  const ours = (iri: string) =>
    !iri.startsWith(`${context.iriBase}/`) ||
    iri.startsWith(`${context.iriBase}/cfihos/`) ||
    iri.startsWith(`${context.library}/`);
  for (const [index, subject] of subjects.entries()) {
    const types = graph.types(subject);
    if (types.includes(`${OWL}Ontology`)) continue;
    // A value comes with its picklist.
    if (types.some((type) => picklists.has(type))) continue;
    const from = { source, line: index + 1 };
    const body = commonBody(graph, subject, context);
    const item = (family: string, own: Record<string, unknown>, parts: ImportPart[] = []) =>
      items.push({
        iri: subject,
        family,
        name: String(body.name),
        body: { ...body, ...own },
        from,
        columns: {},
        notKept: [],
        problems: [],
        parts,
        givenIri: !ours(subject),
      });
    const superclasses = graph.iris(subject, `${RDFS}subClassOf`);
    const entityType = graph.literal(subject, rdl('entityType'));
    const valueKind = graph.literal(subject, rdl('valueKind'));
    if (types.includes(rdl('Dimension'))) {
      item('dimension', { dimensionCode: graph.literal(subject, rdl('dimensionCode')) ?? '' });
    } else if (types.includes(rdl('UnitOfMeasure'))) {
      item('unit', {
        dimensionRef: graph.iris(subject, rdl('dimension'))[0] ?? '',
        measurementSystem: graph.literal(subject, rdl('measurementSystem')) ?? '',
        symbol: graph.literal(subject, rdl('symbol')) ?? '',
      });
    } else if (picklists.has(subject)) {
      const values = subjects.filter((other) => graph.types(other).includes(subject));
      item(
        'picklist',
        { subClassOf: superclasses[0] ?? '', picklistValues: [] },
        values.map((value) => ({
          from,
          field: 'picklistValues',
          iri: value,
          family: 'picklist-value',
          value: {
            id: value,
            name: graph.literal(value, `${SKOS}prefLabel`) ?? '',
            description: graph.literal(value, `${SKOS}definition`) ?? '',
          },
          notKept: [],
          problems: [],
        })),
      );
    } else if (entityType === 'equipment' || entityType === 'tag') {
      const restrictions = graph
        .objects(subject, `${RDFS}subClassOf`)
        .filter((node) => node.termType === 'BlankNode');
      const parts: ImportPart[] = restrictions.map((node) => {
        const propertyUri = graph.iris(node, `${OWL}onProperty`)[0] ?? '';
        return {
          from,
          field: 'propertyReferences',
          value: {
            propertyUri,
            minCardinality: Number(graph.literal(node, `${OWL}minCardinality`) ?? 0),
            maxCardinality: Number(graph.literal(node, `${OWL}maxCardinality`) ?? 1),
          },
          names: propertyUri,
          notKept: [],
          problems: [],
        };
      });
      for (const equipment of graph.iris(subject, rdl('equipmentClass')))
        parts.push({
          from,
          field: 'equipmentClasses',
          value: equipment,
          names: equipment,
          notKept: [],
          problems: [],
        });
      item(
        'cfihos-entity',
        {
          entityType,
          propertyReferences: [],
          ...(superclasses[0] ? { superEntity: superclasses[0] } : {}),
          ...flag(graph, subject, 'requiresSparePartInformation'),
          ...flag(graph, subject, 'installedIndicator'),
          ...flag(graph, subject, 'isAbstract'),
        },
        parts,
      );
    } else if (valueKind !== undefined) {
      const range =
        valueKind === 'number'
          ? graph.iris(subject, rdl('dimension'))[0]
          : valueKind === 'controlledText'
            ? graph.iris(subject, `${RDFS}range`)[0]
            : undefined;
      item('property', { types: [valueKind], ...(range ? { range } : {}) });
    } else if (types.includes(`${OWL}Class`) && superclasses.length > 0) {
      item('class', { subClassOf: superclasses });
    } else {
      refused.push({
        from,
        family: '',
        name: String(body.name),
        iri: subject,
        problems: [
          {
            message: `is a kind of resource this import does not read from RDF yet (${types.join(', ') || 'no rdf:type'}); the CFIHOS families and reference-data classes are read`,
          },
        ],
      });
    }
  }
  return { items, refused };
}
