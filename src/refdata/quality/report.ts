import { DataFactory, type Quad, Store } from 'n3';
import SHACLValidator from 'rdf-validate-shacl';
import type { Refdata } from '../context.js';
import type { Status } from '../db/tables.js';
import { isLibrary } from '../families/family.js';
import { referencesOf } from '../families/rules.js';
import { PUBLISHED_STATUSES } from '../lifecycle/views.js';
import { resourceGraph } from '../rdf/resource-graph.js';
import { libraryRows } from '../releases/library-rows.js';
import { factsOf, type ResourceRow, type RowWithFacts } from '../resources/rows.js';
import { completeShacl } from '../shacl/assemble.js';
import { parseAsset, SHAPED_PREDICATES } from './rule-shapes.js';
import { PARENT_FIELDS, type RuleId, type Severity } from './rules.js';
import { validateShapes } from './shapes-thread.js';

const { namedNode, quad } = DataFactory;
const SH = 'http://www.w3.org/ns/shacl#';
const RDFS_SUBCLASS = 'http://www.w3.org/2000/01/rdf-schema#subClassOf';
const IMF = 'http://ns.imfid.org/imf#';

/**
 * The grammar's warnings where refdata follows PCA's style on purpose, as
 * docs/shacl.md explains (a property shape without a value target; an
 * attribute type that is a punned property, not a shape on imf:predicate):
 * every IMF type would carry them, so a report leaves them out.
 */
const DELIBERATE_WARNINGS = new Set([
  'sh:property target',
  'The AttributeType does not specify a imf:predicate.',
]);

const TYPES_GRAMMAR = new Store(parseAsset('imf-types-grammar.shacl.ttl'));

/** One thing a report finds. */
export interface Finding {
  severity: Severity;
  rule: RuleId;
  /** The SHACL constraint component that found it (the engine's), or undefined: checked in code. */
  component?: string;
  resource: string;
  name: string;
  status: Status;
  /** Who created it: only its author edits a Draft (pages link the form for them alone). */
  createdBy: string;
  message: string;
}

/** What a report covers: a release candidate, a whole library, or one resource. */
export type QualityScope =
  | { kind: 'release'; library: ResourceRow }
  | { kind: 'library'; library: ResourceRow }
  | { kind: 'resource'; resource: RowWithFacts };

export interface QualityReport {
  scope: QualityScope['kind'];
  /** The library's IRI, or the resource's. */
  subject: string;
  findings: Finding[];
  errors: number;
  warnings: number;
}

/** The resources a scope covers, batch by batch. */
async function* rowsOf(refdata: Refdata, scope: QualityScope): AsyncGenerator<RowWithFacts[]> {
  if (scope.kind === 'resource') {
    const children = refdata.families.byKey(scope.resource.family)?.aggregate
      ? await refdata.store.childrenWithFacts(scope.resource.iri)
      : [];
    yield [scope.resource, ...children];
    return;
  }
  yield* libraryRows(
    refdata,
    scope.library.iri,
    scope.kind === 'release' ? PUBLISHED_STATUSES : undefined,
  );
}

/** Statuses whose references must be published. */
const PUBLISHED = new Set<Status>(PUBLISHED_STATUSES);
/** What a Submitted resource may not name: what will not be published with it. */
const UNDECIDED = new Set<Status>(['Draft', 'Rejected']);

/**
 * A quality report (docs/releases.md): PCA's hosting rules run as SHACL shapes
 * with rdf-validate-shacl, language tags, what a resource names (its status,
 * and the library it lives in, which its library must import), the IMF
 * authors' types grammar on IMF types, and for a release the library's own
 * status. Findings come in the order of the resources, each resource's in
 * the order of the rules.
 */
