import type { TObject } from '@sinclair/typebox';
import type { FieldError } from '../../platform/http/problem.js';
import type { Family, ReferencedResource, RuleContext } from '../families/family.js';
import { inWords } from '../families/field-words.js';
import { ruleErrors } from '../families/rules.js';
import { ruleContext } from '../resources/lookup.js';
import type { ResourceContext } from '../resources/resource-context.js';
import {
  normalizedName,
  type OwnedChanges,
  type ResourceRow,
  type WriteStep,
} from '../resources/rows.js';
import {
  checkWrite,
  contentOf,
  ownedValueChanges,
  refusalErrors,
} from '../resources/write-pipeline.js';
import type { RefusedRecord } from './cfihos-mapping.js';
import {
  FAMILY_ORDER,
  type ImportItem,
  type ImportPart,
  type SourcePlace,
} from './import-items.js';

export const OUTCOMES = ['created', 'updated', 'unchanged', 'refused'] as const;
export type Outcome = (typeof OUTCOMES)[number];

/**
 * One line of an import's report: a record, what became of it, and why. A
 * record that makes a resource is a `resource` line; one folded into a
 * resource (a class's property row) is a `row` line and shares its resource's
 * outcome unless it was refused on its own.
 */
export interface ReportEntry {
  source: string;
  line: number;
  column: number | null;
  kind: 'resource' | 'row';
  family: string;
  iri: string;
  name: string;
  outcome: Outcome;
  messages: string[];
  /** Columns the record fills that the model has no place for. */
  notKept: string[];
}

export type Counts = Record<Outcome, number>;

/** A plan: the report, and the writes that carry it out, in the order they can be made. */
export interface ImportPlan {
  entries: ReportEntry[];
  steps: WriteStep[];
  counts: Counts;
}

/** The summary figures: resources by outcome, and every refused line. */
export function countsOf(entries: readonly ReportEntry[]): Counts {
  const counts: Counts = { created: 0, updated: 0, unchanged: 0, refused: 0 };
  for (const entry of entries) {
    if (entry.kind === 'resource' || entry.outcome === 'refused') counts[entry.outcome] += 1;
  }
  return counts;
}

/** JSON with its keys in order, so that two equal bodies compare equal. */
function canonical(value: unknown): string {
  return JSON.stringify(value, (_key, inner: unknown) =>
    inner !== null && typeof inner === 'object' && !Array.isArray(inner)
      ? Object.fromEntries(Object.entries(inner).sort(([a], [b]) => (a < b ? -1 : 1)))
      : inner,
  );
}

interface Options {
  justification: string;
  /** Who imports: a stored Draft is changed only by its author (docs/review.md). */
  author: string;
  /** Told after each resource is checked (an import's progress). */
  checked?: () => Promise<void>;
}

/**
 * What importing `items` into the store would do, checked by the same schema
 * and rules a write through the API is, each resource seeing the ones before
 * it as if they were stored. Nothing is written.
 */
export async function planImport(
  refdata: ResourceContext,
  items: readonly ImportItem[],
  refusedRecords: readonly RefusedRecord[],
  options: Options,
): Promise<ImportPlan> {
  const planner = new Planner(refdata, options);
  await planner.prefetch(items);
  for (const record of refusedRecords) planner.refuseRecord(record);
  for (const item of ordered(items)) {
    await planner.plan(item);
    await options.checked?.();
  }
  return planner.result();
}

