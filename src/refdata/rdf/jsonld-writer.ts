import type { Quad, Term } from 'n3';
import { joinInPieces } from './text-pieces.js';

const RDF_TYPE = 'http://www.w3.org/1999/02/22-rdf-syntax-ns#type';
const XSD_STRING = 'http://www.w3.org/2001/XMLSchema#string';

type JsonValue =
  | string
  | { '@id': string }
  | { '@value': string; '@language'?: string; '@type'?: string };

/**
 * Compacted JSON-LD written straight from quads, one node object per subject in
 * a flat `@graph`, under a context of prefixes only: the shape `jsonld.compact`
 * gives for such a context (values as value objects, as `useNativeTypes: false`
 * keeps them), at the speed of `JSON.stringify`, a chunk at a time.
 *
 * IRIs are written as compact IRIs where a prefix covers them (never when what
 * follows the colon starts with `//`, which JSON-LD would read as an absolute
 * IRI), otherwise whole. Blank nodes get document-wide labels; a blank node never
 * spans two chunks of our graphs (each belongs to one resource), so the labels of
 * one chunk are forgotten when it is written and memory stays flat.
 */
export class JsonLdWriter {
  private readonly namespaces: [string, string][];
  private blankNodes = 0;
  private written = 0;

  constructor(private readonly context: Readonly<Record<string, string>>) {
    // Longest namespace first, so the most specific prefix wins.
    this.namespaces = Object.entries(context).sort((a, b) => b[1].length - a[1].length);
  }

  header(): string {
    return `{\n  "@context": ${JSON.stringify(this.context)},\n  "@graph": [`;
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

  /**
   * The node objects of `quads`, each on its own line, subjects in order of
   * first appearance, as pieces of text to be written one after the other.
   */
  write(quads: readonly Quad[]): string[] {
    const labels = new Map<string, string>();
    const id = (term: Term) => {
      if (term.termType !== 'BlankNode') return this.compact(term.value);
      let label = labels.get(term.value);
      if (label === undefined) {
        label = `_:b${this.blankNodes}`;
        this.blankNodes += 1;
        labels.set(term.value, label);
      }
      return label;
    };
    const nodes = new Map<string, Record<string, unknown>>();
    for (const quad of quads) {
      const key = `${quad.subject.termType}:${quad.subject.value}`;
      let node = nodes.get(key);
      if (!node) {
        node = { '@id': id(quad.subject) };
        nodes.set(key, node);
      }
      const object = quad.object;
      if (quad.predicate.value === RDF_TYPE && object.termType === 'NamedNode') {
        const types = (node['@type'] as string[] | undefined) ?? [];
        types.push(this.compact(object.value));
        node['@type'] = types;
        continue;
      }
      let value: JsonValue;
      if (object.termType === 'NamedNode' || object.termType === 'BlankNode')
        value = { '@id': id(object) };
      else if (object.termType !== 'Literal')
        throw new Error(`JSON-LD cannot write a ${object.termType}`);
      else if (object.language) value = { '@value': object.value, '@language': object.language };
      else if (object.datatype.value === XSD_STRING) value = object.value;
      else value = { '@value': object.value, '@type': this.compact(object.datatype.value) };
      const property = this.compact(quad.predicate.value);
      const values = (node[property] as JsonValue[] | undefined) ?? [];
      values.push(value);
      node[property] = values;
    }
    const lines: string[] = [];
    for (const node of nodes.values()) {
      lines.push(`${this.written === 0 ? '\n' : ',\n'}    ${JSON.stringify(node)}`);
      this.written += 1;
    }
    return joinInPieces(lines);
  }
}