export async function qualityReport(refdata: Refdata, scope: QualityScope): Promise<QualityReport> {
  const findings: Finding[] = [];
  const library = scope.kind === 'resource' ? undefined : scope.library;
  if (scope.kind === 'release' && scope.library.status !== 'Approved')
    findings.push(
      finding(
        scope.library,
        'library-approved',
        'error',
        `is ${scope.library.status}: a library is released once it is itself Approved`,
      ),
    );
  /** Libraries the terms name resources of, with one term that does. */
  const namedLibraries = new Map<string, string>();
  // The shapes run in their own thread, a batch behind: while they run over one
  // batch, this thread reads the next and checks what is checked in code.
  let previous: { rows: RowWithFacts[]; found: Finding[]; shapes: Promise<Finding[]> } | undefined;
  const settle = async () => {
    if (!previous) return;
    const { rows, found, shapes } = previous;
    previous = undefined;
    const all = [...(await shapes), ...found];
    const order = new Map(rows.map((row, index) => [row.iri, index]));
    all.sort((a, b) => (order.get(a.resource) ?? 0) - (order.get(b.resource) ?? 0));
    findings.push(...all);
  };
  for await (const rows of rowsOf(refdata, scope)) {
    const byIri = new Map(rows.map((row) => [row.iri, row]));
    const facts = factsOf(rows);
    const graphs = new Map(rows.map((row) => [row.iri, resourceGraph(refdata, row, [], facts)]));
    const shapes = shapeFindings(
      byIri,
      [...graphs.values()].flat().filter((item) => SHAPED_PREDICATES.has(item.predicate.value)),
    );
    // Not awaited until its batch is settled: a failure is then taken up there.
    shapes.catch(() => undefined);
    await settle();
    const found: Finding[] = [
      ...languageFindings(byIri, graphs),
      ...(await referenceFindings(refdata, library?.iri, rows, namedLibraries)),
      ...(await grammarFindings(refdata, rows)),
    ];
    previous = { rows, found, shapes };
  }
  await settle();
  if (library) findings.push(...importFindings(library, namedLibraries));
  const errors = findings.filter((item) => item.severity === 'error').length;
  return {
    scope: scope.kind,
    subject: scope.kind === 'resource' ? scope.resource.iri : scope.library.iri,
    findings,
    errors,
    warnings: findings.length - errors,
  };
}

function finding(
  row: Pick<ResourceRow, 'iri' | 'name' | 'status' | 'created_by'>,
  rule: RuleId,
  severity: Severity,
  message: string,
): Finding {
  return {
    severity,
    rule,
    resource: row.iri,
    name: row.name,
    status: row.status,
    createdBy: row.created_by,
    message,
  };
}

/** PCA's hosting rules that SHACL says, over the resources' own triples. */
async function shapeFindings(
  byIri: ReadonlyMap<string, RowWithFacts>,
  quads: Quad[],
): Promise<Finding[]> {
  const findings: Finding[] = [];
  for (const result of await validateShapes(quads)) {
    const row = byIri.get(result.focus);
    if (!row) continue;
    const { rule, component } = result;
    // A library is defined by itself, and a resource of no library (a symbol may be
    // one) has none to name.
    if (rule === 'pca-defined-by' && (isLibrary(row) || row.library_key === '')) continue;
    const message = result.message ?? `breaks ${rule}`;
    findings.push({
      ...finding(row, rule, result.violation ? 'error' : 'warning', message),
      ...(component ? { component } : {}),
    });
  }
  return findings;
}

/** Whether a language tag is well-formed BCP 47, as ECMA-402 reads one. */
export function validLanguageTag(tag: string): boolean {
  try {
    return Intl.getCanonicalLocales(tag).length === 1;
  } catch {
    return false;
  }
}

function languageFindings(
  byIri: ReadonlyMap<string, RowWithFacts>,
  graphs: ReadonlyMap<string, Quad[]>,
): Finding[] {
  const findings: Finding[] = [];
  for (const [iri, quads] of graphs) {
    const bad = new Set(
      quads
        .map((item) => (item.object.termType === 'Literal' ? item.object.language : ''))
        .filter((tag) => tag !== '' && !validLanguageTag(tag)),
    );
    const row = byIri.get(iri);
    for (const tag of bad)
      if (row)
        findings.push(
          finding(
            row,
            'pca-language-tag',
            'error',
            `has text tagged "${tag}", which is not a BCP 47 language tag (such as en, nb or pt-BR): correct the tag`,
          ),
        );
  }
  return findings;
}

/**
 * What each resource names, looked up in one query per batch: a published (or
 * Submitted) resource naming one that will not be published, anything naming a
 * Deprecated resource (other than the one it replaces), and the libraries the
 * named resources live in.
 */
