import type { ConstraintStrategy, Handler, HTTPVersion } from 'find-my-way';
import { negotiate } from '../rdf/negotiation.js';
import { RDF_MEDIA_TYPES } from '../rdf/serialize.js';

/** The constraint that sends a request to the web pages or to the API. */
export const SURFACE = 'surface';
export type Surface = 'page' | 'api';

/** What the API offers; a page is chosen only where text/html wins against all of it. */
const API_TYPES = [
  'application/json',
  'application/problem+json',
  ...RDF_MEDIA_TYPES,
  'image/svg+xml',
] as const;

/**
 * A person's browser or a program? Decided by content negotiation, not by the
 * path: a resource's IRI is one address for both (PCA's platform does the same).
 * Browsers prefer text/html; no Accept, `*\/*`, any API type as much as HTML,
 * means the API.
 */
export function surfaceOf(accept: string | undefined, authorization?: string): Surface {
  // A bearer token is a program using the API, whatever it accepts (the API
  // answers HTML too); browsers send cookies.
  if (authorization !== undefined) return 'api';
  if (accept === undefined || !/text\/html/i.test(accept)) return 'api';
  // Ties go to the API: a program that lists HTML beside JSON gets JSON.
  return negotiate(accept, [...API_TYPES, 'text/html']) === 'text/html' ? 'page' : 'api';
}

/**
 * A Fastify constraint strategy, so the web pages and the API register the same
 * path each in their own scoped plugin (with their own error shape and
 * authentication) and the router picks by the request's Accept header.
 */
export const surfaceStrategy: ConstraintStrategy<HTTPVersion.V1, Surface> = {
  name: SURFACE,
  storage() {
    const handlers = new Map<Surface, Handler<HTTPVersion.V1>>();
    return {
      get: (value) => handlers.get(value) ?? null,
      set: (value, store) => {
        handlers.set(value, store);
      },
    };
  },
  deriveConstraint(request) {
    // A page's download link names its format; a browser saving a link may send
    // any Accept, and the API takes no `format` (it negotiates).
    if (request.headers.authorization === undefined && /[?&]format=/.test(request.url ?? '')) {
      return 'page';
    }
    return surfaceOf(request.headers.accept, request.headers.authorization);
  },
  // A request for the API falls through to the unconstrained API routes.
  mustMatchWhenDerived: false,
};

/** Route options of a page served at an address the API serves too. */
export const PAGE_CONSTRAINT = { constraints: { [SURFACE]: 'page' satisfies Surface } } as const;
