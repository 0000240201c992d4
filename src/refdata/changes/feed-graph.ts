import { DataFactory, type NamedNode, type Quad, type Term } from 'n3';
import type { ChangeEvent } from '../db/tables.js';
import { DEFAULT_LANGUAGE } from '../families/common.js';
import type { FamilyRegistry } from '../families/registry.js';
import type { RdlTerm } from '../rdf/rdl-vocabulary.js';
import { resourceGraph } from '../rdf/resource-graph.js';
import { dcterms, RDL_NAMESPACE, rdf, xsd } from '../rdf/vocabulary.js';
import { writableIri } from '../rdf/writable-terms.js';
import type { ResourceRow } from '../resources/rows.js';
import type { FeedEvent } from './feed.js';

const { namedNode, literal, quad, blankNode } = DataFactory;

/** Linked Data Event Streams 1.0 and TREE (https://w3id.org/ldes/specification). */
export const LDES = 'https://w3id.org/ldes#';
export const TREE = 'https://w3id.org/tree#';
export const PROV = 'http://www.w3.org/ns/prov#';

const ldes = (local: string) => namedNode(`${LDES}${local}`);
const tree = (local: string) => namedNode(`${TREE}${local}`);
const prov = (local: string) => namedNode(`${PROV}${local}`);
const our = (term: RdlTerm) => namedNode(`${RDL_NAMESPACE}${term}`);

/** Each event's individual in the vocabulary (`rdl:Approval`, ...). */
const EVENT_TERMS: Readonly<Record<ChangeEvent, RdlTerm>> = {
  created: 'Creation',
  updated: 'Update',
  submitted: 'Submission',
  approved: 'Approval',
  rejected: 'Rejection',
  'changes-requested': 'ChangesRequest',
  deprecated: 'Deprecation',
  removed: 'Removal',
};

/** The path members are ordered by, and the versions' link to what they are versions of. */
const TIMESTAMP_PATH = prov('generatedAtTime');
const VERSION_OF_PATH = dcterms('isVersionOf');

/** A member's IRI, which dereferences to the member alone. */
export function memberIri(publicUrl: string, id: number): string {
  return `${publicUrl}/changes/events/${id}`;
}

function dateTime(epochMs: number) {
  return literal(new Date(epochMs).toISOString(), xsd('dateTime'));
}

/** What every page says of the stream: how its members are ordered, versioned and deleted. */
export function streamQuads(stream: NamedNode, root: NamedNode | undefined): Quad[] {
  const quads = [
    quad(stream, rdf('type'), ldes('EventStream')),
    quad(stream, ldes('timestampPath'), TIMESTAMP_PATH),
    quad(stream, ldes('versionOfPath'), VERSION_OF_PATH),
    quad(stream, ldes('versionDeletePath'), our('changeEvent')),
    quad(stream, ldes('versionDeleteObject'), our('Removal')),
    quad(stream, ldes('versionCreatePath'), our('changeEvent')),
    quad(stream, ldes('versionCreateObject'), our('Creation')),
  ];
  if (root) quads.push(quad(stream, tree('view'), root));
  return quads;
}

/** A page as a TREE node: its relation to the next page, and whether it will change again. */
export function pageQuads(
  page: NamedNode,
  next: { url: string; at: number } | undefined,
  until: number | undefined,
  immutable: boolean,
): Quad[] {
  const quads = [quad(page, rdf('type'), tree('Node'))];
  if (next) {
    const relation = blankNode();
    const target = namedNode(next.url);
    quads.push(
      quad(page, tree('relation'), relation),
      quad(relation, rdf('type'), tree('GreaterThanOrEqualToRelation')),
      quad(relation, tree('node'), target),
      quad(relation, tree('path'), TIMESTAMP_PATH),
      quad(relation, tree('value'), dateTime(next.at)),
    );
    if (until !== undefined) {
      const bound = blankNode();
      quads.push(
        quad(page, tree('relation'), bound),
        quad(bound, rdf('type'), tree('LessThanRelation')),
        quad(bound, tree('node'), target),
        quad(bound, tree('path'), TIMESTAMP_PATH),
        quad(bound, tree('value'), dateTime(until)),
      );
    }
  }
  if (immutable) quads.push(quad(page, ldes('immutable'), literal('true', xsd('boolean'))));
  return quads;
}

/**
 * One member: a version object of the resource. Its own triples are the
 * resource's RDF at that version with the member as their subject (what TREE's
 * member extraction reads: the member's triples and its blank nodes'), and it
 * says which resource it is a version of, when, and what happened. A removal
 * carries no content: it is the deletion.
 */
export function memberQuads(
  context: { families: FamilyRegistry; iriBase: string },
  stream: NamedNode,
  member: NamedNode,
  event: FeedEvent,
): Quad[] {
  const resource = namedNode(writableIri(event.iri));
  const quads = [
    quad(stream, tree('member'), member),
    quad(member, VERSION_OF_PATH, resource),
    quad(member, TIMESTAMP_PATH, dateTime(event.at)),
    quad(member, our('changeEvent'), our(EVENT_TERMS[event.event])),
  ];
  if (event.event === 'removed') return quads;
  const row: ResourceRow = {
    id: event.resourceId,
    iri: event.iri,
    family: event.family,
    status: event.status,
    name: '',
    name_normalized: '',
    library_key: event.libraryKey,
    name_scope: '',
    parent_iri: null,
    replaces_iri: null,
    body: event.body,
    language: event.language ?? DEFAULT_LANGUAGE,
    version: event.version,
    created_by: '',
    created_at: event.createdAt,
    updated_by: '',
    updated_at: event.at,
  };
  const facts = {
    justifications: new Map(
      event.justification === null ? [] : [[event.resourceId, event.justification]],
    ),
    replacedBy: new Map(event.replacedBy === null ? [] : [[event.iri, event.replacedBy]]),
  };
  for (const triple of resourceGraph(context, row, [], facts)) {
    const subject: Term = triple.subject.equals(resource) ? member : triple.subject;
    quads.push(quad(subject as NamedNode, triple.predicate, triple.object));
  }
  return quads;
}
