import { DataFactory, type Quad } from 'n3';
import { STATUSES } from '../db/tables.js';
import { NS, RDL_NAMESPACE, rdf, rdfs } from './vocabulary.js';

const { namedNode, literal, quad } = DataFactory;

type Kind = 'class' | 'object' | 'datatype' | 'status' | 'event';

interface TermDefinition {
  kind: Kind;
  label: string;
  comment: string;
}

const STATUS_COMMENTS: Record<(typeof STATUSES)[number], string> = {
  Draft: 'Being written; only a Draft can be changed.',
  Submitted: 'Submitted for review ("Pending review" on pages); waits for a Reviewer.',
  Approved: 'Accepted by a Reviewer; published.',
  Rejected: 'Declined by a Reviewer, with a justification.',
  Deprecated: 'Replaced by another resource (dcterms:isReplacedBy names it); kept for reference.',
  ExternallyManaged: 'Maintained outside this service; read only here.',
};

/**
 * The service's own vocabulary: only what no standard vocabulary says. Every
 * term the RDF uses is defined here, and the published document is made from
 * this table, so the two cannot drift apart.
 */
export const RDL_TERMS = {
  Status: { kind: 'class', label: 'Status', comment: 'A state in the authoring lifecycle.' },
  ...(Object.fromEntries(
    STATUSES.map((status) => [
      status,
      { kind: 'status', label: status, comment: STATUS_COMMENTS[status] },
    ]),
  ) as Record<(typeof STATUSES)[number], TermDefinition>),
  status: {
    kind: 'object',
    label: 'status',
    comment: 'The lifecycle state of a resource: one of the rdl:Status individuals.',
  },
  changeJustification: {
    kind: 'datatype',
    label: 'change justification',
    comment: "Why the resource's latest version was written (by its author).",
  },
  packageName: {
    kind: 'datatype',
    label: 'package name',
    comment: 'A label grouping resources for review; has no other effect.',
  },
  targetLibrary: {
    kind: 'datatype',
    label: 'target library',
    comment: 'The library (ETIM, UNSPSC, ...) of a mapping target named by identifier.',
  },
  targetIdentifier: {
    kind: 'datatype',
    label: 'target identifier',
    comment: "A mapping target's identifier within its library.",
  },
  targetVersion: {
    kind: 'datatype',
    label: 'target version',
    comment: "The version of the target's library.",
  },
  targetSourceName: {
    kind: 'datatype',
    label: 'target source name',
    comment: 'Where the mapping target was taken from.',
  },
  version: {
    kind: 'datatype',
    label: 'version',
    comment: 'The version of a definition source.',
  },
  backupFrequency: {
    kind: 'datatype',
    label: 'backup frequency',
    comment: 'How often a library is backed up: daily, weekly or monthly.',
  },
  cfihosPrefix: {
    kind: 'datatype',
    label: 'CFIHOS prefix',
    comment: 'The prefix of identifiers in a library built on the CFIHOS RDL.',
  },
  valueKind: {
    kind: 'datatype',
    label: 'value kind',
    comment: "A property's kind of value: number, boolean, freeText or controlledText.",
  },
  dimension: {
    kind: 'object',
    label: 'dimension',
    comment: 'The dimension of a numeric property or of a unit of measure.',
  },
  entityType: {
    kind: 'datatype',
    label: 'entity type',
    comment: 'Whether a CFIHOS class is an equipment or a tag class.',
  },
  requiresSparePartInformation: {
    kind: 'datatype',
    label: 'requires spare part information',
    comment: 'Whether spare part information is required for equipment of a CFIHOS class.',
  },
  installedIndicator: {
    kind: 'datatype',
    label: 'installed indicator',
    comment: 'Whether a CFIHOS class is for installed equipment.',
  },
  equipmentClass: {
    kind: 'object',
    label: 'equipment class',
    comment: 'A CFIHOS equipment class that the equipment installed at a tag of a tag class is of.',
  },
  isAbstract: {
    kind: 'datatype',
    label: 'is abstract',
    comment: 'Whether a CFIHOS class is abstract (only its subclasses are used).',
  },
  concerns: {
    kind: 'object',
    label: 'concerns',
    comment: 'What an IMF attribute type is about.',
  },
  measurementSystem: {
    kind: 'datatype',
    label: 'measurement system',
    comment: 'The system a unit of measure belongs to (SI, imperial, ...).',
  },
  symbol: {
    kind: 'datatype',
    label: 'symbol',
    comment: "A unit of measure's symbol, such as m or kg.",
  },
  dimensionCode: {
    kind: 'datatype',
    label: 'dimension code',
    comment: 'The code of a unit-of-measure dimension, such as L or M.',
  },
  Dimension: {
    kind: 'class',
    label: 'Dimension',
    comment: 'A unit-of-measure dimension (CFIHOS).',
  },
  UnitOfMeasure: {
    kind: 'class',
    label: 'Unit of measure',
    comment: 'A unit of measure (CFIHOS).',
  },
  Picklist: {
    kind: 'class',
    label: 'Picklist',
    comment: 'A CFIHOS picklist: a controlled list of values.',
  },
  ChangeEvent: {
    kind: 'class',
    label: 'Change event',
    comment: 'What made a version of a resource, in the change feed (/changes).',
  },
  changeEvent: {
    kind: 'object',
    label: 'change event',
    comment:
      'The event that made this version of a resource: one of the rdl:ChangeEvent individuals.',
  },
  Creation: { kind: 'event', label: 'created', comment: 'The resource was created as a Draft.' },
  Update: { kind: 'event', label: 'updated', comment: 'A Draft was changed.' },
  Submission: { kind: 'event', label: 'submitted', comment: 'A Draft was submitted for review.' },
  Approval: { kind: 'event', label: 'approved', comment: 'A Reviewer approved it: published.' },
  Rejection: { kind: 'event', label: 'rejected', comment: 'A Reviewer rejected it.' },
  ChangesRequest: {
    kind: 'event',
    label: 'changes requested',
    comment: 'A Reviewer sent it back to Draft, saying what to change.',
  },
  Deprecation: {
    kind: 'event',
    label: 'deprecated',
    comment: 'Its replacement was approved; it stays published, marked Deprecated.',
  },
  Removal: {
    kind: 'event',
    label: 'removed',
    comment: 'A Draft value its picklist no longer lists was removed (a deletion in the feed).',
  },
  ReleaseDifference: {
    kind: 'class',
    label: 'Release difference',
    comment:
      "What changed in a library between two of its releases, or between a release and today's published view.",
  },
  fromRelease: {
    kind: 'object',
    label: 'from release',
    comment: 'The earlier side of a difference.',
  },
  toRelease: {
    kind: 'object',
    label: 'to release',
    comment: "The later side of a difference; absent when it is today's published view.",
  },
  added: {
    kind: 'object',
    label: 'added',
    comment: 'A resource the later side has and the earlier not.',
  },
  changed: {
    kind: 'object',
    label: 'changed',
    comment: 'A resource both sides have, with fields that differ (each an rdl:FieldChange).',
  },
  deprecated: {
    kind: 'object',
    label: 'deprecated',
    comment: 'A resource Deprecated on the later side and not on the earlier.',
  },
  removed: {
    kind: 'object',
    label: 'removed',
    comment: 'A resource the earlier side has and the later not.',
  },
  FieldChange: {
    kind: 'class',
    label: 'Field change',
    comment: 'One field of a resource that differs.',
  },
  fieldChange: { kind: 'object', label: 'field change', comment: 'One of the fields that differ.' },
  ofResource: {
    kind: 'object',
    label: 'of resource',
    comment: 'The resource a field change is of.',
  },
  field: {
    kind: 'datatype',
    label: 'field',
    comment: "A JSON pointer into the resource's JSON body.",
  },
  before: { kind: 'datatype', label: 'before', comment: 'The value on the earlier side, if any.' },
  after: { kind: 'datatype', label: 'after', comment: 'The value on the later side, if any.' },
} satisfies Record<string, TermDefinition>;

