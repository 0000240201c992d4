/** The IMF ontology's terms that the authoring rules and the SHACL assembly use. */
export const IMF = 'http://ns.imfid.org/imf#';

export const ASPECTS = ['functionAspect', 'productAspect', 'locationAspect', 'installedAspect'].map(
  (name) => `${IMF}${name}`,
);

/** Each qualifier field's group: the only IRIs it accepts. */
export const QUALIFIER_GROUPS = {
  rangeQualifier: ['average', 'maximum', 'minimum', 'nominal', 'normal'],
  regularityQualifier: ['absolute', 'continuous'],
  provenanceQualifier: ['calculated', 'measured', 'specified'],
  scopeQualifier: ['design', 'operating'],
} as const;

export function qualifierIris(field: keyof typeof QUALIFIER_GROUPS): string[] {
  return QUALIFIER_GROUPS[field].map((name) => `${IMF}${name}Qualifier`);
}

export const DIRECTIONS = {
  input: `${IMF}inputDirection`,
  output: `${IMF}outputDirection`,
} as const;
