import { HttpError, problem } from '../../platform/http/problem.js';

/** RFC 6749 section 5.2 and 4.1.2.1, RFC 6750 section 3.1 and RFC 7009 error codes. */
export const OAUTH_ERROR_CODES = new Set([
  'invalid_request',
  'invalid_client',
  'invalid_grant',
  'unauthorized_client',
  'unsupported_grant_type',
  'invalid_scope',
  'access_denied',
  'unsupported_response_type',
  'server_error',
  'temporarily_unavailable',
  'invalid_token',
  'insufficient_scope',
  'unsupported_token_type',
]);

/** An OAuth error answered as `{"error", "error_description"}`. */
export function oauthError(
  status: number,
  error: string,
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
