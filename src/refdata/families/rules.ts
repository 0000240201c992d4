import type { Static, TObject, TSchema } from '@sinclair/typebox';
import { LINK_IRI_DETAIL } from '../../platform/http/formats.js';
import type { FieldError } from '../../platform/http/problem.js';
import { type CommonBody, fieldError, isAbsoluteIri, REFERS_TO, type RefersTo } from './common.js';
import type { Family, OwnedValue, RuleContext } from './family.js';
import { languageErrors } from './languages.js';
import { mappingRules } from './mappings.js';

/**
 * The rules of a write, whole: what every family is checked for, read from the
 * family's key, label and schema, then the family's own rules. A family states
 * only what is particular to it.
 */
export async function ruleErrors<S extends TObject>(
  family: Family<S>,
  body: Static<S>,
  context: RuleContext,
): Promise<FieldError[]> {
  // Every family's schema is made by `familySchema`, so its bodies have the common fields.
  const common = body as unknown as CommonBody;
  return [
    ...libraryErrors(family, common),
    ...(await referenceErrors(family, body, context)),
    ...(await replacesErrors(family, common, context)),
    ...(await ownedValueErrors(family, body, context)),
    ...mappingRules(family, body, context.catalogues),
    ...definitionSourceErrors(common),
    ...(await languageErrors(family as unknown as Family, common, context)),
    ...((await family.rules?.(body, context)) ?? []),
  ];
}

/** A family whose schema requires `ontology` makes terms: each needs its library. */
function libraryErrors(family: Family<TObject>, body: CommonBody): FieldError[] {
  const needsLibrary = family.schema.required?.includes('ontology') ?? false;
  return needsLibrary && body.ontology === undefined
    ? [fieldError('/ontology', 'is required for a term')]
    : [];
}

/** An IRI a body gives at a field whose schema says what it names. */
interface Reference {
  pointer: string;
  iri: string;
  refersTo: RefersTo | undefined;
}

/** Checked before the other fields, as people read a term: its library, then what it replaces. */
const FIRST_FIELDS = ['ontology', 'replaces'];

/** The properties of an object schema in the order their references are checked. */
function propertiesInOrder(schema: TSchema): [string, TSchema][] {
  const entries = Object.entries(schema.properties as Record<string, TSchema>);
  const rank = (name: string) => {
    const index = FIRST_FIELDS.indexOf(name);
    return index === -1 ? FIRST_FIELDS.length : index;
  };
  return entries.sort(([a], [b]) => rank(a) - rank(b));
}

/**
 * Every IRI in `value` at a place `schema` declares as one (`format: link-iri`),
 * with what it refers to (`x-refers-to`): through objects, records, arrays and
 * the branches of a union (a place several branches declare comes more than once).
 */
function* referencesIn(schema: TSchema, value: unknown, pointer: string): Generator<Reference> {
  if (typeof value === 'string' && schema.format === 'link-iri') {
    yield { pointer, iri: value, refersTo: schema[REFERS_TO] as RefersTo | undefined };
    return;
  }
  for (const key of ['anyOf', 'oneOf', 'allOf'] as const) {
    const branches = schema[key] as TSchema[] | undefined;
    for (const branch of branches ?? []) yield* referencesIn(branch, value, pointer);
  }
  if (Array.isArray(value) && schema.items !== undefined) {
    for (const [index, item] of value.entries())
      yield* referencesIn(schema.items as TSchema, item, `${pointer}/${index}`);
  } else if (value !== null && typeof value === 'object' && !Array.isArray(value)) {
    const fields = value as Record<string, unknown>;
    const declared = schema.properties === undefined ? [] : propertiesInOrder(schema);
    for (const [name, inner] of declared) {
      if (fields[name] !== undefined)
        yield* referencesIn(inner, fields[name], `${pointer}/${name}`);
    }
    const others = schema.additionalProperties;
    if (others !== undefined && typeof others === 'object') {
      const named = new Set(declared.map(([name]) => name));
      for (const [name, inner] of Object.entries(fields)) {
        if (!named.has(name)) yield* referencesIn(others as TSchema, inner, `${pointer}/${name}`);
      }
    }
  }
}

/**
 * The IRIs a body names at the places its family's schema declares, each place
 * once, with what each refers to: what a quality report follows.
 */
export function referencesOf(
  family: Family<TObject>,
  body: object,
): { pointer: string; iri: string }[] {
  const seen = new Set<string>();
  const found: { pointer: string; iri: string }[] = [];
  for (const { pointer, iri } of referencesIn(family.schema, body, '')) {
    if (seen.has(pointer)) continue;
    seen.add(pointer);
    found.push({ pointer, iri });
  }
  return found;
}

/**
 * Each IRI is absolute; one that names a resource of this service
 * (`x-refers-to`) names a stored one of the families it accepts. An IRI that may
 * lie outside (`external`) is checked only when it is stored here.
 */
