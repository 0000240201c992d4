/**
 * A record's own entry for a key that came from outside (a path segment, a claim
 * name): `record[key]` would also find `constructor`, `__proto__` and the rest of
 * Object.prototype.
 */
export function ownEntry<T>(record: Readonly<Record<string, T>>, key: string): T | undefined {
  return Object.hasOwn(record, key) ? record[key] : undefined;
}
