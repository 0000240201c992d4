import type { FieldError } from '../../platform/http/problem.js';
import { type CommonBody, DEFAULT_LANGUAGE, fieldError } from './common.js';
import { type Family, LIBRARY_FAMILY, type RuleContext } from './family.js';

/** Language tags are compared without case (RFC 5646 §2.1.1): `en-GB` is `en-gb`. */
export function sameLanguage(a: string, b: string): boolean {
  return a.toLowerCase() === b.toLowerCase();
}

/**
 * The keys a language filter finds a resource by: each tag in lower case and
 * its shorter prefixes (RFC 4647's basic filtering: `de` finds `de-CH`).
 */
export function languageKeys(tags: readonly string[]): string[] {
  const keys = new Set<string>();
  for (const tag of tags) {
    const subtags = tag.toLowerCase().split('-');
    for (let length = subtags.length; length > 0; length -= 1)
      keys.add(subtags.slice(0, length).join('-'));
  }
  return [...keys];
}

/**
 * The language a body's `name` and `description` are in: its library's
 * declared default, English when it declares none (a library's own, for a
 * library).
 */
export async function languageOfBody(
  family: Family,
  body: CommonBody & { defaultLanguage?: string },
  context: RuleContext,
): Promise<string> {
  if (family.key === LIBRARY_FAMILY) return body.defaultLanguage ?? DEFAULT_LANGUAGE;
  if (!body.ontology) return DEFAULT_LANGUAGE;
  const library = await context.find(body.ontology);
  const declared = library?.body.defaultLanguage;
  return typeof declared === 'string' ? declared : DEFAULT_LANGUAGE;
}

/**
 * One preferred label per language (SKOS S14): no translation in the
 * language `name` is in, none twice; a synonym is not a preferred label of
 * its language (SKOS S13) and is not listed twice.
 */
export async function languageErrors(
  family: Family,
  body: CommonBody,
  context: RuleContext,
): Promise<FieldError[]> {
  const translations = body.translations ?? [];
  const synonyms = body.synonyms ?? [];
  if (translations.length === 0 && synonyms.length === 0) return [];
  const own = await languageOfBody(family, body, context);
  const errors: FieldError[] = [];
  const preferred = new Map<string, string>([[own.toLowerCase(), body.name]]);
  for (const [index, translation] of translations.entries()) {
    const key = translation.language.toLowerCase();
    if (sameLanguage(translation.language, own)) {
      errors.push(
        fieldError(
          `/translations/${index}/language`,
          `is the library's language (${own}), whose name and definition are name and description: one preferred label per language`,
        ),
      );
    } else if (preferred.has(key)) {
      errors.push(
        fieldError(
          `/translations/${index}/language`,
          `is given twice: one preferred label per language (${translation.language})`,
        ),
      );
    }
    if (!preferred.has(key)) preferred.set(key, translation.name);
  }
  const seen = new Set<string>();
  for (const [index, synonym] of synonyms.entries()) {
    const key = synonym.language.toLowerCase();
    const label = synonym.label.trim().toLowerCase();
    if (preferred.get(key)?.trim().toLowerCase() === label)
      errors.push(
        fieldError(
          `/synonyms/${index}/label`,
          `is the preferred label in ${synonym.language}: a synonym is another label`,
        ),
      );
    if (seen.has(`${key} ${label}`))
      errors.push(fieldError(`/synonyms/${index}/label`, 'is listed twice in its language'));
    seen.add(`${key} ${label}`);
  }
  return errors;
}
