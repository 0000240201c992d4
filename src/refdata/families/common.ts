import { type Static, type TProperties, Type } from '@sinclair/typebox';
import { isLinkIri, LINK_IRI_DETAIL } from '../../platform/http/formats.js';
import type { FieldError } from '../../platform/http/problem.js';
import {
  type FamilyKey,
  LIBRARY_FAMILY,
  type ReferencedResource,
  type RuleContext,
} from './family.js';

/**
 * What an IRI field names, for the forms that pick it: resources of these
 * families (`same-family`: the family of the resource written), and whether an
 * IRI outside this service will do as well.
 */
export interface RefersTo {
  families: readonly string[];
  external?: boolean;
  /** What messages call such a resource, when the families' labels would not read well. */
  noun?: string;
}

/** The schema keyword that carries `RefersTo` (an OpenAPI extension). */
export const REFERS_TO = 'x-refers-to';

/**
 * How a field reads on a resource's page when its own section shows it rather
 * than the details list (web/sections): `properties`, a class's properties
 * table; `structure`, an IMF type's terminals, attributes and parts.
 */
export const PAGE_READING = 'x-page';
export type PageReading = 'properties' | 'structure';

/**
 * The schema keyword for an optional field another field makes required, in
 * words a form puts after its label ("required for a number or controlled
 * text"), where "(optional)" would be wrong; the family's rules enforce it.
 */
export const REQUIRED_WHEN = 'x-required-when';

const Iri = (description: string, refersTo?: RefersTo, title?: string, requiredWhen?: string) =>
  Type.String({
    ...(title ? { title } : {}),
    ...(requiredWhen ? { [REQUIRED_WHEN]: requiredWhen } : {}),
    minLength: 1,
    maxLength: 2048,
    format: 'link-iri',
    description: `${description} (an absolute http, https or urn IRI)`,
    ...(refersTo ? { [REFERS_TO]: refersTo } : {}),
  });

export const IRI = Iri;

/** SKOS mapping relations a `relatedTerms` entry may use. */
export const RELATION_TYPES = [
  'exactMatch',
  'closeMatch',
  'broadMatch',
  'narrowMatch',
  'relatedMatch',
] as const;

const RelatedTerm = Type.Object(
  {
    relationType: Type.Union(RELATION_TYPES.map((relation) => Type.Literal(relation))),
    targetLibrary: Type.String({ minLength: 1, maxLength: 500 }),
    targetIdentifier: Type.String({ minLength: 1, maxLength: 500 }),
    targetVersion: Type.Optional(Type.String({ minLength: 1, maxLength: 100 })),
    targetSourceName: Type.Optional(Type.String({ minLength: 1, maxLength: 500 })),
  },
  { additionalProperties: false },
);

/** Either `sourceIri`, or the structured form; which one is checked by `commonRules`. */
const DefinitionSource = Type.Object(
  {
    sourceIri: Type.Optional(Iri('Where the wording came from', { families: [], external: true })),
    sourceName: Type.Optional(Type.String({ minLength: 1, maxLength: 500 })),
    sourceId: Type.Optional(Type.String({ minLength: 1, maxLength: 500 })),
    sourceUrl: Type.Optional(Type.String({ minLength: 1, maxLength: 2048 })),
    version: Type.Optional(Type.String({ minLength: 1, maxLength: 100 })),
  },
  { additionalProperties: false },
);

/** A BCP 47 language tag (checked against IANA's registry). */
export const LanguageTag = (description: string) =>
  Type.String({ minLength: 2, maxLength: 35, format: 'language-tag', description });

/** The label a library's terms are written in when it declares none. */
export const DEFAULT_LANGUAGE = 'en';

/**
 * The name and definition in another language than the library's (docs/refdata-model.md):
 * one preferred label per language.
 */
const Translation = Type.Object(
  {
    language: LanguageTag('The language of this name and definition (BCP 47: nb, pt-BR, ko)'),
    name: Type.String({ minLength: 1, maxLength: 500 }),
    description: Type.Optional(Type.String({ minLength: 1, maxLength: 20000 })),
  },
  { additionalProperties: false },
);

