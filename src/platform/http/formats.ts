/**
 * String formats the schemas of both services may use, beyond ajv-formats'.
 * Each has a message that says in words what the value must be.
 */

/** Schemes whose IRIs are safe to render as links: never `javascript:` or `data:`. */
const LINK_SCHEMES = /^(https?|urn):/i;

/**
 * An absolute IRI a page may turn into a link: http, https or urn, no white
 * space, at most 2048 characters. Stored values are later rendered as `href`s,
 * so `javascript:`, `data:` and relative references are refused on the way in.
 */
export function isLinkIri(value: string): boolean {
  if (value.length > 2048 || /\s/.test(value) || !LINK_SCHEMES.test(value)) return false;
  try {
    const url = new URL(value);
    return url.protocol === 'urn:'
      ? /^urn:[a-z0-9][a-z0-9-]{0,31}:\S+$/i.test(value)
      : url.host !== '';
  } catch {
    return false;
  }
}

export const LINK_IRI_DETAIL = 'must be an absolute http, https or urn IRI';

export const CUSTOM_FORMATS: Readonly<
  Record<string, { validate: (value: string) => boolean; detail: string }>
> = {
  'link-iri': { validate: isLinkIri, detail: LINK_IRI_DETAIL },
};
