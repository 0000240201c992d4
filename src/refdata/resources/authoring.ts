import type { Static, TObject } from '@sinclair/typebox';
import { type FieldError, HttpError } from '../../platform/http/problem.js';
import type { Family, RuleContext } from '../families/family.js';
import { ownedValuesOf, ruleErrors } from '../families/rules.js';
import { problem } from '../problem-codes.js';
import { checkAuthor } from '../review/authorship.js';
import { conflictProblem, ruleContext } from './lookup.js';
import type { ResourceContext } from './resource-context.js';
import type { NewResource, OwnedChanges, ResourceContent, ResourceRow } from './rows.js';
import { cleanBody } from './text.js';

/**
 * Writing Drafts, for the API and the authoring forms alike: the same cleaning,
 * completion, rules, IRIs and storage, so a form can refuse nothing the API
 * would accept, nor accept anything it would refuse.
 */

/** The fields every family's schema has (`familySchema`), read from any body. */
export function commonOf(body: object): { name: string; justification: string; replaces?: string } {
  const fields = body as Partial<Record<string, unknown>>;
  return {
    name: String(fields.name),
    justification: String(fields.changeJustification),
    ...(typeof fields.replaces === 'string' ? { replaces: fields.replaces } : {}),
  };
}

/** Why `ontology` is fixed: a term's library is where it was made. */
const FIXED_FOR_EVERY_FAMILY = {
  ontology: 'a term stays in the library it was created in (a new term can replace it)',
};

function fixedFields(family: Family<TObject>): [string, string][] {
  return Object.entries({ ...FIXED_FOR_EVERY_FAMILY, ...family.fixed });
}

/** An update that leaves a fixed field out keeps the stored value. */
function keepFixed<T extends object>(family: Family<TObject>, body: T, stored: object): T {
  const kept: Partial<Record<string, unknown>> = { ...body };
  const before = stored as Partial<Record<string, unknown>>;
  for (const [field] of fixedFields(family)) {
    if (kept[field] === undefined && before[field] !== undefined) kept[field] = before[field];
  }
  return kept as T;
}

function fixedFieldErrors(family: Family<TObject>, body: object, stored: object): FieldError[] {
  const now = body as Partial<Record<string, unknown>>;
  const before = stored as Partial<Record<string, unknown>>;
  return fixedFields(family)
    .filter(([field]) => before[field] !== undefined && now[field] !== before[field])
    .map(([field, why]) => ({
      in: 'body' as const,
      field: `/${field}`,
      detail: `cannot change after create (${why}); it is ${JSON.stringify(before[field])}`,
    }));
}

export async function completed<S extends TObject>(
  family: Family<S>,
  body: Static<S>,
  context: RuleContext,
): Promise<Static<S>> {
  return family.complete ? await family.complete(body, context) : body;
}

function ruleProblem(family: Family<TObject>, errors: FieldError[]): HttpError {
  return new HttpError(
    problem(
      400,
      'domain-rule',
      errors.map((error) => `${error.field} ${error.detail}`).join('; '),
      {
        title: `The ${family.label} breaks a rule`,
        errors: errors.map((error) => ({ ...error, in: 'body' as const })),
      },
    ),
  );
}

/** What is stored for a body: the justification belongs to the revision, the values to their rows. */
export function contentOf<S extends TObject>(family: Family<S>, body: Static<S>): ResourceContent {
  const { changeJustification: _why, ...rest } = body as Partial<Record<string, unknown>>;
  if (family.aggregate) delete rest[family.aggregate.field];
  const common = commonOf(body);
  return {
    name: common.name,
    libraryKey: family.libraryKey(body),
    nameScope: family.nameScope?.(body) ?? '',
    parentIri: family.parentIri?.(body) ?? null,
    replacesIri: common.replaces ?? null,
    body: JSON.parse(JSON.stringify(rest)) as Record<string, unknown>,
  };
}

