import type { Quad } from 'n3';
import { betweenBatches } from '../../platform/streams/between-batches.js';
import type { Refdata } from '../context.js';
import { statusesOf, type View } from '../lifecycle/views.js';
import { versionQuads } from '../releases/graph.js';
import { factsOf, type ResourceRow, type RowWithFacts } from '../resources/rows.js';
import { resourceGraph } from './resource-graph.js';
import { RDL_NAMESPACE, rdf, rdfs, skos } from './vocabulary.js';

/** Terms are read this many at a time, so a library of any size streams in bounded memory. */
const BATCH = 500;

/**
 * Terms are handed to the writer this many at a time. A whole batch's quads and
 * the writer's objects for them lived through two young-generation collections
 * and were promoted (about 1 MiB a batch for JSON-LD), so a long export piled
 * garbage into the old generation and raised the server's memory by 100 MiB and
 * more before a full collection; a tenth of a batch dies young.
 */
const TERMS_PER_CHUNK = 50;

export type DetailLevel = 1 | 2 | 3;

/**
 * At level 2 each term (and each value of a picklist, which is a term of its
 * library too) says what it is, its label, library and status, and its links.
 */
function summary(
  quads: readonly Quad[],
  subjects: ReadonlySet<string>,
  statusPredicate: string,
): Quad[] {
  const kept = new Set([
    rdf('type').value,
    skos('prefLabel').value,
    rdfs('label').value,
    rdfs('isDefinedBy').value,
    statusPredicate,
  ]);
  return quads.filter(
    (quad) =>
      subjects.has(quad.subject.value) &&
      (kept.has(quad.predicate.value) || quad.object.termType === 'NamedNode'),
  );
}

async function* termBatches(
  refdata: Refdata,
  libraryIri: string,
  view: View,
): AsyncGenerator<RowWithFacts[]> {
  const statuses = statusesOf(view);
  let after = 0;
  for (;;) {
    const rows = await refdata.store
      .selectWithFacts()
      .where('resource.library_key', '=', libraryIri)
      .$if(statuses !== undefined, (select) =>
        select.where('resource.status', 'in', statuses ?? []),
      )
      .where('resource.id', '>', after)
      .orderBy('resource.id')
      .limit(BATCH)
      .execute();
    if (rows.length === 0) return;
    yield rows;
    after = rows[rows.length - 1]?.id ?? after;
    await betweenBatches();
  }
}

/**
 * A library's RDF at a detail level, as chunks of quads: 1 the ontology alone,
 * 2 also each term's type, label, status and relations (the values an
 * aggregate owns included), 3 every triple of every term. Nothing holds more than one batch.
 */
export async function* libraryChunks(
  refdata: Refdata,
  library: ResourceRow,
  level: DetailLevel,
  view: View,
): AsyncGenerator<Quad[]> {
  const [own, latest] = await Promise.all([
    refdata.store.graphFacts([library]),
    refdata.releases.latest(library.iri),
  ]);
  // The library names its latest release (docs/releases.md).
  yield [...resourceGraph(refdata, library, [], own), ...(latest ? versionQuads(latest) : [])];
  if (level === 1) return;
  const statusPredicate = `${RDL_NAMESPACE}status`;
  for await (const terms of termBatches(refdata, library.iri, view)) {
    const aggregates = terms
      .filter((term) => refdata.families.byKey(term.family)?.aggregate)
      .map((term) => term.iri);
    const values =
      aggregates.length > 0
        ? await refdata.store
            .selectWithFacts()
            .where('resource.parent_iri', 'in', aggregates)
            .orderBy('resource.id')
            .execute()
        : [];
    const justifications = factsOf([...terms, ...values]);
    for (let start = 0; start < terms.length; start += TERMS_PER_CHUNK) {
      const chunk: Quad[] = [];
      for (const term of terms.slice(start, start + TERMS_PER_CHUNK)) {
        const children = values.filter((value) => value.parent_iri === term.iri);
        const quads = resourceGraph(refdata, term, children, justifications);
        chunk.push(
          ...(level === 3
            ? quads
            : summary(
                quads,
                new Set([term.iri, ...children.map((value) => value.iri)]),
                statusPredicate,
              )),
        );
      }
      yield chunk;
    }
  }
}

export async function* single(quads: Quad[]): AsyncGenerator<Quad[]> {
  yield quads;
}