/** Families in `FAMILY_ORDER`; equipment classes before tag classes (which name them); parents first. */
export function ordered(items: readonly ImportItem[]): ImportItem[] {
  const byIri = new Map(items.map((item) => [item.iri, item]));
  const depth = new Map<string, number>();
  const depthOf = (item: ImportItem, seen = new Set<string>()): number => {
    const known = depth.get(item.iri);
    if (known !== undefined) return known;
    const parentIri = item.body.superEntity as string | undefined;
    const parent = parentIri === undefined ? undefined : byIri.get(parentIri);
    const value = parent && !seen.has(parent.iri) ? depthOf(parent, seen.add(item.iri)) + 1 : 0;
    depth.set(item.iri, value);
    return value;
  };
  const rank = (item: ImportItem) => {
    const family = FAMILY_ORDER.indexOf(item.family);
    return [
      family === -1 ? FAMILY_ORDER.length : family,
      item.body.entityType === 'tag' ? 1 : 0,
      depthOf(item),
    ];
  };
  const ranks = new Map(items.map((item) => [item.iri, rank(item)]));
  return [...items].sort((a, b) => {
    const [x, y] = [ranks.get(a.iri) ?? [], ranks.get(b.iri) ?? []];
    for (let index = 0; index < x.length; index += 1) {
      const difference = (x[index] ?? 0) - (y[index] ?? 0);
      if (difference !== 0) return difference;
    }
    return 0;
  });
}

function place(
  from: SourcePlace,
  column?: number,
): Pick<ReportEntry, 'source' | 'line' | 'column'> {
  return { source: from.source, line: from.line, column: column ?? from.column ?? null };
}

class Planner {
  private readonly entries: ReportEntry[] = [];
  private readonly steps: WriteStep[] = [];
  /** What the items planned so far will be, as rules see stored resources. */
  private readonly planned = new Map<string, ReferencedResource>();
  /** Items refused that are not stored (nothing may refer to them), and where. */
  private readonly refusedNew = new Map<string, SourcePlace>();
  private readonly stored = new Map<string, ResourceRow>();
  private readonly storedValues = new Map<string, ResourceRow[]>();
  /** Names taken, by family, library, scope and name: the IRI that holds each. */
  private readonly names = new Map<string, string>();
  private readonly base: RuleContext;

  constructor(
    private readonly refdata: ResourceContext,
    private readonly options: Options,
  ) {
    this.base = ruleContext(refdata, undefined);
  }

  /** The stored rows the items and their values are compared with, read in a few queries. */
  async prefetch(items: readonly ImportItem[]): Promise<void> {
    const iris = items.flatMap((item) => [
      item.iri,
      ...item.parts.flatMap((part) => (part.iri ? [part.iri] : [])),
    ]);
    for (const row of await this.refdata.store.findMany(iris)) this.stored.set(row.iri, row);
    const libraries = new Set(items.map((item) => String(item.body.ontology)));
    for (const library of libraries) {
      for (const row of await this.refdata.store.libraryContents(library)) {
        // A Rejected resource holds no name (docs/review.md).
        if (row.status !== 'Rejected')
          this.names.set(nameKey(row.family, row.library_key, row.name_scope, row.name), row.iri);
        if (row.parent_iri !== null) {
          const values = this.storedValues.get(row.parent_iri) ?? [];
          values.push(row);
          this.storedValues.set(row.parent_iri, values);
        }
      }
    }
  }

  result(): ImportPlan {
    const entries = [...this.entries].sort((a, b) =>
      a.source < b.source ? -1 : a.source > b.source ? 1 : a.line - b.line,
    );
    return { entries, steps: this.steps, counts: countsOf(entries) };
  }

  refuseRecord(record: RefusedRecord): void {
    this.entries.push({
      ...place(record.from, record.problems[0]?.column),
      kind: 'row',
      family: record.family,
      iri: record.iri,
      name: record.name,
      outcome: 'refused',
      messages: record.problems.map((problem) => problem.message),
      notKept: [],
    });
  }

  private context(self: string): RuleContext {
    return {
      ...this.base,
      self,
      find: async (iri) => {
        const planned = this.planned.get(iri);
        if (planned) return planned;
        if (this.refusedNew.has(iri)) return undefined;
        const row = this.stored.get(iri);
        if (row) return referenced(row);
        return this.base.find(iri);
      },
    };
  }

  private entry(
    item: ImportItem,
    outcome: Outcome,
    messages: string[] = [],
    column?: number,
  ): ReportEntry {
    return {
      ...place(item.from, column),
      kind: 'resource',
      family: item.family,
      iri: item.iri,
      name: item.name,
      outcome,
      messages,
      notKept: item.notKept,
    };
  }

