/** One field that differs between two bodies, named by its JSON pointer. */
export interface Change {
  pointer: string;
  before: string | undefined;
  after: string | undefined;
}

/** A JSON pointer one step below `parent` (RFC 6901's escapes). */
export function pointerTo(parent: string, step: string | number): string {
  return `${parent}/${String(step).replaceAll('~', '~0').replaceAll('/', '~1')}`;
}

/** Every scalar of a JSON value by its pointer, as text. */
function flatten(value: unknown, pointer: string, into: Map<string, string>): Map<string, string> {
  if (Array.isArray(value)) {
    for (const [index, item] of value.entries()) flatten(item, pointerTo(pointer, index), into);
  } else if (value !== null && typeof value === 'object') {
    for (const [name, item] of Object.entries(value)) flatten(item, pointerTo(pointer, name), into);
  } else if (value !== undefined && value !== null) {
    into.set(pointer, String(value));
  }
  return into;
}

/** What changed from `before` to `after`, field by field, in the order fields appear. */
export function changesBetween(before: unknown, after: unknown): Change[] {
  const old = flatten(before, '', new Map());
  const now = flatten(after, '', new Map());
  const pointers = [...new Set([...now.keys(), ...old.keys()])];
  return pointers
    .filter((pointer) => old.get(pointer) !== now.get(pointer))
    .map((pointer) => ({ pointer, before: old.get(pointer), after: now.get(pointer) }));
}
