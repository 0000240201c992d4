/**
 * Where a visitor may be sent back to after signing in: a path on this same
 * service, and nothing a browser could read as another site.
 *
 * Prefix checks on the raw text are not enough, because browsers parse a
 * `Location` with the WHATWG URL rules: tabs and newlines vanish (`/\t/evil`
 * is `//evil`), a backslash is a slash (`/\evil`), and dot segments fold
 * (`/.//evil` is `//evil`). So the candidate is parsed with those same rules
 * against a placeholder origin, kept only when it stays on that origin, and
 * returned as the parser serializes it: percent-encoded, so it is always a
 * valid header value (no CR, LF or character above U+00FF reaches `Location`).
 */
const PLACEHOLDER_ORIGIN = 'http://return-path.invalid';
const MAX_RETURN_PATH = 2000;

export function safeReturnPath(candidate: unknown): string | undefined {
  if (typeof candidate !== 'string' || candidate.length > MAX_RETURN_PATH) return undefined;
  // Only a path: not `//host`, `/\host`, a scheme, or anything relative.
  if (!candidate.startsWith('/')) return undefined;
  let url: URL;
  try {
    url = new URL(candidate, PLACEHOLDER_ORIGIN);
  } catch {
    return undefined;
  }
  if (url.origin !== PLACEHOLDER_ORIGIN || url.username !== '' || url.password !== '') {
    return undefined;
  }
  const path = `${url.pathname}${url.search}${url.hash}`;
  // Dot segments can fold into a leading `//` after parsing: read again, that is
  // another host.
  if (path.startsWith('//') || path.startsWith('/\\')) return undefined;
  if (path.length > MAX_RETURN_PATH) return undefined;
  return path;
}
