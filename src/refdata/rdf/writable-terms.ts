/**
 * The last guard before a writer: every IRI and literal a graph holds is one all
 * seven formats can carry and their own readers accept. Input is checked on the
 * way in (IRIs against RFC 3987, text against XML 1.0's characters), so these
 * change nothing written since; a value stored before those checks would
 * otherwise make a whole library's Turtle, N-Triples or RDF/XML unreadable.
 */

/** Characters XML 1.0 cannot hold at all, and lone surrogates. */
const NOT_XML_CHARACTER_SOURCE =
  '[\\u0000-\\u0008\\u000B\\u000C\\u000E-\\u001F\\uFFFE\\uFFFF]|[\\uD800-\\uDBFF](?![\\uDC00-\\uDFFF])|(?<![\\uD800-\\uDBFF])[\\uDC00-\\uDFFF]';
const NOT_XML_CHARACTER = new RegExp(NOT_XML_CHARACTER_SOURCE, 'g');
const HAS_NOT_XML_CHARACTER = new RegExp(NOT_XML_CHARACTER_SOURCE);

/**
 * Text as every format can write it: what XML 1.0 forbids becomes U+FFFD. This
 * runs for every literal of every export, so the common case is one test.
 */
export function writableText(value: string): string {
  return HAS_NOT_XML_CHARACTER.test(value) ? value.replace(NOT_XML_CHARACTER, '\uFFFD') : value;
}

/** What N-Triples' IRIREF (and so Turtle and TriG) forbids; XML's limits come on top. */
const NOT_IN_IRIREF_SOURCE = '[\\u0000-\\u0020<>"{}|^`\\\\]';
const NOT_IN_IRIREF = new RegExp(NOT_IN_IRIREF_SOURCE, 'g');
const HAS_NOT_IN_IRIREF = new RegExp(NOT_IN_IRIREF_SOURCE);

const percentEncoded = (character: string) =>
  [...new TextEncoder().encode(character)]
    .map((byte) => `%${byte.toString(16).toUpperCase().padStart(2, '0')}`)
    .join('');

/**
 * An IRI as every format can write it: a character no reader would take inside
 * an IRI is percent-encoded (its UTF-8 bytes), as a browser would send it.
 */
export function writableIri(value: string): string {
  if (!HAS_NOT_IN_IRIREF.test(value) && !HAS_NOT_XML_CHARACTER.test(value)) return value;
  return writableText(value).replace(NOT_IN_IRIREF, percentEncoded);
}

/**
 * A well-formed BCP 47 language tag (RFC 5646 section 2.1's syntax: language,
 * script, region, variants, extensions, private use; or private use alone,
 * or a grandfathered form), which every reader takes: N-Triples' LANGTAG, and
 * Oxigraph's and Jena's checks of the tag itself.
 */
const WELL_FORMED_LANGUAGE_TAG =
  /^(?:(?:[a-z]{2,3}(?:-[a-z]{3}){0,3}|[a-z]{4}|[a-z]{5,8})(?:-[a-z]{4})?(?:-(?:[a-z]{2}|\d{3}))?(?:-(?:[a-z\d]{5,8}|\d[a-z\d]{3}))*(?:-[\da-wyz](?:-[a-z\d]{2,8})+)*(?:-x(?:-[a-z\d]{1,8})+)?|x(?:-[a-z\d]{1,8})+|[a-z]{1,3}(?:-[a-z\d]{2,8}){1,2})$/i;

/**
 * A language tag as every format can write it: a malformed one (data from
 * before tags were checked on the way in; the quality report names it) is
 * left off, and its literal written as plain text, rather than make the whole
 * graph unreadable.
 */
export function writableLanguage(tag: string): string {
  return WELL_FORMED_LANGUAGE_TAG.test(tag) ? tag : '';
}
