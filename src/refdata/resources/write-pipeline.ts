import type { Static, TObject } from '@sinclair/typebox';
import { checkBodyText } from '../../platform/http/body-parsers.js';
import { type FieldError, HttpError, type Problem } from '../../platform/http/problem.js';
import { bodyErrors } from '../../platform/http/validate.js';
import type { Family, RuleContext } from '../families/family.js';
import { inWords } from '../families/field-words.js';
import { ownedValuesOf, ruleErrors } from '../families/rules.js';
import { problem } from '../problem-codes.js';
import type { NewResource, OwnedChanges, ResourceContent, ResourceRow } from './rows.js';
import { cleanBody, REFDATA_TEXT_POLICY } from './text.js';

/**
 * The one way a resource's body becomes a write, for the API's create and
 * update, the forms' Check, and the import planner alike:
 *
 *   text → schema → completion → state and author → fixed fields → rules → owned values
 *
 * A Draft's state and author are asked before what its body breaks, so that a
 * change to an Approved resource, or to another's Draft, is answered as such
 * whatever the body says. The import adds only what is its own: the names its
 * batch takes (`moreErrors`), its records that change nothing (`unchanged`),
 * and the IRIs its codes give (`valueIri`).
 */

/** Why a write is refused: its fields (400), or the stored resource's state or author. */
export type WriteRefusal =
  | { kind: 'fields'; code: 'validation' | 'domain-rule'; errors: FieldError[] }
  | { kind: 'resource'; status: 403 | 409; code: 'not-draft' | 'not-author'; message: string };

export type WriteCheck<S extends TObject> =
  | {
      ok: true;
      /** The body as it is stored (cleaned, completed, fixed fields kept). */
      body: Static<S>;
      /** The stored body already; nothing is written (an import's unchanged record). */
      unchanged: boolean;
    }
  | {
      ok: false;
      refusal: WriteRefusal;
      /** The completed body, when the write got that far (an import leaves out rows rules refuse). */
      body?: Static<S>;
    };

export interface WriteRequest<S extends TObject> {
  family: Family<S>;
  /** The body as received. */
  input: unknown;
  /** The resource an update replaces; none for a create. */
  stored?: ResourceRow | undefined;
  actor: string;
  /** What rules look things up in: the store, or an import's batch before the store. */
  context: RuleContext;
  /** Errors only the caller can know of (the names an import's batch takes). */
  moreErrors?: (body: Static<S>) => FieldError[];
  /** Whether the completed body is what is stored already (an import's record that changes nothing). */
  unchanged?: (body: Static<S>) => boolean;
}

/** Why `ontology` is fixed: a term's library is where it was made. */
const FIXED_FOR_EVERY_FAMILY = {
  ontology: 'a term stays in the library it was created in (a new term can replace it)',
};

/** Runs a write through the pipeline without writing: the body to store, or the refusal. */
export async function checkWrite<S extends TObject>(
  request: WriteRequest<S>,
): Promise<WriteCheck<S>> {
  const { family, stored, context } = request;
  const fields = (code: 'validation' | 'domain-rule', errors: FieldError[]) => ({
    ok: false as const,
    refusal: { kind: 'fields' as const, code, errors },
  });
  // Text: control characters, lengths, Unicode form (the API's body parser asks it too).
  try {
    checkBodyText(request.input, REFDATA_TEXT_POLICY);
  } catch (error) {
    if (error instanceof HttpError && error.problem.errors)
      return fields('validation', error.problem.errors);
    throw error;
  }
  // Schema.
  const schemaErrors = bodyErrors(family.schema, request.input);
  if (schemaErrors.length > 0) return fields('validation', schemaErrors);
  // Completion: what the family fills in; an update keeps the fixed fields it leaves out.
  const storedBody = stored ? (JSON.parse(stored.body) as Static<S>) : undefined;
  let body: Static<S>;
  try {
    const cleaned = cleanBody(request.input as Static<S>);
    body = await completed(
      family,
      storedBody ? keepFixed(family, cleaned, storedBody) : cleaned,
      context,
    );
  } catch (error) {
    if (error instanceof HttpError && error.problem.errors)
      return fields('validation', error.problem.errors);
    throw error;
  }
  if (stored && request.unchanged?.(body)) return { ok: true, body, unchanged: true };
  // State and author.
  if (stored) {
    const refusal = resourceRefusal(stored, request.actor);
    if (refusal) return { ok: false, refusal, body };
  }
  // Fixed fields, then the family's rules and the caller's own.
  const errors = [
    ...(storedBody
      ? fixedFieldErrors(family, body, await completed(family, storedBody, context))
      : []),
    ...(await ruleErrors(family, body, context)),
    ...(request.moreErrors?.(body) ?? []),
  ];
  if (errors.length > 0) return { ...fields('domain-rule', errors), body };
  return { ok: true, body, unchanged: false };
}