/** New values and changes to existing ones that an aggregate's body asks for. */
async function ownedChanges<S extends TObject>(
  refdata: ResourceContext,
  family: Family<S>,
  body: Static<S>,
  parentIri: string,
  existing: readonly ResourceRow[],
): Promise<OwnedChanges | undefined> {
  const aggregate = family.aggregate;
  if (!aggregate) return undefined;
  const valueFamily = refdata.families.byKey(aggregate.valueFamily);
  if (!valueFamily) throw new Error(`No family ${aggregate.valueFamily} is served.`);
  const changes: OwnedChanges = { create: [], update: [], remove: [] };
  const kept = new Set<string>();
  for (const value of ownedValuesOf(family, body) ?? []) {
    const valueBody = {
      changeJustification: commonOf(body).justification,
      ...aggregate.valueBody(value, body, parentIri),
    };
    const content = contentOf(valueFamily, valueBody);
    const current =
      value.id === undefined ? undefined : existing.find((row) => row.iri === value.id);
    if (current) {
      kept.add(current.iri);
      changes.update.push({ row: current, content });
    } else {
      const iri = await valueFamily.mintIri(valueBody, ruleContext(refdata, undefined));
      changes.create.push({ iri, family: valueFamily.key, ...content });
    }
  }
  changes.remove = existing.filter((row) => !kept.has(row.iri));
  return changes;
}

/**
 * Every error a write of `input` would be refused for (as a create, or as an
 * update of `row`), without writing: what a form's Check shows.
 */
export async function checkDraft<S extends TObject>(
  refdata: ResourceContext,
  family: Family<S>,
  input: Static<S>,
  row: ResourceRow | undefined,
): Promise<FieldError[]> {
  let cleaned: Static<S>;
  try {
    cleaned = cleanBody(input);
  } catch (error) {
    if (error instanceof HttpError && error.problem.errors) return error.problem.errors;
    throw error;
  }
  const context = ruleContext(refdata, row?.iri);
  if (!row) return ruleErrors(family, await completed(family, cleaned, context), context);
  const stored = JSON.parse(row.body) as Static<S>;
  const body = await completed(family, keepFixed(family, cleaned, stored), context);
  return [
    ...fixedFieldErrors(family, body, await completed(family, stored, context)),
    ...(await ruleErrors(family, body, context)),
  ];
}

/**
 * Creates a Draft from a body that passed the family's schema, or throws the
 * problem the API answers with (400 `validation` or `domain-rule` with each
 * field's error, 409 `duplicate`).
 */
export async function createDraft<S extends TObject>(
  refdata: ResourceContext,
  family: Family<S>,
  input: Static<S>,
  actor: string,
): Promise<ResourceRow> {
  const context = ruleContext(refdata, undefined);
  const body = await completed(family, cleanBody(input), context);
  const errors = await ruleErrors(family, body, context);
  if (errors.length > 0) throw ruleProblem(family, errors);
  const iri = await family.mintIri(body, context);
  const owned = (await ownedChanges(refdata, family, body, iri, []))?.create;
  const resource: NewResource = { iri, family: family.key, ...contentOf(family, body) };
  try {
    return await refdata.store.create(resource, owned, {
      actor,
      justification: commonOf(body).justification,
    });
  } catch (error) {
    throw conflictProblem(error);
  }
}

/**
 * Replaces a Draft's content with a body that passed the family's schema, if
 * `row` is still its current version; throws as `createDraft` does, and 409
 * `stale-write` or `not-draft` when the Draft moved on meanwhile.
 */
export async function updateDraft<S extends TObject>(
  refdata: ResourceContext,
  family: Family<S>,
  row: ResourceRow,
  input: Static<S>,
  actor: string,
): Promise<ResourceRow> {
  if (row.status !== 'Draft') {
    throw new HttpError(
      problem(409, 'not-draft', `${row.iri} is ${row.status}; only a Draft can be changed.`),
    );
  }
  checkAuthor(row, actor, 'change');
  const context = ruleContext(refdata, row.iri);
  const stored = JSON.parse(row.body) as Static<S>;
  const body = await completed(family, keepFixed(family, cleanBody(input), stored), context);
  const errors = [
    ...fixedFieldErrors(family, body, await completed(family, stored, context)),
    ...(await ruleErrors(family, body, context)),
  ];
  if (errors.length > 0) throw ruleProblem(family, errors);
  const owned = await ownedChanges(
    refdata,
    family,
    body,
    row.iri,
    family.aggregate ? await refdata.store.childrenOf(row.iri) : [],
  );
  try {
    return await refdata.store.update(row, contentOf(family, body), owned, {
      actor,
      justification: commonOf(body).justification,
    });
  } catch (error) {
    throw conflictProblem(error);
  }
}
