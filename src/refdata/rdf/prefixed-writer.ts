import { type Quad, Writer } from 'n3';

/**
 * Turtle and TriG for one small document, with a fixed set of prefixes prepared
 * once instead of for every document.
 *
 * Why: n3's `Writer` escapes every prefix for its matcher and compiles that
 * matcher anew in each writer. For one dereferenced class (a dozen triples, ten
 * prefixes) that was two thirds of the writing: about 25 of 35 µs.
 *
 * How, without writing Turtle ourselves: one template writer is made by n3 with
 * the prefixes, its `@prefix` block taken as the header, and its prefix table
 * and matcher are handed to each new writer, which n3 then uses exactly as if
 * it had built them (a matcher without the global flag keeps no state between
 * calls, so sharing it is safe). These are n3's private fields; `preparePrefixes`
 * checks their shape and, should an n3 release rename them, falls back to plain
 * writers. A unit test compares the output with a plain writer's for the
 * shapes a resource takes.
 */
interface PrefixFields {
  _prefixIRIs: Record<string, string>;
  _prefixRegex: RegExp | null;
  _hasPrefixes: boolean;
  _createPrefixRegex?: () => RegExp;
}

export interface PreparedPrefixes {
  /** The `@prefix` block, with its closing blank line, as n3 writes it. */
  readonly header: string;
  /** Whether writers share the template's matcher (false: n3 changed, plain writers). */
  readonly shared: boolean;
  /** Writes `quads` as one Turtle or TriG document, header included. */
  write(quads: readonly Quad[], format: 'Turtle' | 'TriG'): Promise<string>;
}

export function preparePrefixes(prefixes: Readonly<Record<string, string>>): PreparedPrefixes {
  const template = new Writer({ format: 'Turtle', prefixes }) as unknown as PrefixFields;
  const shared = sharedFields(template);
  let header = '';
  (template as unknown as Writer).end((_error, result: string) => {
    header = result;
  });
  if (!shared) return plainWriters(prefixes, header);
  return {
    header,
    shared: true,
    write(quads, format) {
      const writer = new Writer({ format });
      Object.assign(writer as unknown as PrefixFields, shared);
      return writeAll(writer, quads, header);
    },
  };
}

function sharedFields(template: PrefixFields): PrefixFields | undefined {
  const iris = template._prefixIRIs;
  if (typeof template._createPrefixRegex !== 'function' || typeof iris !== 'object' || !iris)
    return undefined;
  const matcher = template._createPrefixRegex();
  if (!(matcher instanceof RegExp) || matcher.global || matcher.sticky) return undefined;
  if (template._prefixRegex !== matcher || template._hasPrefixes !== true) return undefined;
  return { _prefixIRIs: iris, _prefixRegex: matcher, _hasPrefixes: true };
}

function plainWriters(
  prefixes: Readonly<Record<string, string>>,
  header: string,
): PreparedPrefixes {
  return {
    header,
    shared: false,
    write: (quads, format) => writeAll(new Writer({ format, prefixes }), quads),
  };
}

/** Writes `quads` through a writer with no stream of its own, and answers its text after `header`. */
export function writeAll(writer: Writer, quads: readonly Quad[], header = ''): Promise<string> {
  writer.addQuads(quads as Quad[]);
  return new Promise((resolve, reject) =>
    writer.end((error, result: string) => (error ? reject(error) : resolve(header + result))),
  );
}
