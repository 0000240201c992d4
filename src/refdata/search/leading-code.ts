export const LEADING_CHARACTERS = 4;

/**
 * A text's first four characters, a byte each (the low byte of its code), the
 * first in the highest byte and missing ones as 0. Two texts of which one
 * starts with the other have the same leading bytes; the converse need not
 * hold, so an equal code only says that the strings are worth comparing.
 */
export function leadingCode(text: string): number {
  let code = 0;
  for (let i = 0; i < LEADING_CHARACTERS; i += 1)
    code = (code << 8) | (i < text.length ? text.charCodeAt(i) & 0xff : 0);
  return code >>> 0;
}
