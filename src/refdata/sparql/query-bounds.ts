/**
 * The bounds a query text is held to on the thread that serves requests,
 * before any parser sees it: how deeply its brackets nest. It is read by one
 * pass over the characters, without recursion, so that a hostile text costs
 * the request thread a few microseconds per kilobyte and nothing more.
 *
 * Why depth: every SPARQL parser at hand recurses on nesting. Oxigraph's
 * overflows its fixed stack inside WebAssembly a few hundred levels down, and
 * the overflow corrupts the engine for every later query; SPARQL.js spends
 * time quadratic in the depth (22 s at 3,200 levels). No query a person or a
 * tool writes nests `{`, `(` and `[` anywhere near `MAX_NESTING` deep.
 */

/** How deeply `{`, `(` and `[` may nest, together (docs/sparql.md#limits). */
export const MAX_NESTING = 64;

/** Where in the text: one-based, as editors count. */
export interface TextPosition {
  line: number;
  column: number;
}

const OPENERS = new Set(['{', '(', '[']);
const CLOSERS: Record<string, string> = { '}': '{', ')': '(', ']': '[' };
/** An IRI reference as SPARQL's grammar has it (IRIREF): `<` then no space, quote or bracket. */
// biome-ignore lint/suspicious/noControlCharactersInRegex: the grammar excludes the control characters from IRIs
const IRI_REFERENCE = /<[^<>"{}|^`\\\u0000-\u0020]*>/y;

export type Brackets =
  | { balanced: true; deepest: number }
  /** `position` is where the limit was passed (`too-deep`), or the bracket that fails to pair. */
  | {
      balanced: false;
      why: 'too-deep' | 'unclosed' | 'unopened' | 'mismatched';
      bracket: string;
      position: TextPosition;
    };

/**
 * Reads the brackets of `text` outside strings, IRIs and comments: how deep
 * they nest, and whether they pair. Stops at the first bracket past
 * `maxNesting`, so the cost is one pass at most.
 */
export function readBrackets(text: string, maxNesting = MAX_NESTING): Brackets {
  const open: { bracket: string; at: number; line: number; column: number }[] = [];
  let deepest = 0;
  let line = 1;
  let lineStart = 0;
  let at = 0;
  const here = (offset: number): TextPosition => ({ line, column: offset - lineStart + 1 });
  while (at < text.length) {
    const character = text[at] as string;
    if (character === '\n') {
      line += 1;
      lineStart = at + 1;
      at += 1;
    } else if (character === '#') {
      const end = text.indexOf('\n', at);
      at = end === -1 ? text.length : end;
    } else if (character === '"' || character === "'") {
      at = skipString(text, at, (offset) => {
        line += 1;
        lineStart = offset + 1;
      });
    } else if (character === '<') {
      IRI_REFERENCE.lastIndex = at;
      // Not an IRI: the comparison operator.
      at = IRI_REFERENCE.test(text) ? IRI_REFERENCE.lastIndex : at + 1;
    } else if (OPENERS.has(character)) {
      open.push({ bracket: character, at, ...here(at) });
      if (open.length > maxNesting)
        return { balanced: false, why: 'too-deep', bracket: character, position: here(at) };
      deepest = Math.max(deepest, open.length);
      at += 1;
    } else if (character in CLOSERS) {
      const opened = open.pop();
      if (!opened)
        return { balanced: false, why: 'unopened', bracket: character, position: here(at) };
      if (opened.bracket !== CLOSERS[character]) {
        return {
          balanced: false,
          why: 'mismatched',
          bracket: opened.bracket,
          position: { line: opened.line, column: opened.column },
        };
      }
      at += 1;
    } else at += 1;
  }
  const unclosed = open.pop();
  if (unclosed) {
    return {
      balanced: false,
      why: 'unclosed',
      bracket: unclosed.bracket,
      position: { line: unclosed.line, column: unclosed.column },
    };
  }
  return { balanced: true, deepest };
}

/**
 * The offset after the string starting at `start` (`'…'`, `"…"`, `'''…'''`
 * or `"""…"""`, with backslash escapes); the text's end when it is not
 * closed. `onLineBreak` hears of each line break inside it.
 */
function skipString(text: string, start: number, onLineBreak: (offset: number) => void): number {
  const quote = text[start] as string;
  const long = text.startsWith(quote.repeat(3), start);
  const closing = long ? quote.repeat(3) : quote;
  let at = start + closing.length;
  while (at < text.length) {
    const character = text[at];
    if (character === '\\') at += 2;
    else if (text.startsWith(closing, at)) return at + closing.length;
    else {
      // A short string ends at the line's end: SPARQL allows no line break in it.
      if (character === '\n') {
        if (!long) return at;
        onLineBreak(at);
      }
      at += 1;
    }
  }
  return text.length;
}

/** How the bracket that fails to pair is said, in words. */
export function bracketsInWords(brackets: Exclude<Brackets, { balanced: true }>): string {
  const where = `line ${brackets.position.line}, column ${brackets.position.column}`;
  // Said first in a sentence: the position leads, as in every other syntax message.
  const at = `Line ${brackets.position.line}, column ${brackets.position.column}`;
  switch (brackets.why) {
    case 'too-deep':
      return `The query nests brackets more than ${MAX_NESTING} deep (the “${brackets.bracket}” at ${where}); this endpoint reads up to ${MAX_NESTING} levels of “{”, “(” and “[”.`;
    case 'unclosed':
      return `${at}: this “${brackets.bracket}” is never closed.`;
    case 'unopened':
      return `${at}: this “${brackets.bracket}” closes nothing; no bracket is open there.`;
    case 'mismatched':
      return `${at}: this “${brackets.bracket}” is closed by a bracket of another kind.`;
  }
}
