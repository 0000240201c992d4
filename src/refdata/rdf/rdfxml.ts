import type { Quad, Term } from 'n3';
import { joinInPieces } from './text-pieces.js';

/**
 * RDF/XML for our graphs, one `rdf:Description` per subject and one property
 * element per triple (RDF 1.1 XML Syntax, section 2.2 and 2.5 to 2.10).
 *
 * Written here rather than through oxigraph's store, which normalizes literals
 * on load: `"0"^^xsd:nonNegativeInteger` came out as `xsd:integer`, so RDF/XML
 * said something else than every other format. This writer keeps every term as
 * it is and needs no store, so it also streams.
 */

const RDF = 'http://www.w3.org/1999/02/22-rdf-syntax-ns#';
const XSD_STRING = 'http://www.w3.org/2001/XMLSchema#string';
const RDF_LANG_STRING = `${RDF}langString`;

export const RDF_XML_HEADER = `<?xml version="1.0" encoding="UTF-8"?>\n<rdf:RDF xmlns:rdf="${RDF}">\n`;
export const RDF_XML_FOOTER = '</rdf:RDF>\n';

/** XML 1.0 name characters, without the colon: a property element's local name. */
const LOCAL_NAME =
  /[A-Za-z_\u00C0-\u00D6\u00D8-\u00F6\u00F8-\u02FF\u0370-\u037D\u037F-\u1FFF][\w.\-\u00B7\u00C0-\u00D6\u00D8-\u00F6\u00F8-\u037D\u037F-\u1FFF\u203F\u2040]*$/u;

function escapeText(text: string): string {
  return text.replace(/[&<>\r]/g, (char) =>
    char === '&' ? '&amp;' : char === '<' ? '&lt;' : char === '>' ? '&gt;' : '&#13;',
  );
}

function escapeAttribute(text: string): string {
  return escapeText(text).replace(/["\n\t]/g, (char) =>
    char === '"' ? '&quot;' : char === '\n' ? '&#10;' : '&#9;',
  );
}

/** A predicate as namespace and local name; RDF/XML cannot write one without a local name. */
function splitPredicate(iri: string): [string, string] {
  const match = LOCAL_NAME.exec(iri);
  if (!match || match.index === 0) throw new Error(`RDF/XML cannot name the predicate ${iri}`);
  return [iri.slice(0, match.index), match[0]];
}

/**
 * Writes groups of quads as RDF/XML descriptions (without the document's
 * header and footer). Blank node labels are renamed to NCNames unique in the
 * document; a blank node never spans two chunks of our graphs (each belongs to
 * one resource), so a chunk's labels are forgotten once it is written and memory
 * stays flat however long the document.
 */
export class RdfXmlWriter {
  private blankLabels = new Map<string, string>();
  private blankNodes = 0;
  /** Each predicate's opening of its property element, made once (there are few predicates). */
  private readonly openings = new Map<string, { open: string; local: string }>();

  private nodeId(term: Term): string {
    let label = this.blankLabels.get(term.value);
    if (label === undefined) {
      label = `b${this.blankNodes}`;
      this.blankNodes += 1;
      this.blankLabels.set(term.value, label);
    }
    return label;
  }

  private opening(predicate: string): { open: string; local: string } {
    let known = this.openings.get(predicate);
    if (!known) {
      const [namespace, local] = splitPredicate(predicate);
      known = { open: `<${local} xmlns="${escapeAttribute(namespace)}"`, local };
      // Bounded: an unusual graph with many predicates only forgoes the shortcut.
      if (this.openings.size < 10_000) this.openings.set(predicate, known);
    }
    return known;
  }

  private subjectAttribute(term: Term): string {
    return term.termType === 'BlankNode'
      ? `rdf:nodeID="${this.nodeId(term)}"`
      : `rdf:about="${escapeAttribute(term.value)}"`;
  }

  private property(quad: Quad): string {
    const { open, local } = this.opening(quad.predicate.value);
    const object = quad.object;
    if (object.termType === 'NamedNode')
      return `${open} rdf:resource="${escapeAttribute(object.value)}"/>`;
    if (object.termType === 'BlankNode') return `${open} rdf:nodeID="${this.nodeId(object)}"/>`;
    if (object.termType !== 'Literal') throw new Error(`RDF/XML cannot write a ${object.termType}`);
    const datatype = object.datatype.value;
    const attributes = object.language
      ? ` xml:lang="${escapeAttribute(object.language)}"`
      : datatype === XSD_STRING || datatype === RDF_LANG_STRING
        ? ''
        : ` rdf:datatype="${escapeAttribute(datatype)}"`;
    return `${open}${attributes}>${escapeText(object.value)}</${local}>`;
  }

  /**
   * The descriptions of `quads`, subjects in order of first appearance, as
   * pieces of text to be written one after the other (see `joinInPieces`).
   */
  write(quads: readonly Quad[]): string[] {
    this.blankLabels = new Map();
    const bySubject = new Map<string, Quad[]>();
    for (const quad of quads) {
      const key = `${quad.subject.termType}:${quad.subject.value}`;
      const group = bySubject.get(key);
      if (group) group.push(quad);
      else bySubject.set(key, [quad]);
    }
    // Lines joined in bounded pieces: concatenated one by one they made a rope
    // that outlived the young generation; joined whole, a chunk was one string
    // large enough to be allocated in the old generation.
    const lines: string[] = [];
    for (const group of bySubject.values()) {
      lines.push(`\t<rdf:Description ${this.subjectAttribute((group[0] as Quad).subject)}>\n`);
      for (const quad of group) lines.push(`\t\t${this.property(quad)}\n`);
      lines.push('\t</rdf:Description>\n');
    }
    return joinInPieces(lines);
  }
}
