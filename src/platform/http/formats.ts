import languageTags from 'language-tags';

/**
 * String formats the schemas of both services may use, beyond ajv-formats'.
 * Each has a message that says in words what the value must be.
 */

/** Schemes whose IRIs are safe to render as links: never `javascript:` or `data:`. */
const LINK_SCHEMES = /^(https?|urn):/i;

/**
 * The characters RFC 3987 lets an IRI hold: unreserved (letters, digits,
 * `-._~` and the Unicode `ucschar` ranges), reserved delimiters, and `%`
 * followed by two hex digits; the private-use ranges (`iprivate`) only in the
 * query. Space, `<>"{}|\^` and backtick, control characters and the other
 * ranges are not IRI characters: N-Triples, Turtle and RDF/XML readers refuse
 * them, so one stored IRI holding one would break every export it is part of.
 */
const UCSCHAR =
  '\u{A0}-\u{D7FF}\u{F900}-\u{FDCF}\u{FDF0}-\u{FFEF}\u{10000}-\u{1FFFD}\u{20000}-\u{2FFFD}' +
  '\u{30000}-\u{3FFFD}\u{40000}-\u{4FFFD}\u{50000}-\u{5FFFD}\u{60000}-\u{6FFFD}' +
  '\u{70000}-\u{7FFFD}\u{80000}-\u{8FFFD}\u{90000}-\u{9FFFD}\u{A0000}-\u{AFFFD}' +
  '\u{B0000}-\u{BFFFD}\u{C0000}-\u{CFFFD}\u{D0000}-\u{DFFFD}\u{E1000}-\u{EFFFD}';
const IPRIVATE = '\u{E000}-\u{F8FF}\u{F0000}-\u{FFFFD}\u{100000}-\u{10FFFD}';
const IRI_CHARACTERS = `[A-Za-z0-9\\-._~:/?@!$&'()*+,;=${UCSCHAR}]|%[0-9A-Fa-f]{2}`;
const IRI_PART = new RegExp(`^(?:${IRI_CHARACTERS})*$`, 'u');
const IRI_QUERY = new RegExp(`^(?:${IRI_CHARACTERS}|[${IPRIVATE}])*$`, 'u');
/** `[` and `]` belong to an IP literal in the authority, nowhere else. */
const IP_LITERAL_AUTHORITY = /^([a-z][a-z0-9+.-]*:\/\/(?:[^/?#@]*@)?)\[[0-9a-f:.]+\]/i;

/**
 * Bidirectional formatting characters (LRM, RLM, LRE to RLO, PDF, and the
 * isolates LRI to PDI): inside `ucschar`, yet RFC 3987 section 4.1 says IRIs
 * MUST NOT contain them, since they make a link read as another address.
 */
const BIDI_FORMATTING = /[\u200E\u200F\u202A-\u202E\u2066-\u2069]/;

/** Whether every character of `value` is one RFC 3987 allows where it stands. */
export function hasOnlyIriCharacters(value: string): boolean {
  if (BIDI_FORMATTING.test(value)) return false;
  const hash = value.indexOf('#');
  // One fragment at most: a second `#` is not an IRI character.
  if (hash !== -1 && value.indexOf('#', hash + 1) !== -1) return false;
  const beforeFragment = hash === -1 ? value : value.slice(0, hash);
  const fragment = hash === -1 ? '' : value.slice(hash + 1);
  const question = beforeFragment.indexOf('?');
  const head = question === -1 ? beforeFragment : beforeFragment.slice(0, question);
  const query = question === -1 ? '' : beforeFragment.slice(question + 1);
  return (
    IRI_PART.test(head.replace(IP_LITERAL_AUTHORITY, '$1')) &&
    // iprivate belongs to the query alone.
    IRI_QUERY.test(query) &&
    IRI_PART.test(fragment)
  );
}

/**
 * An absolute IRI a page may turn into a link: http, https or urn, only the
 * characters RFC 3987 allows, at most 2048 characters. Stored values are later
 * rendered as `href`s, so `javascript:`, `data:` and relative references are
 * refused on the way in.
 */
export function isLinkIri(value: string): boolean {
  if (value.length > 2048 || !LINK_SCHEMES.test(value) || !hasOnlyIriCharacters(value)) {
    return false;
  }
  try {
    const url = new URL(value);
    return url.protocol === 'urn:'
      ? /^urn:[a-z0-9][a-z0-9-]{0,31}:\S+$/i.test(value)
      : url.host !== '';
  } catch {
    return false;
  }
}

export const LINK_IRI_DETAIL =
  'must be an absolute http, https or urn IRI, with only the characters RFC 3987 allows (no spaces, <>"{}|\\^` or control characters)';

/**
 * A valid BCP 47 language tag (RFC 5646): well formed, and every subtag in
 * IANA's registry (`language-tags`, which carries it), not deprecated, as
 * hosting rules for linked data ask. Case does not matter (`en-gb` is `en-GB`).
 */
export function isLanguageTag(value: string): boolean {
  return value.length <= 35 && languageTags(value).valid();
}

export const LANGUAGE_TAG_DETAIL =
  'must be a valid BCP 47 language tag with registered subtags, such as en, nb, pt-BR or zh-Hant';

export const CUSTOM_FORMATS: Readonly<
  Record<string, { validate: (value: string) => boolean; detail: string }>
> = {
  'link-iri': { validate: isLinkIri, detail: LINK_IRI_DETAIL },
  'language-tag': { validate: isLanguageTag, detail: LANGUAGE_TAG_DETAIL },
};
