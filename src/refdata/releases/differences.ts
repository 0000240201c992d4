import { DataFactory, type Quad } from 'n3';
import type { Refdata } from '../context.js';
import { PUBLISHED_STATUSES } from '../lifecycle/views.js';
import { RDL_NAMESPACE, rdf } from '../rdf/vocabulary.js';
import { writableIri } from '../rdf/writable-terms.js';
import { type Change, changesBetween } from '../resources/field-changes.js';
import type { RowWithFacts } from '../resources/rows.js';
import { libraryRows } from './library-rows.js';
import type { ReleaseRow } from './store.js';

const { namedNode, literal, quad, blankNode } = DataFactory;

/** A resource as a difference names it. */
export interface Named {
  iri: string;
  family: string;
  name: string;
}

/** What changed in a library from one side to the other (docs/releases.md). */
export interface Differences {
  library: string;
  from: ReleaseRow;
  /** The later release, or undefined for today's published view. */
  to: ReleaseRow | undefined;
  added: Named[];
  changed: (Named & { fields: Change[] })[];
  /** Each with its replacement and the fields that differ from it (or its own, without one). */
  deprecated: (Named & { replacedBy: string | null; fields: Change[] })[];
  removed: Named[];
}

/** What a side says of a resource: enough to compare it, not its whole row. */
interface Side {
  family: string;
  name: string;
  status: string;
  body: Record<string, unknown>;
  replacedBy: string | null;
}

const named = (iri: string, side: Side): Named => ({ iri, family: side.family, name: side.name });

function sideOf(row: RowWithFacts): Side {
  return {
    family: row.family,
    name: row.name,
    status: row.status,
    body: JSON.parse(row.body) as Record<string, unknown>,
    replacedBy: row.replaced_by,
  };
}

/**
 * The differences from one release to a later one, or to today's published
 * view: resources added, changed (field by field, as the review page shows
 * them), deprecated (with their replacements) and removed. The earlier side is
 * held in memory, the later one read batch by batch against it.
 */
export async function differences(
  refdata: Refdata,
  from: ReleaseRow,
  to: ReleaseRow | undefined,
): Promise<Differences> {
  const earlier = new Map<string, Side>();
  for await (const rows of refdata.releases.allMembers(from.id))
    for (const row of rows) earlier.set(row.iri, sideOf(row));
  const result: Differences = {
    library: from.library_iri,
    from,
    to,
    added: [],
    changed: [],
    deprecated: [],
    removed: [],
  };
  const later = to
    ? refdata.releases.allMembers(to.id)
    : libraryRows(refdata, from.library_iri, PUBLISHED_STATUSES);
  const seen = new Set<string>();
  const addedBodies = new Map<string, Record<string, unknown>>();
  for await (const rows of later) {
    for (const row of rows) {
      seen.add(row.iri);
      const now = sideOf(row);
      const then = earlier.get(row.iri);
      if (!then) {
        result.added.push(named(row.iri, now));
        addedBodies.set(row.iri, now.body);
        continue;
      }
      const fields = changesBetween(then.body, now.body);
      if (now.status === 'Deprecated' && then.status !== 'Deprecated')
        result.deprecated.push({ ...named(row.iri, now), replacedBy: now.replacedBy, fields });
      else if (fields.length > 0) result.changed.push({ ...named(row.iri, now), fields });
    }
  }
  for (const [iri, then] of earlier) if (!seen.has(iri)) result.removed.push(named(iri, then));
  // A published resource changes by being replaced: what differs is between it and its replacement.
  for (const item of result.deprecated) {
    const replacement = item.replacedBy === null ? undefined : addedBodies.get(item.replacedBy);
    const then = earlier.get(item.iri);
    if (replacement && then) item.fields = changesBetween(then.body, replacement);
  }
  return result;
}

/** Differences as a page shows them: every count, and at most `listed` of each kind. */
export interface ChangeSummary {
  counts: { added: number; deprecated: number; changed: number; removed: number };
  added: Named[];
  deprecated: Differences['deprecated'];
  changed: Differences['changed'];
  removed: Named[];
}

export function summarize(result: Differences, listed: number): ChangeSummary {
  return {
    counts: {
      added: result.added.length,
      deprecated: result.deprecated.length,
      changed: result.changed.length,
      removed: result.removed.length,
    },
    added: result.added.slice(0, listed),
    deprecated: result.deprecated.slice(0, listed),
    changed: result.changed.slice(0, listed),
    removed: result.removed.slice(0, listed),
  };
}

/** The differences as JSON. */
export function differencesJson(result: Differences) {
  const side = (release: ReleaseRow | undefined) =>
    release ? { version: release.version, iri: release.iri } : { version: null, iri: null };
  return {
    library: result.library,
    from: side(result.from),
    to: side(result.to),
    counts: {
      added: result.added.length,
      changed: result.changed.length,
      deprecated: result.deprecated.length,
      removed: result.removed.length,
    },
    added: result.added,
    changed: result.changed,
    deprecated: result.deprecated,
    removed: result.removed,
  };
}

/**
 * The differences as RDF: an `rdl:ReleaseDifference` naming both sides and
 * each resource added, changed, deprecated or removed, with an
 * `rdl:FieldChange` for each field that differs.
 */
export function differencesQuads(result: Differences, subjectIri: string): Quad[] {
  const our = (term: string) => namedNode(`${RDL_NAMESPACE}${term}`);
  const subject = namedNode(subjectIri);
  const quads: Quad[] = [
    quad(subject, rdf('type'), our('ReleaseDifference')),
    quad(subject, our('fromRelease'), namedNode(writableIri(result.from.iri))),
  ];
  if (result.to) quads.push(quad(subject, our('toRelease'), namedNode(writableIri(result.to.iri))));
  for (const item of result.added)
    quads.push(quad(subject, our('added'), namedNode(writableIri(item.iri))));
  for (const item of result.removed)
    quads.push(quad(subject, our('removed'), namedNode(writableIri(item.iri))));
  const fieldChanges = (iri: string, fields: readonly Change[]) => {
    for (const field of fields) {
      const node = blankNode();
      quads.push(
        quad(subject, our('fieldChange'), node),
        quad(node, rdf('type'), our('FieldChange')),
        quad(node, our('ofResource'), namedNode(writableIri(iri))),
        quad(node, our('field'), literal(field.pointer)),
      );
      if (field.before !== undefined) quads.push(quad(node, our('before'), literal(field.before)));
      if (field.after !== undefined) quads.push(quad(node, our('after'), literal(field.after)));
    }
  };
  for (const item of result.changed) {
    quads.push(quad(subject, our('changed'), namedNode(writableIri(item.iri))));
    fieldChanges(item.iri, item.fields);
  }
  for (const item of result.deprecated) {
    quads.push(quad(subject, our('deprecated'), namedNode(writableIri(item.iri))));
    fieldChanges(item.iri, item.fields);
  }
  return quads;
}