async function referenceErrors(
  family: Family<TObject>,
  body: object,
  context: RuleContext,
): Promise<FieldError[]> {
  const errors: FieldError[] = [];
  const checked = new Set<string>();
  for (const { pointer, iri, refersTo } of referencesIn(family.schema, body, '')) {
    // A union's branches may declare the same place; it is checked once.
    if (checked.has(pointer)) continue;
    checked.add(pointer);
    if (!isAbsoluteIri(iri)) {
      errors.push(fieldError(pointer, LINK_IRI_DETAIL));
      continue;
    }
    if (refersTo === undefined || refersTo.families.length === 0) continue;
    const accepted = refersTo.families.map((key) => (key === 'same-family' ? family.key : key));
    // A field that takes this family may name the resource itself; whether it
    // may, the family says (a block may contain itself, a class may not be its
    // own superclass). Anywhere else the resource itself is of the wrong family.
    if (iri === context.self && accepted.includes(family.key)) continue;
    const noun = refersTo.noun ?? accepted.map((key) => context.labelOf(key)).join(' or ');
    const found = await context.find(iri);
    if (!found) {
      if (!refersTo.external)
        errors.push(fieldError(pointer, `must be the IRI of an existing ${noun}`));
    } else if (!accepted.includes(found.family)) {
      errors.push(
        fieldError(
          pointer,
          `must be the IRI of a ${noun}, not of a ${context.labelOf(found.family)}`,
        ),
      );
    }
  }
  return errors;
}

/** Only what was published can be superseded, and nothing supersedes itself. */
async function replacesErrors(
  family: Family<TObject>,
  body: CommonBody,
  context: RuleContext,
): Promise<FieldError[]> {
  if (body.replaces === undefined) return [];
  if (body.replaces === context.self)
    return [fieldError('/replaces', 'cannot be the resource itself')];
  const replaced = await context.find(body.replaces);
  // A Draft is changed, not replaced; a missing or foreign one is a reference error.
  return replaced?.family === family.key && replaced.status !== 'Approved'
    ? [fieldError('/replaces', `must be an Approved ${family.label}; it is ${replaced.status}`)]
    : [];
}

/** The values an aggregate's body lists, undefined when it leaves them as they are. */
export function ownedValuesOf(family: Family<TObject>, body: object): OwnedValue[] | undefined {
  const field = family.aggregate?.field;
  return field === undefined
    ? undefined
    : ((body as Record<string, unknown>)[field] as OwnedValue[] | undefined);
}

/**
 * An aggregate's values: names unique within it, and each `id` one of its own
 * values, listed once and still a Draft.
 */
async function ownedValueErrors(
  family: Family<TObject>,
  body: object,
  context: RuleContext,
): Promise<FieldError[]> {
  const aggregate = family.aggregate;
  const values = ownedValuesOf(family, body);
  if (!aggregate || !values) return [];
  const errors: FieldError[] = [];
  const names = new Set<string>();
  const ids = new Set<string>();
  const owner = context.labelOf(family.key);
  for (const [index, value] of values.entries()) {
    const pointer = `/${aggregate.field}/${index}`;
    const name = value.name.trim().toLowerCase();
    if (names.has(name))
      errors.push(fieldError(`${pointer}/name`, `is used by another value of this ${owner}`));
    names.add(name);
    // A value's labels follow the rules of every resource's, in the aggregate's library.
    const ontology = (body as { ontology?: string }).ontology;
    for (const error of await languageErrors(
      family,
      { ...value, changeJustification: '', ...(ontology ? { ontology } : {}) },
      context,
    ))
      errors.push({ ...error, field: `${pointer}${error.field}` });
    if (value.id === undefined) continue;
    if (ids.has(value.id)) errors.push(fieldError(`${pointer}/id`, 'is listed twice'));
    ids.add(value.id);
    const stored = await context.find(value.id);
    if (stored?.family !== aggregate.valueFamily || stored.parentIri !== context.self) {
      errors.push(fieldError(`${pointer}/id`, `must be the IRI of a value of this ${owner}`));
    } else if (stored.status !== 'Draft') {
      errors.push(fieldError(`${pointer}/id`, 'is no longer a Draft and cannot change'));
    }
  }
  return errors;
}

/** A definition source is an IRI, or a name, an identifier and a URL; never both. */
function definitionSourceErrors(body: CommonBody): FieldError[] {
  const errors: FieldError[] = [];
  for (const [index, source] of (body.definitionSources ?? []).entries()) {
    const pointer = `/definitionSources/${index}`;
    const structured = [source.sourceName, source.sourceId, source.sourceUrl, source.version];
    if (source.sourceIri !== undefined) {
      if (structured.some((value) => value !== undefined))
        errors.push(
          fieldError(
            pointer,
            'is either sourceIri or sourceName, sourceId and sourceUrl, never both',
          ),
        );
    } else if (!source.sourceName || !source.sourceId || !source.sourceUrl) {
      errors.push(fieldError(pointer, 'needs sourceIri, or sourceName, sourceId and sourceUrl'));
    } else if (!/^https?:/i.test(source.sourceUrl) || !isAbsoluteIri(source.sourceUrl)) {
      errors.push(fieldError(`${pointer}/sourceUrl`, 'must be an absolute http or https URL'));
    }
  }
  return errors;
}