async function referenceFindings(
  refdata: Refdata,
  libraryIri: string | undefined,
  rows: readonly RowWithFacts[],
  namedLibraries: Map<string, string>,
): Promise<Finding[]> {
  const named = rows.map((row) => {
    const family = refdata.families.byKey(row.family);
    const body = JSON.parse(row.body) as object;
    const references = family
      ? referencesOf(family, body).filter(
          // Its library, what it replaces and its own aggregate (a value's picklist,
          // which its values follow into deprecation) are not what it names.
          ({ pointer, iri }) =>
            pointer !== '/ontology' &&
            pointer !== '/replaces' &&
            iri !== row.iri &&
            iri !== row.parent_iri,
        )
      : [];
    return { row, references };
  });
  const wanted = [...new Set(named.flatMap(({ references }) => references.map(({ iri }) => iri)))];
  const stored = new Map(
    (await refdata.store.findMany(wanted)).map((target) => [target.iri, target]),
  );
  const findings: Finding[] = [];
  for (const { row, references } of named) {
    for (const { pointer, iri } of references) {
      const target = stored.get(iri);
      if (!target) continue;
      // The library it lives in (a value lives in its picklist's, which names it itself).
      const where = isLibrary(target)
        ? target.iri
        : target.parent_iri === null
          ? target.library_key
          : undefined;
      if (where && where !== libraryIri && !isLibrary(row) && !namedLibraries.has(where))
        namedLibraries.set(where, row.name);
      const what = `${target.name} (${target.iri}, a ${refdata.families.labelOf(target.family)})`;
      const blocking =
        (PUBLISHED.has(row.status) &&
          !PUBLISHED.has(target.status) &&
          target.status !== 'ExternallyManaged') ||
        (row.status === 'Submitted' && UNDECIDED.has(target.status));
      if (blocking) {
        findings.push(
          finding(
            row,
            'reference-unpublished',
            'error',
            `names ${what} at ${pointer}, which is ${target.status}: ${
              target.status === 'Rejected'
                ? 'name another resource'
                : 'have it approved with this one, or name another'
            }`,
          ),
        );
      } else if (target.status === 'Deprecated' && row.status !== 'Deprecated') {
        const parent = PARENT_FIELDS.some((field) => pointer.startsWith(field));
        findings.push(
          finding(
            row,
            parent ? 'parent-deprecated' : 'reference-deprecated',
            'warning',
            `names ${what} at ${pointer}, which is Deprecated: name its replacement instead`,
          ),
        );
      }
    }
  }
  return findings;
}

/** Each library the terms name resources of that the library does not import. */
function importFindings(library: ResourceRow, named: ReadonlyMap<string, string>): Finding[] {
  const body = JSON.parse(library.body) as { upperOntologies?: string[] };
  const imported = new Set(body.upperOntologies ?? []);
  return [...named]
    .filter(([iri]) => iri !== library.iri && !imported.has(iri))
    .map(([iri, term]) =>
      finding(
        library,
        'pca-imports',
        'warning',
        `does not import ${iri} (owl:imports), whose resources its terms name (${term}, for one): add it to the library's upper ontologies`,
      ),
    );
}

/**
 * What the IMF authors' types grammar says of a type's complete SHACL, each
 * finding once: its violations as errors, its warnings but those where
 * refdata follows PCA on purpose. Its \`TypeShape\` targets \`imf:Type\`, which
 * IMF 0.3.0 no longer declares, so the data says the types are its
 * subclasses; its imports (the terms grammar, a SPARQL constraint, and
 * SHACL's shapes for shapes) are not run here.
 */
export async function typesGrammarFindings(
  shacl: readonly Quad[],
): Promise<{ severity: Severity; message: string }[]> {
  const data = new Store([...shacl]);
  for (const kind of ['BlockType', 'TerminalType'])
    data.addQuad(quad(namedNode(IMF + kind), namedNode(RDFS_SUBCLASS), namedNode(`${IMF}Type`)));
  const validator = new SHACLValidator(TYPES_GRAMMAR, { importGraph: () => new Store() });
  const report = await validator.validate(data);
  const found = new Map<string, { severity: Severity; message: string }>();
  for (const result of report.results) {
    const text = (predicate: string) =>
      result.sourceShape
        ? (TYPES_GRAMMAR.getObjects(result.sourceShape, `${SH}${predicate}`, null)[0]?.value ?? '')
        : '';
    const message = text('message') || result.message[0]?.value || text('name');
    const severity: Severity = result.severity?.value === `${SH}Violation` ? 'error' : 'warning';
    if (
      severity === 'warning' &&
      (DELIBERATE_WARNINGS.has(text('name')) || DELIBERATE_WARNINGS.has(message))
    )
      continue;
    found.set(`${severity} ${message}`, { severity, message });
  }
  return [...found.values()];
}

/** The types grammar over each IMF type's complete SHACL. */
async function grammarFindings(
  refdata: Refdata,
  rows: readonly RowWithFacts[],
): Promise<Finding[]> {
  const findings: Finding[] = [];
  for (const row of rows) {
    if (!refdata.families.byKey(row.family)?.hasShacl) continue;
    for (const { severity, message } of await typesGrammarFindings(
      await completeShacl(refdata, row),
    ))
      findings.push(finding(row, 'imf-types-grammar', severity, `IMF types grammar: ${message}`));
  }
  return findings;
}
