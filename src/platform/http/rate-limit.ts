import rateLimit, { type FastifyRateLimitStore } from '@fastify/rate-limit';
import type { FastifyInstance } from 'fastify';
import type { CounterStore } from '../security/counters.js';
import { HttpError, problem } from './problem.js';

/**
 * Per-address limits for the routes that opt in with `config: { rateLimit: {...} }`,
 * counted in the service's database so that all instances share one count. The
 * limit answers 429 in the service's own error shape, with `Retry-After`.
 */
export async function registerRateLimiting(
  app: FastifyInstance,
  counters: CounterStore,
): Promise<void> {
  await app.register(rateLimit, {
    global: false,
    store: databaseStore(counters),
    // A database hiccup must not lock everyone out of signing in.
    skipOnError: true,
    keyGenerator: (request) => request.ip,
    errorResponseBuilder: (_request, context) => {
      const seconds = Math.max(1, Math.ceil(context.ttl / 1000));
      return tooManyRequests(`Too many requests; try again in ${seconds} seconds.`, seconds);
    },
  });
}

/** 429 `rate-limited`, saying why in `detail`, and when to come back in `Retry-After`. */
export function tooManyRequests(detail: string, seconds: number): HttpError {
  return new HttpError(
    problem(429, 'rate-limited', detail, { headers: { 'retry-after': String(seconds) } }),
  );
}

function databaseStore(counters: CounterStore) {
  const store = (prefix: string): FastifyRateLimitStore => ({
    incr(key, callback, timeWindow) {
      counters.hit(`${prefix}${key}`, timeWindow).then(
        (state) => callback(null, { current: state.count, ttl: state.resetsInMs }),
        (error: Error) => callback(error),
      );
    },
    // Each route counts on its own, so signing in does not use up the token endpoint.
    // The plugin passes the route's merged limit settings, with the route under
    // `routeInfo` (its typings say the route itself).
    child: (settings) => {
      const route = (settings as { routeInfo?: { method?: unknown; url?: unknown } }).routeInfo;
      return store(`ip:${String(route?.method)}:${String(route?.url)}:`);
    },
  });
  return class DatabaseRateLimitStore {
    constructor() {
      // biome-ignore lint/correctness/noConstructorReturn: the plugin instantiates the class it is given.
      return store('ip:global:');
    }
  } as unknown as new () => FastifyRateLimitStore;
}
