import { DataFactory, type Quad } from 'n3';

const { namedNode, blankNode, literal, quad } = DataFactory;

/**
 * Triples as a flat list of strings, five to a triple (subject, predicate,
 * the object's kind, its value, `@` and its language or its datatype), to
 * hand to another thread: terms are objects of classes, which a message does
 * not carry. Blank nodes are written `_:label`, which no IRI starts with.
 */
export type EncodedTriples = string[];

export function encodeTriples(triples: readonly Quad[]): EncodedTriples {
  const encoded: string[] = [];
  for (const { subject, predicate, object } of triples) {
    const kind = object.termType === 'Literal' ? 'L' : object.termType === 'BlankNode' ? 'B' : 'I';
    encoded.push(
      subject.termType === 'BlankNode' ? `_:${subject.value}` : subject.value,
      predicate.value,
      kind,
      object.value,
      object.termType !== 'Literal'
        ? ''
        : object.language
          ? `@${object.language}`
          : object.datatype.value,
    );
  }
  return encoded;
}

export function decodeTriples(encoded: EncodedTriples): Quad[] {
  const triples: Quad[] = [];
  for (let at = 0; at + 4 < encoded.length; at += 5) {
    const [subject, predicate, kind, value, extra] = encoded.slice(at, at + 5) as [
      string,
      string,
      string,
      string,
      string,
    ];
    const object =
      kind === 'L'
        ? literal(value, extra.startsWith('@') ? extra.slice(1) : namedNode(extra))
        : kind === 'B'
          ? blankNode(value)
          : namedNode(value);
    triples.push(
      quad(
        subject.startsWith('_:') ? blankNode(subject.slice(2)) : namedNode(subject),
        namedNode(predicate),
        object,
      ),
    );
  }
  return triples;
}
