import type { Quad, Term } from 'n3';
import { joinInPieces } from './text-pieces.js';

const RDF_TYPE = 'http://www.w3.org/1999/02/22-rdf-syntax-ns#type';
const XSD_STRING = 'http://www.w3.org/2001/XMLSchema#string';

/** A node object as it is gathered: values already written as JSON text. */
interface NodeText {
  id: string;
  types: string[];
  properties: Map<string, string[]>;
}

/**
 * Compacting an IRI walks every prefix; the predicates, datatypes and types of
 * our graphs are a few dozen IRIs written over and over, so they are
 * remembered, up to this many (subjects and objects are not: each is new).
 */
const REMEMBERED_TERMS = 1000;

/** A context's sorted namespaces, its JSON, and its vocabulary IRIs as written. */
interface ContextWork {
  namespaces: [string, string][];
  remembered: Map<string, string>;
  contextText: string;
}
const SHARED = new WeakMap<object, ContextWork>();

/**
 * Compacted JSON-LD written straight from quads, one node object per subject in
 * a flat `@graph`, under a context of prefixes only: the shape `jsonld.compact`
 * gives for such a context (values as value objects, as `useNativeTypes: false`
 * keeps them), a chunk at a time. Each node is written as text from its parts
 * (strings through `JSON.stringify`), not built as an object first: objects
 * keyed by compact IRIs are dictionaries to V8, and building and then
 * stringifying them took half an export's time.
 *
 * IRIs are written as compact IRIs where a prefix covers them (never when what
 * follows the colon starts with `//`, which JSON-LD would read as an absolute
 * IRI), otherwise whole. Blank nodes get document-wide labels; a blank node never
 * spans two chunks of our graphs (each belongs to one resource), so the labels of
 * one chunk are forgotten when it is written and memory stays flat.
 */
export class JsonLdWriter {
  private readonly namespaces: readonly [string, string][];
  private readonly remembered: Map<string, string>;
  private readonly contextText: string;
  private blankNodes = 0;
  private written = 0;

  constructor(context: Readonly<Record<string, string>>) {
    // What depends on the context alone is worked out once per context, not
    // per document: dereferencing writes one small document per request.
    let shared = SHARED.get(context);
    if (!shared) {
      shared = {
        // Longest namespace first, so the most specific prefix wins.
        namespaces: Object.entries(context).sort((a, b) => b[1].length - a[1].length),
        remembered: new Map(),
        contextText: JSON.stringify(context),
      };
      SHARED.set(context, shared);
    }
    this.namespaces = shared.namespaces;
    this.remembered = shared.remembered;
    this.contextText = shared.contextText;
  }

  header(): string {
    return `{\n  "@context": ${this.contextText},\n  "@graph": [`;
  }

  footer(): string {
    return '\n  ]\n}\n';
  }

  compact(iri: string): string {
    for (const [prefix, namespace] of this.namespaces) {
      if (!iri.startsWith(namespace)) continue;
      const local = iri.slice(namespace.length);
      if (local !== '' && !local.startsWith('//')) return `${prefix}:${local}`;
    }
    return iri;
  }

  /** A vocabulary IRI (predicate, datatype, type) compacted and written as a JSON string. */
  private vocabulary(iri: string): string {
    let text = this.remembered.get(iri);
    if (text === undefined) {
      text = JSON.stringify(this.compact(iri));
      if (this.remembered.size < REMEMBERED_TERMS) this.remembered.set(iri, text);
    }
    return text;
  }

  /**
   * The node objects of `quads`, each on its own line, subjects in order of
   * first appearance, as pieces of text to be written one after the other.
   */
  write(quads: readonly Quad[]): string[] {
    const labels = new Map<string, string>();
    const id = (term: Term): string => {
      if (term.termType !== 'BlankNode') return JSON.stringify(this.compact(term.value));
      let label = labels.get(term.value);
      if (label === undefined) {
        label = `"_:b${this.blankNodes}"`;
        this.blankNodes += 1;
        labels.set(term.value, label);
      }
      return label;
    };
    const nodes = new Map<string, NodeText>();
    for (const quad of quads) {
      // Blank node labels and IRIs cannot collide: an IRI has a scheme.
      const subject = quad.subject;
      const key = subject.termType === 'BlankNode' ? `_:${subject.value}` : subject.value;
      let node = nodes.get(key);
      if (!node) {
        node = { id: id(subject), types: [], properties: new Map() };
        nodes.set(key, node);
      }
      const object = quad.object;
      if (quad.predicate.value === RDF_TYPE && object.termType === 'NamedNode') {
        node.types.push(this.vocabulary(object.value));
        continue;
      }
      let value: string;
      if (object.termType === 'NamedNode' || object.termType === 'BlankNode')
        value = `{"@id":${id(object)}}`;
      else if (object.termType !== 'Literal')
        throw new Error(`JSON-LD cannot write a ${object.termType}`);
      else {
        const language = object.language;
        const datatype = language ? '' : object.datatype.value;
        const text = JSON.stringify(object.value);
        if (language) value = `{"@value":${text},"@language":${JSON.stringify(language)}}`;
        else if (datatype === XSD_STRING) value = text;
        else value = `{"@value":${text},"@type":${this.vocabulary(datatype)}}`;
      }
      const property = this.vocabulary(quad.predicate.value);
      const values = node.properties.get(property);
      if (values) values.push(value);
      else node.properties.set(property, [value]);
    }
    const lines: string[] = [];
    for (const node of nodes.values()) {
      let line = `${this.written === 0 ? '\n' : ',\n'}    {"@id":${node.id}`;
      if (node.types.length > 0) line += `,"@type":[${node.types.join(',')}]`;
      for (const [property, values] of node.properties)
        line += `,${property}:[${values.join(',')}]`;
      lines.push(`${line}}`);
      this.written += 1;
    }
    return joinInPieces(lines);
  }
}
