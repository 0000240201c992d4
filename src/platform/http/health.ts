import { Type } from '@sinclair/typebox';
import type { HttpApp } from './server.js';

const READINESS_TIMEOUT_MS = 2000;

const Health = Type.Object({ status: Type.Literal('ok') });
const Readiness = Type.Object({
  status: Type.Union([Type.Literal('ok'), Type.Literal('unavailable')]),
  database: Type.Union([Type.Literal('ok'), Type.Literal('unreachable')]),
});

/** Liveness says the process answers; readiness also proves the database does. */
export function registerHealthRoutes(app: HttpApp, pingDatabase: () => Promise<void>): void {
  const tags = ['operations'];
  app.get(
    '/-/health',
    { schema: { tags, summary: 'Liveness: the process answers', response: { 200: Health } } },
    async () => ({ status: 'ok' as const }),
  );
  app.get(
    '/-/ready',
    {
      schema: {
        tags,
        summary: 'Readiness: the database is reachable',
        response: { 200: Readiness, 503: Readiness },
      },
    },
    async (request, reply) => {
      reply.header('cache-control', 'no-store');
      try {
        await withTimeout(pingDatabase(), READINESS_TIMEOUT_MS);
        return { status: 'ok' as const, database: 'ok' as const };
      } catch (error) {
        request.log.warn({ err: error }, 'readiness check failed: database unreachable');
        return reply.status(503).send({ status: 'unavailable', database: 'unreachable' });
      }
    },
  );
}

async function withTimeout<T>(promise: Promise<T>, milliseconds: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new Error(`no answer within ${milliseconds} ms`)),
      milliseconds,
    );
  });
  try {
    return await Promise.race([promise, timeout]);
  } finally {
    clearTimeout(timer);
  }
}
