import type { Static, TObject } from '@sinclair/typebox';
import type { FieldError } from '../../platform/http/problem.js';
import { ownEntry } from '../../platform/own.js';
import type { Catalogues } from '../catalogues/catalogues.js';
import { fieldError } from './common.js';
import type { CatalogueMapping, Family, RelatedTerm } from './family.js';

/** The catalogue versions mappings are checked against (spec rule 4, DOMAIN.md). */
export const SUPPORTED_CATALOGUES: Readonly<Record<string, string>> = {
  ETIM: '10.0',
  UNSPSC: '26.0801',
};

interface MappedBody {
  relatedTerms?: RelatedTerm[];
}

/** Which ETIM feature types a property's value kind may map to. */
const ETIM_FEATURE_TYPES: Record<string, readonly string[]> = {
  number: ['numeric', 'range'],
  boolean: ['logical'],
  controlledText: ['alphanumeric'],
  freeText: ['alphanumeric'],
};

/** A mapping to entries of one kind only ('class', 'unit'): the kind a family maps to. */
export function mapsToKind<Body>(catalogue: string, kind: string): CatalogueMapping<Body> {
  return {
    check: (entry) =>
      entry.kind === kind
        ? undefined
        : {
            at: '/targetIdentifier',
            detail: `must be an ${catalogue} ${kind}, not a ${entry.kind}`,
          },
  };
}

/** A property maps to ETIM features whose type fits its value kind. */
export const ETIM_FEATURES: CatalogueMapping<{ types: readonly string[] }> = {
  check(entry, _term, body) {
    if (entry.kind !== 'feature')
      return { at: '/targetIdentifier', detail: `must be an ETIM feature, not a ${entry.kind}` };
    const kind = body.types[0] ?? '';
    const allowed = ETIM_FEATURE_TYPES[kind] ?? [];
    if (!entry.featureType || !allowed.includes(entry.featureType))
      return {
        at: '/targetIdentifier',
        detail: `is a ${entry.featureType ?? 'untyped'} feature; a ${kind} property maps to ${allowed.join(' or ')} features`,
      };
    if (kind === 'controlledText' && entry.controlledValuesAllowed !== true)
      return {
        at: '/targetIdentifier',
        detail: 'does not allow controlled values, so a property with a picklist cannot map to it',
      };
    return undefined;
  },
};

/** An equipment class maps to a UNSPSC Commodity, or is narrower than a UNSPSC Class. */
export const UNSPSC_EQUIPMENT: CatalogueMapping<{ entityType: string }> = {
  refuses: (body) =>
    body.entityType === 'equipment'
      ? undefined
      : 'UNSPSC mappings are for CFIHOS equipment classes, not tag classes',
  check(entry, term) {
    if (entry.kind !== 'class' && entry.kind !== 'commodity')
      return {
        at: '/targetIdentifier',
        detail: `must be a UNSPSC Class or Commodity, not a ${entry.kind}`,
      };
    if (entry.kind === 'class' && term.relationType !== 'broadMatch')
      return {
        at: '/relationType',
        detail:
          'must be broadMatch: a UNSPSC Class is broader than an equipment class, never exact',
      };
    return undefined;
  },
};

/**
 * Spec rule 4: mappings to ETIM 10.0 and UNSPSC 26.0801 name an entry that exists in
 * that catalogue version, of the kind the resource can map to (as its family's
 * `mappings` say), with an allowed relation. Mappings to other libraries are
 * recorded as given.
 */
export function mappingRules<S extends TObject>(
  family: Family<S>,
  body: Static<S>,
  catalogues: Catalogues,
): FieldError[] {
  const errors: FieldError[] = [];
  for (const [index, term] of ((body as MappedBody).relatedTerms ?? []).entries()) {
    const pointer = `/relatedTerms/${index}`;
    const name = term.targetLibrary.toUpperCase();
    const version = ownEntry(SUPPORTED_CATALOGUES, name);
    if (version === undefined) continue;
    if (term.targetVersion !== version) {
      errors.push(
        fieldError(
          `${pointer}/targetVersion`,
          `must be ${version}: the ${name} version mappings are checked against`,
        ),
      );
      continue;
    }
    const mapping = family.mappings && ownEntry(family.mappings, name);
    if (!mapping) {
      errors.push(fieldError(pointer, `${name} mappings are not for a ${family.label}`));
      continue;
    }
    const refused = mapping.refuses?.(body);
    if (refused !== undefined) {
      errors.push(fieldError(pointer, refused));
      continue;
    }
    const catalogue = catalogues.get(name);
    if (!catalogue || catalogue.version !== version) {
      errors.push(
        fieldError(
          pointer,
          `${name} ${version} is not loaded on this service, so the mapping cannot be checked`,
        ),
      );
      continue;
    }
    const entry = catalogue.find(term.targetIdentifier);
    if (!entry) {
      errors.push(fieldError(`${pointer}/targetIdentifier`, `is not in ${name} ${version}`));
      continue;
    }
    const wrong = mapping.check(entry, term, body);
    if (wrong) errors.push(fieldError(`${pointer}${wrong.at}`, wrong.detail));
  }
  return errors;
}
