import type { FastifyInstance, HTTPMethods } from 'fastify';
import FindMyWay from 'find-my-way';

declare module 'fastify' {
  interface FastifyContextConfig {
    /**
     * A route that answers every path below it (pages named by a path of any
     * depth). It is left out of this table: it serves one method at paths that
     * do not exist, and must not make every other method there a 405.
     */
    catchAll?: boolean;
  }
}

const KNOWN_METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'] as const;

/**
 * A shadow of the server's routes. Fastify answers a known path with an unknown
 * method as "not found"; this table lets the not-found handler tell the two apart
 * and answer 405 with an Allow header, as HTTP asks.
 */
export class RouteTable {
  private readonly router = FindMyWay({ ignoreTrailingSlash: false, caseSensitive: true });

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

  /** The methods served at this request URL, in a stable order. */
  methodsFor(url: string): string[] {
    const path = url.split('?')[0] ?? url;
    return KNOWN_METHODS.filter((method) => this.router.find(method, path) !== null);
  }

  private has(method: string, url: string): boolean {
    return this.router.hasRoute(method as (typeof KNOWN_METHODS)[number], url);
  }
}
