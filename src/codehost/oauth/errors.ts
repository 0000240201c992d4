import { HttpError } from '../../platform/http/problem.js';
import { OAUTH_ERROR_CODES, type OAuthErrorCode, problem } from '../problem-codes.js';

/** The OAuth error codes, for telling an OAuth error from the API's own. */
export const OAUTH_CODES: ReadonlySet<string> = new Set(OAUTH_ERROR_CODES);

/** An OAuth error answered as `{"error", "error_description"}`. */
export function oauthError(
  status: number,
  error: OAuthErrorCode,
  description: string,
  headers?: Record<string, string>,
): HttpError {
  return new HttpError(problem(status, error, description, headers ? { headers } : {}));
}

/**
 * RFC 6749 section 5.2: a failed client authentication is 401 with a challenge
 * for the scheme clients may use.
 */
export function invalidClient(description = 'Client authentication failed.'): HttpError {
  return oauthError(401, 'invalid_client', description, {
    'www-authenticate': 'Basic realm="codehost", charset="UTF-8"',
  });
}

/** RFC 6750 section 3: the resource server's challenge for a token it refuses. */
export function bearerChallenge(error: string, description: string, scope?: string): string {
  const quoted = (value: string) => value.replaceAll('\\', '\\\\').replaceAll('"', '\\"');
  return [
    'Bearer realm="codehost"',
    `error="${error}"`,
    `error_description="${quoted(description)}"`,
    ...(scope ? [`scope="${scope}"`] : []),
  ].join(', ');
}