/** The problem the API answers a refusal with. */
/**
 * A write refused for what its fields say: the problem (each error in words,
 * with its pointer), and the errors as the pipeline gave them, which a form
 * puts beside its fields under their own labels.
 */
export class RefusedFields extends HttpError {
  constructor(
    problem: Problem,
    readonly fields: readonly FieldError[],
  ) {
    super(problem);
  }
}

export function refusalProblem(family: Family<TObject>, refusal: WriteRefusal): HttpError {
  if (refusal.kind === 'resource') {
    return new HttpError(
      problem(
        refusal.status,
        refusal.code,
        refusal.message,
        refusal.code === 'not-author' ? { title: 'Not the author' } : {},
      ),
    );
  }
  // Each message names its field as the form does; the pointer stays for programs.
  const worded = refusal.errors.map((error) => ({
    ...error,
    detail: inWords(family.schema, error),
  }));
  const detail = worded.map((error) => error.detail).join('; ');
  if (refusal.code === 'validation')
    return new RefusedFields(
      problem(400, 'validation', detail, { title: 'Invalid request', errors: worded }),
      refusal.errors,
    );
  return new RefusedFields(
    problem(400, 'domain-rule', detail, {
      title: `The ${family.label} breaks a rule`,
      errors: worded.map((error) => ({ ...error, in: 'body' as const })),
    }),
    refusal.errors,
  );
}

/** A refusal as the errors a form or an import report shows. */
export function refusalErrors(refusal: WriteRefusal): FieldError[] {
  return refusal.kind === 'fields'
    ? refusal.errors
    : [{ in: 'body', field: '', detail: refusal.message }];
}

/** Why the stored resource cannot be changed by `actor`: it is no Draft, or another's. */
export function resourceRefusal(stored: ResourceRow, actor: string): WriteRefusal | undefined {
  if (stored.status !== 'Draft') {
    return {
      kind: 'resource',
      status: 409,
      code: 'not-draft',
      message: `${stored.iri} is ${stored.status}; only a Draft can be changed (propose a change as a new Draft that replaces it).`,
    };
  }
  if (stored.created_by !== actor) {
    return {
      kind: 'resource',
      status: 403,
      code: 'not-author',
      message: `Only its author changes a Draft; ${stored.iri} was written by ${stored.created_by}. Comment on it, or write a Draft of your own.`,
    };
  }
  return undefined;
}

export async function completed<S extends TObject>(
  family: Family<S>,
  body: Static<S>,
  context: RuleContext,
): Promise<Static<S>> {
  return family.complete ? await family.complete(body, context) : body;
}

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

/** The fields every family's schema has (`familySchema`), read from any body. */
export function commonOf(body: object): { name: string; justification: string; replaces?: string } {
  const fields = body as Partial<Record<string, unknown>>;
  return {
    name: String(fields.name),
    justification: String(fields.changeJustification),
    ...(typeof fields.replaces === 'string' ? { replaces: fields.replaces } : {}),
  };
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

/**
 * The last stage: new values and changes to existing ones that an
 * aggregate's body asks for, each new one at the IRI `valueIri` gives it
 * (minted for the API, the code's for an import).
 */
export async function ownedValueChanges<S extends TObject>(
  families: { byKey(key: string): Family<TObject> | undefined },
  family: Family<S>,
  body: Static<S>,
  parentIri: string,
  existing: readonly ResourceRow[],
  valueIri: (
    value: { id?: string },
    valueBody: Record<string, unknown>,
    valueFamily: Family<TObject>,
  ) => string | Promise<string>,
): Promise<OwnedChanges | undefined> {
  const aggregate = family.aggregate;
  if (!aggregate) return undefined;
  const valueFamily = families.byKey(aggregate.valueFamily);
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
      const created: NewResource = {
        iri: await valueIri(value, valueBody, valueFamily),
        family: valueFamily.key,
        ...content,
      };
      changes.create.push(created);
    }
  }
  changes.remove = existing.filter((row) => !kept.has(row.iri));
  return changes;
}
