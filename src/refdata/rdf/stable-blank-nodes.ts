import { DataFactory, type Quad, type Quad_Graph, type Quad_Object, type Quad_Subject } from 'n3';

const { blankNode, quad } = DataFactory;

/**
 * Blank nodes labelled by their order in what is written (`b0`, `b1`, …), not
 * by the process-wide counter that made them (`n3-87`, then `n3-88` for the
 * same node in a later request): the same graph is then the same bytes, as a
 * strong ETag and `immutable` promise. One relabelling per document; a stream
 * keeps it across its chunks.
 */
export class StableBlankNodes {
  private readonly labels = new Map<string, string>();

  relabel(quads: readonly Quad[]): Quad[] {
    return quads.map((each) => {
      const { subject, object, graph } = each;
      if (
        subject.termType !== 'BlankNode' &&
        object.termType !== 'BlankNode' &&
        graph.termType !== 'BlankNode'
      )
        return each;
      return quad(
        this.term(subject) as Quad_Subject,
        each.predicate,
        this.term(object) as Quad_Object,
        this.term(graph) as Quad_Graph,
      );
    });
  }

  private term<Term extends { termType: string; value: string }>(term: Term): Term {
    if (term.termType !== 'BlankNode') return term;
    let label = this.labels.get(term.value);
    if (label === undefined) {
      label = `b${this.labels.size}`;
      this.labels.set(term.value, label);
    }
    return blankNode(label) as unknown as Term;
  }
}
