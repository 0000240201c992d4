import type { Refdata } from '../../context.js';
import type { RefersTo } from '../../families/common.js';
import { isAbsoluteIri } from '../../families/common.js';
import { normalizedName } from '../../resources/rows.js';
import { pageHref } from '../links.js';
import {
  type Draft,
  type FieldSchema,
  type FormFields,
  referencesIn,
  setDraftValue,
} from './form-model.js';

/** What a reference field shows for the IRI it holds. */
export interface PickedResource {
  iri: string;
  name: string;
  family: string;
  status: string;
  library: string | undefined;
}

/** A reference the form could not settle from what was typed, and what it might mean. */
export interface OpenPick {
  typed: string;
  message: string;
  options: PickedResource[];
}

/** Form field names beside a reference's own (which holds the IRI). */
export const PICK_TEXT = 'pick:';
export const PICK_CHOICE = 'choose:';

/** How many suggestions a reference offers. */
const SUGGESTIONS = 8;

export function familiesOf(refersTo: RefersTo, ownFamily: string): string[] {
  return refersTo.families.map((family) => (family === 'same-family' ? ownFamily : family));
}

/** Names, families and statuses of the resources behind `iris` (those stored here). */
export async function pickedResources(
  refdata: Refdata,
  iris: readonly string[],
): Promise<Map<string, PickedResource>> {
  const wanted = [...new Set(iris.filter((iri) => iri !== '' && iri.length <= 2048))];
  if (wanted.length === 0) return new Map();
  const rows = await refdata.store.namedWithLibrary(wanted);
  return new Map(
    rows.map((row) => [
      row.iri,
      {
        iri: row.iri,
        name: row.name,
        family: row.family,
        status: row.status,
        library: row.library ?? undefined,
      },
    ]),
  );
}

/** Resources of `families` matching `text`, best first. */
export async function suggestions(
  refdata: Refdata,
  families: readonly string[],
  text: string,
): Promise<PickedResource[]> {
  if (!refdata.search.available) return [];
  const { hits } = await refdata.search.search({
    q: text,
    families,
    libraries: [],
    statuses: [],
    limit: SUGGESTIONS,
    after: undefined,
  });
  return hits.map(({ row, library }) => ({
    iri: row.iri,
    name: row.name,
    family: row.family,
    status: row.status,
    library: library?.label,
  }));
}

/**
 * Settles each reference of a submitted form: a choice among suggestions, the
 * resource named by what was typed (its exact name, or its IRI), the IRI kept
 * when its shown name was left alone, or nothing when the box was emptied. A
 * name that does not settle on one resource leaves the field open, with why and
 * what it might mean, and the form is shown again rather than saved.
 */
export async function settleReferences(
  refdata: Refdata,
  schema: FieldSchema,
  draft: Draft,
  fields: FormFields,
  ownFamily: string,
): Promise<Map<string, OpenPick>> {
  const open = new Map<string, OpenPick>();
  const references = referencesIn(schema, draft);
  const shown = await pickedResources(
    refdata,
    references.map((reference) => reference.value),
  );
  for (const { pointer, refersTo, value } of references) {
    const chosen = fields.get(`${PICK_CHOICE}${pointer}`);
    const typed = fields.get(`${PICK_TEXT}${pointer}`)?.trim();
    if (chosen) {
      setDraftValue(draft, pointer, chosen);
      continue;
    }
    if (typed === undefined) continue;
    if (typed === '') {
      setDraftValue(draft, pointer, '');
      continue;
    }
    const current = shown.get(value);
    if (value !== '' && (typed === value || (current && sameName(current.name, typed)))) continue;
    if (isAbsoluteIri(typed)) {
      // An IRI is taken as given; the family's rules say whether it will do.
      setDraftValue(draft, pointer, typed);
      continue;
    }
    const families = familiesOf(refersTo, ownFamily);
    // A Rejected resource holds no name: its copy is the one meant.
    const exact = await refdata.store.byExactName(typed, families, SUGGESTIONS);
    if (exact.length === 1 && exact[0]) {
      setDraftValue(draft, pointer, exact[0].iri);
      continue;
    }
    setDraftValue(draft, pointer, '');
    if (exact.length > 1) {
      open.set(pointer, {
        typed,
        message: `${exact.length} resources are called “${typed}”: choose one`,
        options: exact.map((row) => ({ ...row, library: row.library ?? undefined })),
      });
      continue;
    }
    const options = families.length > 0 ? await suggestions(refdata, families, typed) : [];
    open.set(pointer, {
      typed,
      message:
        options.length > 0
          ? `nothing is called “${typed}”: choose one of these, or type another name${refersTo.external ? ' or an IRI' : ''}`
          : `nothing is called “${typed}”${refersTo.external ? '; type another name or an IRI' : '; type another name'}`,
      options,
    });
  }
  return open;
}

function sameName(name: string, typed: string): boolean {
  return normalizedName(name) === normalizedName(typed);
}

/** The names (and pages) of our resources among `values`, for showing them by name. */
export async function resourceNames(
  refdata: Refdata,
  values: readonly (string | undefined)[],
): Promise<Map<string, { name: string; href: string | undefined }>> {
  const iris = values.filter(
    (value): value is string => value !== undefined && isAbsoluteIri(value),
  );
  const found = await pickedResources(refdata, iris);
  return new Map(
    [...found].map(([iri, resource]) => [
      iri,
      { name: resource.name, href: pageHref(refdata, iri) },
    ]),
  );
}