  private partEntry(
    item: ImportItem,
    part: ImportPart,
    outcome: Outcome,
    messages: string[] = [],
    column?: number,
  ): ReportEntry {
    const value = part.value as { name?: unknown };
    return {
      ...place(part.from, column),
      kind: part.iri === undefined ? 'row' : 'resource',
      family: part.family ?? item.family,
      iri: part.iri ?? item.iri,
      name: part.iri === undefined ? item.name : String(value.name ?? ''),
      outcome,
      messages,
      notKept: part.notKept,
    };
  }

  private refuse(
    item: ImportItem,
    messages: string[],
    column: number | undefined,
    parts: readonly ImportPart[] = item.parts,
  ): void {
    if (!this.stored.has(item.iri)) this.refusedNew.set(item.iri, item.from);
    this.entries.push(this.entry(item, 'refused', messages, column));
    for (const part of parts) {
      this.entries.push(
        this.partEntry(item, part, 'refused', [
          `belongs to ${item.name || item.iri}, which was refused`,
        ]),
      );
    }
  }

  async plan(item: ImportItem): Promise<void> {
    const family = this.refdata.families.byKey(item.family);
    if (!family) throw new Error(`No family ${item.family} is served.`);
    if (item.problems.length > 0) {
      this.refuse(
        item,
        item.problems.map((problem) => problem.message),
        item.problems[0]?.column,
      );
      return;
    }
    if (item.givenIri && !this.stored.has(item.iri)) {
      this.refuse(
        item,
        [
          `names ${item.iri} in its code column, which is no resource of this library; a new resource needs a code, from which its IRI is made`,
        ],
        undefined,
      );
      return;
    }
    const parts = item.parts.filter((part) => {
      const why = part.duplicateOf
        ? `repeats ${part.duplicateOf.source} line ${part.duplicateOf.line}`
        : (part.problems[0]?.message ?? this.elsewhere(part, item));
      if (why === undefined) return true;
      this.entries.push(
        this.partEntry(item, part, 'refused', [why], part.problems[0]?.column ?? part.column),
      );
      return false;
    });
    const context = this.context(item.iri);
    const stored = this.stored.get(item.iri);
    // Values are seen as the picklist's own before its rules ask about them.
    for (const part of parts) {
      if (part.iri !== undefined && !this.stored.has(part.iri))
        this.planned.set(part.iri, {
          iri: part.iri,
          family: part.family ?? '',
          status: 'Draft',
          body: part.value as Record<string, unknown>,
          parentIri: item.iri,
        });
    }
    // Parts a rule refuses are left out and the resource checked again without
    // them; each round leaves one out at least, so it ends.
    for (;;) {
      const { body, errors, unchanged } = await this.check(family, item, parts, context, stored);
      const whole = errors.filter((error) => !partOf(error, parts));
      if (errors.length > 0 && whole.length === 0) {
        for (const [part, messages] of this.partErrors(family, errors, parts)) {
          // A row naming a refused resource says where that one was refused.
          const named = part.names === undefined ? undefined : this.refusedNew.get(part.names);
          const why = named
            ? [...messages, `${part.names} was refused at ${named.source} line ${named.line}`]
            : messages;
          this.entries.push(this.partEntry(item, part, 'refused', why, part.column));
          parts.splice(parts.indexOf(part), 1);
          if (part.iri !== undefined) this.planned.delete(part.iri);
        }
        continue;
      }
      if (errors.length > 0) {
        for (const part of parts) if (part.iri !== undefined) this.planned.delete(part.iri);
        this.refuse(
          item,
          errors.map((error) => inWords(family.schema, error)),
          item.columns[topField(errors[0])],
          parts,
        );
        return;
      }
      await this.settle(family, item, parts, body, stored, unchanged === true);
      return;
    }
  }

  /** Why a value cannot be one of `item`'s: it is another aggregate's, stored or in this import. */
  private elsewhere(part: ImportPart, item: ImportItem): string | undefined {
    if (part.iri === undefined) return undefined;
    const owner = this.stored.get(part.iri)?.parent_iri ?? this.planned.get(part.iri)?.parentIri;
    return owner !== undefined && owner !== null && owner !== item.iri
      ? `has the code of a value of ${owner}; a value stays with its picklist`
      : undefined;
  }

