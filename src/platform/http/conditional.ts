import { hash } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';

/** Whether `If-None-Match` names `etag` (or is `*`); weak tags compare by their value. */
export function matchesIfNoneMatch(header: string | undefined, etag: string): boolean {
  if (header === undefined) return false;
  if (header.trim() === '*') return true;
  return header.split(',').some((tag) => tag.trim().replace(/^W\//, '') === etag);
}

/** A strong validator for a representation: its bytes' SHA-256, shortened. */
export function etagOf(body: string): string {
  return `"${hash('sha256', body, 'base64url').slice(0, 27)}"`;
}

/**
 * Sends a cacheable JSON document with validators (RFC 9110 section 8.8):
 * `ETag` from its bytes, `Last-Modified` when its source says when it changed,
 * and 304 to a client that holds it already (`If-None-Match`, or else
 * `If-Modified-Since`, as section 13.2.2 orders them).
 */
export function sendWithValidators(
  request: FastifyRequest,
  reply: FastifyReply,
  options: { body: string; contentType: string; lastModified?: number },
): FastifyReply {
  const etag = etagOf(options.body);
  reply.header('etag', etag);
  const lastModified =
    options.lastModified === undefined ? undefined : Math.floor(options.lastModified / 1000) * 1000;
  if (lastModified !== undefined)
    reply.header('last-modified', new Date(lastModified).toUTCString());
  const noneMatch = request.headers['if-none-match'];
  const since = Date.parse(request.headers['if-modified-since'] ?? '');
  const fresh =
    noneMatch !== undefined
      ? matchesIfNoneMatch(noneMatch, etag)
      : lastModified !== undefined && !Number.isNaN(since) && lastModified <= since;
  if (fresh) return reply.status(304).send();
  return reply.type(options.contentType).send(options.body);
}

/**
 * A handler for a JSON document fixed for the life of the process (a discovery
 * document): written once, dated from when it was, cacheable for `maxAgeSeconds`.
 */
export function fixedJsonDocument(value: unknown, maxAgeSeconds: number) {
  const body = JSON.stringify(value);
  const builtAt = Date.now();
  return async (request: FastifyRequest, reply: FastifyReply) =>
    sendWithValidators(request, reply.header('cache-control', `public, max-age=${maxAgeSeconds}`), {
      body,
      contentType: 'application/json; charset=utf-8',
      lastModified: builtAt,
    });
}
