import type { Static, TObject } from '@sinclair/typebox';
import type { FieldError } from '../../platform/http/problem.js';
import type { Family } from '../families/family.js';
import { conflictProblem, ruleContext } from './lookup.js';
import type { ResourceContext } from './resource-context.js';
import type { NewResource, ResourceRow } from './rows.js';
import {
  checkWrite,
  commonOf,
  contentOf,
  ownedValueChanges,
  refusalErrors,
  refusalProblem,
} from './write-pipeline.js';

/**
 * Writing Drafts, for the API and the authoring forms alike: the write
 * pipeline (write-pipeline.ts) then the store, so a form can refuse nothing
 * the API would accept, nor accept anything it would refuse.
 */

/** A new value of an aggregate written through the API: its IRI is minted as any resource's. */
function mintedValueIri(refdata: ResourceContext) {
  return (_value: unknown, valueBody: Record<string, unknown>, valueFamily: Family<TObject>) =>
    valueFamily.mintIri(valueBody, ruleContext(refdata, undefined));
}

/**
 * Every error a write of `input` would be refused for (as a create, or as an
 * update of `row` by `actor`), without writing: what a form's Check shows.
 */
export async function checkDraft<S extends TObject>(
  refdata: ResourceContext,
  family: Family<S>,
  input: Static<S>,
  row: ResourceRow | undefined,
  actor: string,
): Promise<FieldError[]> {
  const checked = await checkWrite({
    family,
    input,
    stored: row,
    actor,
    context: ruleContext(refdata, row?.iri),
  });
  return checked.ok ? [] : refusalErrors(checked.refusal);
}

/**
 * Creates a Draft from a body, or throws the problem the API answers with
 * (400 `validation` or `domain-rule` with each field's error, 409 `duplicate`).
 */
export async function createDraft<S extends TObject>(
  refdata: ResourceContext,
  family: Family<S>,
  input: Static<S>,
  actor: string,
): Promise<ResourceRow> {
  const context = ruleContext(refdata, undefined);
  const checked = await checkWrite({ family, input, actor, context });
  if (!checked.ok) throw refusalProblem(family, checked.refusal);
  const body = checked.body;
  const iri = await family.mintIri(body, context);
  const owned = (
    await ownedValueChanges(refdata.families, family, body, iri, [], mintedValueIri(refdata))
  )?.create;
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
 * Replaces a Draft's content with a body, if `row` is still its current
 * version; throws as `createDraft` does, 409 `not-draft` for a resource that
 * is no Draft, 403 `not-author` for another's, and 409 `stale-write` when the
 * Draft moved on meanwhile.
 */
export async function updateDraft<S extends TObject>(
  refdata: ResourceContext,
  family: Family<S>,
  row: ResourceRow,
  input: Static<S>,
  actor: string,
): Promise<ResourceRow> {
  const checked = await checkWrite({
    family,
    input,
    stored: row,
    actor,
    context: ruleContext(refdata, row.iri),
  });
  if (!checked.ok) throw refusalProblem(family, checked.refusal);
  const body = checked.body;
  const owned = await ownedValueChanges(
    refdata.families,
    family,
    body,
    row.iri,
    family.aggregate ? await refdata.store.childrenOf(row.iri) : [],
    mintedValueIri(refdata),
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