  /**
   * The errors of `item` with `parts` folded in, and its body as it would be
   * stored: the write pipeline's, with the names this import's batch takes.
   */
  private async check(
    family: Family<TObject>,
    item: ImportItem,
    parts: readonly ImportPart[],
    context: RuleContext,
    stored: ResourceRow | undefined,
  ): Promise<{ body: Record<string, unknown>; errors: FieldError[]; unchanged?: boolean }> {
    const input: Record<string, unknown> = {
      changeJustification: this.options.justification,
      ...(stored ? keptFrom(stored, item.body) : {}),
      ...item.body,
    };
    for (const part of parts) {
      const list = (input[part.field] as unknown[] | undefined) ?? [];
      input[part.field] = [...list, part.value];
    }
    // A code names one resource: a stored one of another family is not this record's.
    if (stored && stored.family !== family.key) {
      const detail = `the IRI ${stored.iri} is a stored ${this.refdata.families.labelOf(stored.family)}`;
      return { body: input, errors: [{ in: 'body', field: '', detail }] };
    }
    const checked = await checkWrite({
      family,
      input,
      stored,
      actor: this.options.author,
      context,
      moreErrors: (body) => this.nameErrors(family, item, body),
      ...(stored
        ? { unchanged: (body: Record<string, unknown>) => this.unchanged(family, stored, body) }
        : {}),
    });
    if (checked.ok) return { body: checked.body, errors: [], unchanged: checked.unchanged };
    const body = (checked.body ?? input) as Record<string, unknown>;
    if (checked.refusal.kind === 'resource' && checked.body) {
      // A row a rule refuses (one naming a refused property, say) is left out
      // first, as for a new resource: without it, the record may be what is
      // stored, and unchanged must read as unchanged whoever imports it.
      const partErrors = (await ruleErrors(family, checked.body, context)).filter((error) =>
        partOf(error, parts),
      );
      if (partErrors.length > 0) return { body, errors: partErrors };
    }
    return { body, errors: refusalErrors(checked.refusal) };
  }

  /** Whether `stored` holds `body` already, its values too. */
  private unchanged(
    family: Family<TObject>,
    stored: ResourceRow,
    body: Record<string, unknown>,
  ): boolean {
    const content = contentOf(family, body);
    if (
      content.name.trim() !== stored.name ||
      canonical(content.body) !== canonical(JSON.parse(stored.body)) ||
      content.replacesIri !== stored.replaces_iri
    )
      return false;
    const field = family.aggregate?.field;
    if (field === undefined) return true;
    const listed = (body[field] as { id?: string; name: string; description: string }[]) ?? [];
    const values = this.storedValues.get(stored.iri) ?? [];
    if (listed.length !== values.length) return false;
    const byIri = new Map(values.map((value) => [value.iri, value]));
    return listed.every((value) => {
      const row = value.id === undefined ? undefined : byIri.get(value.id);
      if (!row) return false;
      const storedBody = JSON.parse(row.body) as { description?: string };
      return row.name === value.name.trim() && storedBody.description === value.description;
    });
  }

  /** A name another resource of the import, or of the library, holds already. */
  private nameErrors(
    family: Family<TObject>,
    item: ImportItem,
    body: Record<string, unknown>,
  ): FieldError[] {
    const key = nameKey(
      family.key,
      family.libraryKey(body),
      family.nameScope?.(body) ?? '',
      String(body.name),
    );
    const holder = this.names.get(key);
    return holder !== undefined && holder !== item.iri
      ? [
          {
            in: 'body',
            field: '/name',
            detail: `is the name of another ${family.label} in this library (${holder})`,
          },
        ]
      : [];
  }

  /** Errors that point into a part's entry, by part. */
  private partErrors(
    family: Family<TObject>,
    errors: readonly FieldError[],
    parts: readonly ImportPart[],
  ): Map<ImportPart, string[]> {
    const found = new Map<ImportPart, string[]>();
    for (const error of errors) {
      const part = partOf(error, parts);
      if (!part) continue;
      const messages = found.get(part) ?? [];
      messages.push(inWords(family.schema, error));
      found.set(part, messages);
    }
    return found;
  }