/** Another label the resource is known by, in a language: found by search, not preferred. */
const Synonym = Type.Object(
  {
    language: LanguageTag('The language of the label (BCP 47)'),
    label: Type.String({ minLength: 1, maxLength: 500 }),
  },
  { additionalProperties: false },
);

/** The fields every write body has (spec section 2). */
export const COMMON_FIELDS = {
  changeJustification: Type.String({
    minLength: 1,
    maxLength: 2000,
    title: 'Why this change',
    description: 'Kept with this version in the history',
  }),
  name: Type.String({ minLength: 1, maxLength: 500 }),
  description: Type.String({ minLength: 1, maxLength: 20000 }),
  replaces: Type.Optional(
    Iri('The prior resource this one replaces', { families: ['same-family'] }),
  ),
  packageName: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
  relatedTerms: Type.Optional(Type.Array(RelatedTerm, { maxItems: 200 })),
  definitionSources: Type.Optional(Type.Array(DefinitionSource, { maxItems: 50 })),
  translations: Type.Optional(
    Type.Array(Translation, {
      maxItems: 200,
      description:
        "The name and definition in other languages than the library's, one per language",
    }),
  ),
  synonyms: Type.Optional(
    Type.Array(Synonym, { maxItems: 500, description: 'Other labels, each in a language' }),
  ),
} satisfies TProperties;

/** A term's library: required for every family but libraries themselves. */
export const ONTOLOGY_FIELD = {
  ontology: Iri('The library the term belongs to', { families: [LIBRARY_FAMILY] }, 'Library'),
};

/**
 * A family's request model: the common fields and its own, nothing else. Fields
 * of other families are unknown here and refused (spec rule 1).
 */
export function familySchema<Own extends TProperties>(own: Own, description: string) {
  return Type.Object({ ...COMMON_FIELDS, ...own }, { additionalProperties: false, description });
}

const CommonFields = Type.Object({
  ...COMMON_FIELDS,
  ontology: Type.Optional(ONTOLOGY_FIELD.ontology),
});

/** The fields every family's body has (its library, for the families of terms), as written. */
export type CommonBody = Static<typeof CommonFields>;

/** The common fields as stored: the justification belongs to the revision, not the body. */
export type StoredCommonBody = Omit<CommonBody, 'changeJustification'>;

/**
 * The values an aggregate owns, as its body lists them (`Family.aggregate.field`):
 * the complete list, each a name and a description, with the IRI of the stored
 * value it updates.
 */
export function ownedValues(description: string) {
  return Type.Optional(
    Type.Array(
      Type.Object(
        {
          id: Type.Optional(
            Type.String({
              minLength: 1,
              maxLength: 2048,
              format: 'link-iri',
              description: `The IRI of an existing ${description}`,
              // Forms carry it unseen: it says which value a row is.
              'x-form': 'hidden',
            }),
          ),
          name: Type.String({ minLength: 1, maxLength: 500 }),
          description: Type.String({ minLength: 1, maxLength: 20000 }),
          translations: COMMON_FIELDS.translations,
          synonyms: COMMON_FIELDS.synonyms,
        },
        { additionalProperties: false },
      ),
      {
        maxItems: 2000,
        description:
          'The complete list: values with an id are updated, without one created, left out removed',
      },
    ),
  );
}

/** An IRI pages may link to (http, https, urn); see `isLinkIri`. */
export const isAbsoluteIri = isLinkIri;

export function fieldError(field: string, detail: string): FieldError {
  return { in: 'body', field, detail };
}

/**
 * A reference that must point at a stored resource of one of `families`. Returns
 * the resource, or pushes why not onto `errors`.
 */
