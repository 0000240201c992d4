/**
 * What a request's `Cache-Control` asks of a server's own caches of answers
 * (RFC 9111, section 5.2.1): `no-cache` and `max-age=0` want an answer made
 * afresh; `no-store`, in addition, that it is not kept.
 */
export interface RequestCaching {
  /** An answer kept from before may not be given. */
  fresh: boolean;
  /** The answer made may be kept for later requests. */
  store: boolean;
}

export function requestCaching(cacheControl: string | string[] | undefined): RequestCaching {
  const directives = (Array.isArray(cacheControl) ? cacheControl.join(',') : (cacheControl ?? ''))
    .split(',')
    // Directive names are case-insensitive; a quoted `max-age` value is tolerated.
    .map((directive) => directive.trim().toLowerCase().replaceAll('"', ''));
  const noStore = directives.includes('no-store');
  const noCache = directives.some(
    (directive) => directive === 'no-cache' || /^max-age\s*=\s*0+$/.test(directive),
  );
  return { fresh: noCache || noStore, store: !noStore };
}

/**
 * What a server's cache of answers did with a request, as RFC 9211's
 * `Cache-Status` reports it: a hit, or forwarded to the origin (here the
 * engine behind the cache) because nothing was kept (`miss`), an answer was
 * kept but the request did not allow it (`request`), or the cache does not
 * take the request (`bypass`); `stored` when the answer made was kept.
 */
export type CacheOutcome =
  | { hit: true }
  | { hit: false; forward: 'miss' | 'request' | 'bypass'; stored: boolean };

/** The `Cache-Status` header's value for the cache `name` (a token). */
export function cacheStatus(name: string, outcome: CacheOutcome): string {
  if (outcome.hit) return `${name}; hit`;
  return `${name}; fwd=${outcome.forward}${outcome.stored ? '; stored' : ''}`;
}
