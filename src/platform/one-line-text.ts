/**
 * Characters no one-line text (a person's name) holds: the C0 and C1 controls,
 * tab, line feed and carriage return among them, DEL, and Unicode's line and
 * paragraph separators. A line break in a name would fake a line wherever the
 * name is shown: a mail's header or body, a log, a page.
 */
// biome-ignore lint/suspicious/noControlCharactersInRegex: finding control characters is this pattern's job
const NOT_IN_ONE_LINE = /[\u0000-\u001F\u007F-\u009F\u2028\u2029]/;

/** The first character one-line text may not hold, as `U+000A`; undefined when there is none. */
export function controlCharacterIn(value: string): string | undefined {
  const found = NOT_IN_ONE_LINE.exec(value)?.[0];
  return found === undefined
    ? undefined
    : `U+${(found.codePointAt(0) ?? 0).toString(16).toUpperCase().padStart(4, '0')}`;
}
