import { type ErrorRenderer, errorHandler } from './errors.js';
import type { HttpApp } from './server.js';

/** What a surface is: a name, its error shape, and the addresses it answers for. */
export interface SurfaceOptions {
  /** Set as the `surface` of each of its routes (the API description reads it). */
  name: string;
  /** How the surface's failures are put on the wire. */
  renderError: ErrorRenderer;
  /**
   * Address patterns whose unrouted requests (404, 405) this surface answers:
   * `/api/*` for every address below `/api/`, `/*` for every address no other
   * pattern claims.
   */
  claims?: readonly string[];
  /** The paths of its own routes answer an unknown method (405) in its shape too. */
  ownsItsPaths?: boolean;
}

/**
 * Registers one surface of a service (the API, the OAuth endpoints, the web
 * pages) as a scoped Fastify plugin: its routes get its error handler and
 * whatever hooks `plugin` adds, and nothing leaks to the surfaces beside it.
 * Inside, a route is plain `surface.get(path, { schema }, handler)`.
 */
export async function registerSurface(
  app: HttpApp,
  options: SurfaceOptions,
  plugin: (surface: HttpApp) => Promise<void> | void,
): Promise<void> {
  const routes = app.routeTable;
  for (const pattern of options.claims ?? []) routes.own(pattern, options.renderError);
  await app.register(async (surface: HttpApp) => {
    surface.setErrorHandler(errorHandler(options.renderError, routes));
    surface.addHook('onRoute', (route) => {
      route.config = { ...route.config, surface: options.name };
      if (options.ownsItsPaths && !route.config.catchAll) {
        routes.own(route.url, options.renderError);
      }
    });
    await plugin(surface);
  });
}
