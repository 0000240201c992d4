import type { Static, TObject } from '@sinclair/typebox';
import { HttpError, validationProblem } from '../../platform/http/problem.js';
import { bodyErrors } from '../../platform/http/validate.js';
import type { Refdata } from '../context.js';
import { checkMovesAlone } from '../lifecycle/steps.js';
import { problem } from '../problem-codes.js';
import { createDraft } from '../resources/authoring.js';
import { ruleContext } from '../resources/lookup.js';
import type { ResourceRow } from '../resources/rows.js';
import { checkAuthor } from './authorship.js';

/**
 * What a copy of a Rejected resource starts as: its body as rejected (a
 * picklist with its values, new ones), and a justification that says where it
 * comes from unless `changes` gives one.
 */
export async function copiedBody(
  refdata: Refdata,
  row: ResourceRow,
  reason: string | undefined,
): Promise<Record<string, unknown>> {
  const family = refdata.families.byKey(row.family);
  const body = JSON.parse(row.body) as Record<string, unknown>;
  if (family?.aggregate) {
    body[family.aggregate.field] = (await refdata.store.childrenOf(row.iri)).map((child) => {
      const value = JSON.parse(child.body) as Record<string, unknown>;
      return {
        name: value.name,
        description: value.description,
        ...(value.translations === undefined ? {} : { translations: value.translations }),
        ...(value.synonyms === undefined ? {} : { synonyms: value.synonyms }),
      };
    });
  }
  body.changeJustification =
    `Written again after ${row.name} <${row.iri}> was rejected${reason ? `: ${reason}` : ''}`.slice(
      0,
      2000,
    );
  return body;
}

/** The reviewer's reason of a Rejected resource: its last revision's justification. */
export async function rejectionOf(refdata: Refdata, row: ResourceRow): Promise<string | undefined> {
  const revisions = await refdata.store.revisions(row.id);
  return revisions.filter((revision) => revision.action === 'reject').at(-1)?.justification;
}

/**
 * A new Draft from a Rejected resource, by its author, with `changes` over its
 * body. The Rejected resource keeps its IRI and history; its name is free
 * (names of Rejected resources are not held), but an identifier that is the
 * IRI (a symbol's) needs a new value: 409 says so.
 */
export async function copyRejected(
  refdata: Refdata,
  row: ResourceRow,
  actor: string,
  changes: Record<string, unknown>,
): Promise<ResourceRow> {
  const family = refdata.families.byKey(row.family);
  if (!family)
    throw new HttpError(problem(404, 'not-found', `${row.iri} is of no family served here.`));
  checkMovesAlone(refdata, row);
  if (row.status !== 'Rejected')
    throw new HttpError(
      problem(
        409,
        'wrong-state',
        `${row.iri} is ${row.status}; only a Rejected resource is copied into a new Draft.`,
      ),
    );
  checkAuthor(row, actor, 'copy');
  const body = { ...(await copiedBody(refdata, row, await rejectionOf(refdata, row))), ...changes };
  const errors = bodyErrors(family.schema, body);
  if (errors.length > 0) throw new HttpError(validationProblem(errors));
  const typed = body as Static<TObject>;
  if ((await family.mintIri(typed, ruleContext(refdata, undefined))) === row.iri) {
    const fields = Object.keys(family.fixed ?? {}).join(' or ');
    throw new HttpError(
      problem(
        409,
        'duplicate',
        `The copy would have the IRI of the Rejected ${row.iri}, which keeps it; give the copy a new ${fields || 'identifier'}.`,
      ),
    );
  }
  return createDraft(refdata, family, typed, actor);
}
