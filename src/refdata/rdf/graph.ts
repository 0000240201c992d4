import {
  type BlankNode,
  DataFactory,
  type NamedNode,
  type Quad,
  type Quad_Object,
  type Quad_Subject,
} from 'n3';
import type { RdlTerm } from './rdl-vocabulary.js';
import { RDL_NAMESPACE, xsd } from './vocabulary.js';
import { writableIri, writableLanguage, writableText } from './writable-terms.js';

const { namedNode, literal, blankNode, quad } = DataFactory;

/** Collects the triples of one resource; families add theirs through it. */
export class GraphBuilder {
  readonly quads: Quad[] = [];
  constructor(
    readonly iriBase: string,
    readonly subject: NamedNode,
  ) {}

  /** A term of our own vocabulary; only terms it defines (and publishes) can be named. */
  our(term: RdlTerm): NamedNode {
    return namedNode(`${RDL_NAMESPACE}${term}`);
  }

  add(subject: Quad_Subject, predicate: NamedNode, object: Quad_Object): this {
    this.quads.push(quad(subject, predicate, object));
    return this;
  }

  /** A triple about the resource itself. */
  about(predicate: NamedNode, object: Quad_Object | undefined): this {
    if (object !== undefined) this.add(this.subject, predicate, object);
    return this;
  }

  iri(value: string): NamedNode {
    return namedNode(writableIri(value));
  }

  /** Text in a language (BCP 47), English unless said; plain text if the tag is malformed. */
  text(value: string, language = 'en'): Quad_Object {
    const tag = writableLanguage(language);
    return tag ? literal(writableText(value), tag) : literal(writableText(value));
  }

  plain(value: string): Quad_Object {
    return literal(writableText(value));
  }

  integer(value: number): Quad_Object {
    return literal(String(value), xsd('integer'));
  }

  nonNegative(value: number): Quad_Object {
    return literal(String(value), xsd('nonNegativeInteger'));
  }

  decimal(value: number): Quad_Object {
    return literal(String(value), xsd('decimal'));
  }

  typed(value: string, datatype: NamedNode): Quad_Object {
    return literal(writableText(value), datatype);
  }

  boolean(value: boolean): Quad_Object {
    return literal(String(value), xsd('boolean'));
  }

  dateTime(epochMs: number): Quad_Object {
    return literal(new Date(epochMs).toISOString(), xsd('dateTime'));
  }

  /** A blank node for structure (a restriction, a position, mapping details). */
  node(): BlankNode {
    return blankNode();
  }
}