  /** The item passed: its outcome, its write, and what later items see of it. */
  private async settle(
    family: Family<TObject>,
    item: ImportItem,
    parts: readonly ImportPart[],
    body: Record<string, unknown>,
    stored: ResourceRow | undefined,
    unchanged: boolean,
  ): Promise<void> {
    const content = contentOf(family, body);
    const outcome: Outcome = !stored ? 'created' : unchanged ? 'unchanged' : 'updated';
    this.planned.set(item.iri, {
      iri: item.iri,
      family: family.key,
      status: stored?.status ?? 'Draft',
      body,
      parentIri: content.parentIri,
    });
    this.names.set(
      nameKey(family.key, content.libraryKey, content.nameScope, content.name),
      item.iri,
    );
    this.entries.push(this.entry(item, outcome));
    const owned = await this.ownedChanges(family, item, body, stored);
    for (const part of parts) {
      let partOutcome = outcome;
      if (part.iri !== undefined) {
        const value = this.stored.get(part.iri);
        const now = part.value as { name: string; description: string };
        partOutcome = !value
          ? 'created'
          : value.name === now.name.trim() &&
              (JSON.parse(value.body) as { description?: string }).description === now.description
            ? 'unchanged'
            : 'updated';
      }
      this.entries.push(this.partEntry(item, part, partOutcome));
    }
    if (outcome === 'created')
      this.steps.push({
        kind: 'create',
        resource: { iri: item.iri, family: family.key, ...content },
        owned: owned?.create,
      });
    else if (outcome === 'updated' && stored)
      this.steps.push({ kind: 'update', row: stored, content, owned });
  }

  /** An aggregate's values as the store writes them, each with the IRI its code gives it. */
  private ownedChanges(
    family: Family<TObject>,
    item: ImportItem,
    body: Record<string, unknown>,
    stored: ResourceRow | undefined,
  ): Promise<OwnedChanges | undefined> {
    const existing = stored ? (this.storedValues.get(stored.iri) ?? []) : [];
    return ownedValueChanges(this.refdata.families, family, body, item.iri, existing, (value) => {
      if (value.id === undefined) throw new Error(`A value of ${item.iri} has no code.`);
      return value.id;
    });
  }
}

/** The body's top-level field an error points at ('/range' of '/range' or '/types/0'). */
function topField(error: FieldError | undefined): string {
  return error === undefined ? '' : `/${error.field.split('/')[1] ?? ''}`;
}

/** The part whose entry an error points into (`/propertyReferences/3/...` is the fourth of that list). */
function partOf(error: FieldError, parts: readonly ImportPart[]): ImportPart | undefined {
  const [, field, index] = error.field.split('/');
  if (field === undefined || index === undefined || !/^\d+$/.test(index)) return undefined;
  return parts.filter((part) => part.field === field)[Number(index)];
}

/** Fields no table has a column for: an import keeps what a stored resource has of them. */
const KEPT_FIELDS = ['packageName', 'replaces', 'relatedTerms', 'definitionSources'] as const;

/** What `stored` has of `KEPT_FIELDS` that the imported body does not give. */
function keptFrom(stored: ResourceRow, body: Record<string, unknown>): Record<string, unknown> {
  const before = JSON.parse(stored.body) as Record<string, unknown>;
  return Object.fromEntries(
    KEPT_FIELDS.filter((field) => before[field] !== undefined && body[field] === undefined).map(
      (field) => [field, before[field]],
    ),
  );
}

function nameKey(family: string, library: string, scope: string, name: string): string {
  return JSON.stringify([family, library, scope, normalizedName(name)]);
}

function referenced(row: ResourceRow): ReferencedResource {
  return {
    iri: row.iri,
    family: row.family,
    status: row.status,
    body: JSON.parse(row.body) as Record<string, unknown>,
    parentIri: row.parent_iri,
  };
}
