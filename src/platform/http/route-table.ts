import type { FastifyInstance, HTTPMethods } from 'fastify';
import FindMyWay from 'find-my-way';
import type { ErrorRenderer } from './errors.js';

declare module 'fastify' {
  interface FastifyContextConfig {
    /**
     * A route that answers every path below it (pages named by a path of any
     * depth). It is left out of this table: it serves one method at paths that
     * do not exist, and must not make every other method there a 405.
     */
    catchAll?: boolean;
    /** The surface (scoped plugin) the route belongs to; set by `registerSurface`. */
    surface?: string;
  }
}

const KNOWN_METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'] as const;

/**
 * A shadow of the server's routes. Fastify answers a known path with an unknown
 * method as "not found"; this table lets the not-found handler tell the two apart
 * and answer 405 with an Allow header, as HTTP asks. It also knows which surface
 * owns an address no route answers, so the 404 or 405 there takes that surface's
 * shape: the surface that serves routes at the path, else the one that claimed
 * the path's prefix, else nobody (the service's own renderer answers).
 */
export class RouteTable {
  private readonly router = FindMyWay({ ignoreTrailingSlash: false, caseSensitive: true });
  /** Paths and claimed patterns, each once, to find an address's owner by. */
  private readonly owners = FindMyWay({ ignoreTrailingSlash: false, caseSensitive: true });
  private readonly rendererOf = new Map<string, ErrorRenderer>();

  /** Records every route registered on the server from now on, in every plugin. */
  track(app: FastifyInstance): void {
    app.addHook('onRoute', (route) => {
      if (route.config?.catchAll) return;
      const methods = (
        Array.isArray(route.method) ? route.method : [route.method]
      ) as HTTPMethods[];
      for (const method of methods) {
        const upper = method.toUpperCase();
        if ((KNOWN_METHODS as readonly string[]).includes(upper) && !this.has(upper, route.url)) {
          this.router.on(upper as (typeof KNOWN_METHODS)[number], route.url, () => {});
        }
      }
    });
  }

  /**
   * Makes `render` the answer for unrouted requests at `pattern`: a route's path
   * (`/profile/:id`) or a claimed prefix (`/api/*`, `/*` for every address no
   * other pattern matches).
   */
  own(pattern: string, render: ErrorRenderer): void {
    if (!this.owners.hasRoute('GET', pattern)) {
      this.owners.on('GET', pattern, () => {}, { pattern });
    }
    this.rendererOf.set(pattern, render);
  }

  /** The renderer of the surface owning this request URL, if any surface does. */
  ownerOf(url: string): ErrorRenderer | undefined {
    const found = this.owners.find('GET', url.split('?')[0] ?? url);
    const pattern = (found?.store as { pattern?: string } | undefined)?.pattern;
    return pattern === undefined ? undefined : this.rendererOf.get(pattern);
  }

  /** The methods served at this request URL, in a stable order. */
  methodsFor(url: string): string[] {
    const path = url.split('?')[0] ?? url;
    return KNOWN_METHODS.filter((method) => this.router.find(method, path) !== null);
  }

  private has(method: string, url: string): boolean {
    return this.router.hasRoute(method as (typeof KNOWN_METHODS)[number], url);
  }
}