export type RdlTerm = keyof typeof RDL_TERMS;

/** The vocabulary's own IRI: the namespace without its `#`. */
export const RDL_ONTOLOGY = RDL_NAMESPACE.slice(0, -1);

const TYPES: Record<Kind, string> = {
  class: `${NS.owl}Class`,
  object: `${NS.owl}ObjectProperty`,
  datatype: `${NS.owl}DatatypeProperty`,
  status: `${RDL_NAMESPACE}Status`,
  event: `${RDL_NAMESPACE}ChangeEvent`,
};

/** The vocabulary as RDF: an OWL ontology with each term typed, labelled and described. */
export function rdlVocabularyGraph(documentUrl: string): Quad[] {
  const ontology = namedNode(RDL_ONTOLOGY);
  const quads = [
    quad(ontology, rdf('type'), namedNode(`${NS.owl}Ontology`)),
    quad(ontology, rdfs('label'), literal('refdata vocabulary', 'en')),
    quad(
      ontology,
      rdfs('comment'),
      literal(
        'Terms of the refdata service that no standard vocabulary has: the lifecycle status, change justifications, mapping details and CFIHOS attributes.',
        'en',
      ),
    ),
    quad(ontology, rdfs('seeAlso'), namedNode(documentUrl)),
  ];
  for (const [name, term] of Object.entries(RDL_TERMS) as [RdlTerm, TermDefinition][]) {
    const subject = namedNode(`${RDL_NAMESPACE}${name}`);
    quads.push(
      quad(subject, rdf('type'), namedNode(TYPES[term.kind])),
      quad(subject, rdfs('label'), literal(term.label, 'en')),
      quad(subject, rdfs('comment'), literal(term.comment, 'en')),
      quad(subject, rdfs('isDefinedBy'), ontology),
    );
  }
  return quads;
}

/** Each term for the HTML page, in table order. */
export function rdlTermList(): {
  name: string;
  iri: string;
  kind: Kind;
  label: string;
  comment: string;
}[] {
  return (Object.entries(RDL_TERMS) as [string, TermDefinition][]).map(([name, term]) => ({
    name,
    iri: `${RDL_NAMESPACE}${name}`,
    ...term,
  }));
}