export async function reference(
  context: RuleContext,
  errors: FieldError[],
  field: string,
  iri: string | undefined,
  families: readonly FamilyKey[],
  label: string,
): Promise<ReferencedResource | undefined> {
  if (iri === undefined) return undefined;
  if (!isAbsoluteIri(iri)) {
    errors.push(fieldError(field, LINK_IRI_DETAIL));
    return undefined;
  }
  const found = await context.find(iri);
  if (!found) {
    errors.push(fieldError(field, `must be the IRI of an existing ${label}`));
    return undefined;
  }
  if (!families.includes(found.family)) {
    errors.push(
      fieldError(field, `must be the IRI of a ${label}, not of a ${context.labelOf(found.family)}`),
    );
    return undefined;
  }
  return found;
}

/** A reference to another resource with how often it occurs: an IMF type's, a CFIHOS class's. */
export interface CountedReference {
  minCardinality: number;
  maxCardinality?: number;
}

/**
 * Each counted reference names its target once (`targetField`), and its minimum
 * does not exceed its maximum; what the target must be, `x-refers-to` says.
 */
export function countedReferenceErrors<Item extends CountedReference>(
  field: string,
  items: readonly Item[],
  targetOf: (item: Item) => string,
  targetField: string,
): FieldError[] {
  const errors: FieldError[] = [];
  const seen = new Set<string>();
  for (const [index, item] of items.entries()) {
    const pointer = `${field}/${index}`;
    if (item.maxCardinality !== undefined && item.minCardinality > item.maxCardinality)
      errors.push(fieldError(`${pointer}/minCardinality`, 'must not exceed maxCardinality'));
    const target = targetOf(item);
    if (seen.has(target)) errors.push(fieldError(`${pointer}/${targetField}`, 'is listed twice'));
    seen.add(target);
  }
  return errors;
}

/** A lower-case path segment from a name, for IRIs people read. */
export function slug(name: string): string {
  return name
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 100);
}

/**
 * The generalizations a body names: `subClassOf` (one or many) and
 * `superEntity`, each once. The hierarchy (its storage, the pages' trees and
 * breadcrumbs) and the loop rule read them here alone.
 */
export function generalizationsIn(body: Record<string, unknown>): string[] {
  const { subClassOf, superEntity } = body;
  const supers = Array.isArray(subClassOf) ? subClassOf : [subClassOf];
  return [
    ...new Set([...supers, superEntity].filter((iri): iri is string => typeof iri === 'string')),
  ];
}

function generalizationsOf(resource: ReferencedResource): string[] {
  return generalizationsIn(resource.body);
}

/** How far a loop is looked for; deeper hierarchies than this do not occur in practice. */
const MAX_HIERARCHY_NODES = 10_000;

/**
 * The loop that making `context.self` a specialization of `parent` would close,
 * as the IRIs from `self` back to itself; undefined when there is none. Walks up
 * the stored generalizations breadth first, so the loop reported is a shortest one.
 */
export async function generalizationLoop(
  context: RuleContext,
  parent: string,
): Promise<string[] | undefined> {
  const self = context.self;
  if (self === undefined || parent === self) return undefined;
  const pathTo = new Map<string, string[]>([[parent, [self, parent]]]);
  const queue = [parent];
  while (queue.length > 0 && pathTo.size < MAX_HIERARCHY_NODES) {
    const iri = queue.shift() as string;
    const path = pathTo.get(iri) as string[];
    const stored = await context.find(iri);
    if (!stored) continue;
    for (const next of generalizationsOf(stored)) {
      if (next === self) return [...path, self];
      if (pathTo.has(next)) continue;
      pathTo.set(next, [...path, next]);
      queue.push(next);
    }
  }
  return undefined;
}

/** The rule error for a generalization that closes a loop, if it does. */
export async function loopError(
  context: RuleContext,
  field: string,
  parent: string | undefined,
): Promise<FieldError | undefined> {
  if (parent === undefined) return undefined;
  const loop = await generalizationLoop(context, parent);
  return loop
    ? fieldError(field, `would make a cycle of generalizations: ${loop.join(' → ')}`)
    : undefined;
}
