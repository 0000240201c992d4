/**
 * One value of a request part (query, body) that the route's schema does not
 * declare: cross-cutting parameters such as a token any API route accepts, or
 * the notice a page shows after a redirect. What a route declares it reads
 * typed, from `request.query` and `request.body` directly.
 */
export function partValue(part: unknown, name: string): unknown {
  if (typeof part !== 'object' || part === null || !Object.hasOwn(part, name)) return undefined;
  return Reflect.get(part, name);
}
