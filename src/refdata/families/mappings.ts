import type { FieldError } from '../../platform/http/problem.js';
import { ownEntry } from '../../platform/own.js';
import type { Catalogues } from '../catalogues/catalogues.js';
import { fieldError } from './common.js';
import type { FamilyKey } from './family.js';

/** The catalogue versions mappings are checked against (spec rule 4, DOMAIN.md). */
export const SUPPORTED_CATALOGUES: Readonly<Record<string, string>> = {
  ETIM: '10.0',
  UNSPSC: '26.0801',
};

export interface MappedBody {
  relatedTerms?: {
    relationType: string;
    targetLibrary: string;
    targetIdentifier: string;
    targetVersion?: string;
  }[];
  types?: string[];
  entityType?: string;
}

/** Which ETIM feature types a property's value kind may map to. */
const ETIM_FEATURE_TYPES: Record<string, readonly string[]> = {
  number: ['numeric', 'range'],
  boolean: ['logical'],
  controlledText: ['alphanumeric'],
  freeText: ['alphanumeric'],
};

/**
 * Spec rule 4: mappings to ETIM 10.0 and UNSPSC 26.0801 name an entry that exists in
 * that catalogue version, of the kind the resource can map to, with an allowed
 * relation. Mappings to other libraries are recorded as given.
 */
export function mappingRules(
  family: FamilyKey,
  body: MappedBody,
  catalogues: Catalogues,
): FieldError[] {
  const errors: FieldError[] = [];
  for (const [index, term] of (body.relatedTerms ?? []).entries()) {
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
    const applies =
      name === 'ETIM'
        ? ['cfihos-entity', 'unit', 'property'].includes(family)
        : family === 'cfihos-entity' && body.entityType === 'equipment';
    if (!applies) {
      errors.push(
        fieldError(
          pointer,
          name === 'ETIM'
            ? 'ETIM mappings are for CFIHOS classes, units of measure and properties'
            : 'UNSPSC mappings are for CFIHOS equipment classes',
        ),
      );
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
    if (name === 'ETIM') {
      const expected =
        family === 'cfihos-entity'
          ? 'class'
          : family === 'unit'
            ? 'unit'
            : family === 'property'
              ? 'feature'
              : undefined;
      if (expected === undefined) {
        errors.push(
          fieldError(
            pointer,
            'ETIM mappings are for CFIHOS classes, units of measure and properties',
          ),
        );
      } else if (entry.kind !== expected) {
        errors.push(
          fieldError(
            `${pointer}/targetIdentifier`,
            `must be an ETIM ${expected}, not a ${entry.kind}`,
          ),
        );
      } else if (family === 'property') {
        const kind = body.types?.[0] ?? '';
        const allowed = ETIM_FEATURE_TYPES[kind] ?? [];
        if (!entry.featureType || !allowed.includes(entry.featureType)) {
          errors.push(
            fieldError(
              `${pointer}/targetIdentifier`,
              `is a ${entry.featureType ?? 'untyped'} feature; a ${kind} property maps to ${allowed.join(' or ')} features`,
            ),
          );
        } else if (kind === 'controlledText' && entry.controlledValuesAllowed !== true) {
          errors.push(
            fieldError(
              `${pointer}/targetIdentifier`,
              'does not allow controlled values, so a property with a picklist cannot map to it',
            ),
          );
        }
      }
    } else {
      if (entry.kind !== 'class' && entry.kind !== 'commodity') {
        errors.push(
          fieldError(
            `${pointer}/targetIdentifier`,
            `must be a UNSPSC Class or Commodity, not a ${entry.kind}`,
          ),
        );
      } else if (entry.kind === 'class' && term.relationType !== 'broadMatch') {
        errors.push(
          fieldError(
            `${pointer}/relationType`,
            'must be broadMatch: a UNSPSC Class is broader than an equipment class, never exact',
          ),
        );
      }
    }
  }
  return errors;
}
