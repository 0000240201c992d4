/**
 * Response headers a client acts on, as API descriptions declare them (the
 * `headers` of a response), for the statuses that carry them.
 */

/** `Retry-After` in seconds (with 429 and 503). */
export const RETRY_AFTER = {
  'retry-after': { type: 'integer', description: 'Seconds until it is worth asking again' },
} as const;

/** `WWW-Authenticate` (with 401, and with an RFC 6750 403), saying what it holds here. */
export function wwwAuthenticate(description: string) {
  return { 'www-authenticate': { type: 'string', description } } as const;
}
