/**
 * Fields as people name them: a family's schema gives each field's `title`,
 * or its name in words ("relatedTerms" is "Related terms"), and a JSON pointer
 * into a body reads as those names, rows counted from one:
 * `/propertyReferences/1/propertyUri` is "Property references › 2 › Property URI".
 * Messages on forms, in import reports and in the API's problems say this,
 * beside the pointer kept for programs.
 */

/** The part of a JSON schema a field's words are read from. */
interface NamedSchema {
  type?: string;
  title?: string;
  properties?: Record<string, NamedSchema>;
  items?: NamedSchema;
  anyOf?: NamedSchema[];
}

/** Words that are not written as they are spelled in a field's name. */
const WORDS: Readonly<Record<string, string>> = {
  iri: 'IRI',
  uri: 'URI',
  uom: 'unit of measure',
  dc: '',
  imf: 'IMF',
  cfihos: 'CFIHOS',
  id: 'ID',
};

/** "relatedTerms" as people say it: "Related terms". */
export function humanize(name: string): string {
  const words = name
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .split(/[\s_-]+/)
    .map((word) => WORDS[word.toLowerCase()] ?? word.toLowerCase())
    .filter(Boolean)
    .join(' ');
  return words.charAt(0).toUpperCase() + words.slice(1);
}

function inner(schema: NamedSchema | undefined, step: string): NamedSchema | undefined {
  if (!schema) return undefined;
  if (schema.type === 'array' || schema.items) return schema.items;
  const direct = schema.properties?.[step];
  if (direct) return direct;
  return schema.anyOf?.map((option) => option.properties?.[step]).find(Boolean);
}

/** A pointer into a body of `schema` in words; empty for the body itself. */
export function fieldWords(schema: NamedSchema, pointer: string): string {
  const words: string[] = [];
  let here: NamedSchema | undefined = schema;
  for (const raw of pointer.split('/').slice(1)) {
    const step = raw.replaceAll('~1', '/').replaceAll('~0', '~');
    const next = inner(here, step);
    words.push(/^\d+$/.test(step) ? String(Number(step) + 1) : (next?.title ?? humanize(step)));
    here = next;
  }
  return words.join(' › ');
}

/** A field error as a sentence: the field in words, then what is wrong with it. */
export function inWords(schema: NamedSchema, error: { field: string; detail: string }): string {
  const field = fieldWords(schema, error.field);
  return field === '' ? error.detail : `${field} ${error.detail}`;
}
