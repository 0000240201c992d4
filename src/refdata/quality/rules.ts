/**
 * The quality rules (docs/releases.md), each named by an IRI in the shapes
 * file (assets/refdata-quality.shacl.ttl), where SHACL can say it as a shape.
 */
export const QUALITY_NAMESPACE = 'https://w3id.org/refdata/quality/';

export const RULES = {
  'pca-pref-label': 'A preferred label',
  'pca-definition': 'A definition',
  'pca-defined-by': 'Defined by its library',
  'pca-iri': 'A resolvable IRI',
  'pca-language-tag': 'Valid language tags',
  'pca-imports': 'Imports what it uses',
  'library-approved': 'The library is Approved',
  'reference-unpublished': 'Names only what is published',
  'reference-deprecated': 'Names no Deprecated resource',
  'parent-deprecated': 'Its parent is current',
  'imf-types-grammar': 'IMF types grammar',
} as const;

export type RuleId = keyof typeof RULES;
export type Severity = 'error' | 'warning';

export function ruleIri(rule: RuleId): string {
  return `${QUALITY_NAMESPACE}${rule}`;
}

/** The rule an IRI of the shapes file names, if it is one. */
export function ruleOfIri(iri: string): RuleId | undefined {
  if (!iri.startsWith(QUALITY_NAMESPACE)) return undefined;
  const name = iri.slice(QUALITY_NAMESPACE.length);
  return Object.hasOwn(RULES, name) ? (name as RuleId) : undefined;
}

/** Fields whose IRIs name a class's parents (rdfs:subClassOf, CFIHOS's superEntity). */
export const PARENT_FIELDS = ['/subClassOf', '/superEntity', '/superClass'];
