import { bracketsInWords, readBrackets } from './query-bounds.js';
import { classify } from './query-form.js';

/** Where the engine stopped reading, and the rest of what it said. */
const ENGINE_POSITION = /^error at (\d+):(\d+):\s*([\s\S]*)$/;
/** What a word of SPARQL is made of: names, prefixed names, variables, numbers. */
const WORD = /^[?$]?[\p{L}\p{N}_:.-]*[\p{L}\p{N}_]|^\S/u;

/**
 * A syntax error in words: where (line and column, as editors count), what
 * stands there, and what would help, instead of the parser's list of the
 * tokens it could have read. `engineMessage` is the engine's
 * (`error at 1:27: expected one of ",", "." …`); when it names no position,
 * the brackets and the query's first keyword are all there is to go on.
 */
export function syntaxInWords(text: string, engineMessage: string): string {
  if (classify(text).kind === 'unknown') {
    return 'A query begins with SELECT, ASK, CONSTRUCT or DESCRIBE, after any PREFIX and BASE declarations.';
  }
  const brackets = readBrackets(text);
  const match = ENGINE_POSITION.exec(engineMessage);
  if (!match) {
    return brackets.balanced
      ? 'The query is not valid SPARQL 1.1.'
      : `The query is not valid SPARQL 1.1. ${bracketsInWords(brackets)}`;
  }
  const line = Number(match[1]);
  const column = Number(match[2]);
  const expected = match[3] ?? '';
  const where = `Line ${line}, column ${column}`;
  // Unpaired brackets say more than where the parser gave up, and have a position of their own.
  if (!brackets.balanced) return bracketsInWords(brackets);
  const found = wordAt(text, line, column);
  const before = wordBefore(text, line, column);
  if (/Prefix not found/.test(expected)) {
    const name = [before, found].find((word) => word?.includes(':')) ?? before ?? '';
    const prefix = name.slice(0, name.indexOf(':') + 1);
    return `${where}: the prefix “${prefix}” is not declared; add “PREFIX ${prefix} <…>” before the query.`;
  }
  if (/variable that is unbound/.test(expected)) {
    return `${where}: a variable is selected that the query neither groups by nor binds; with GROUP BY, select only grouped variables and aggregates such as (COUNT(?x) AS ?n).`;
  }
  if (found === undefined) {
    return `${where}: the query ends before it is complete, or a part before this point is not SPARQL.`;
  }
  if (found === '"' || found === "'") {
    return `${where}: this string is not closed (a string ends on the line it begins, unless it is written with three quotes).`;
  }
  return before
    ? `${where}: “${found}” is not expected here, after “${before}”.`
    : `${where}: “${found}” is not expected here.`;
}

/** The word that ends before a one-based line and column, on that line. */
function wordBefore(text: string, line: number, column: number): string | undefined {
  const start = (text.split('\n')[line - 1] ?? '').slice(0, column - 1).trimEnd();
  return /<[^<>\s]*>$|[?$]?[\p{L}\p{N}_:.-]*[\p{L}\p{N}_:]$|\S$/u.exec(start)?.[0].slice(-60);
}

/** The word or sign at a one-based line and column; undefined past the text's end. */
function wordAt(text: string, line: number, column: number): string | undefined {
  const lines = text.split('\n');
  const rest = (lines[line - 1] ?? '').slice(column - 1);
  const later = lines.slice(line).join('\n');
  const from = rest.trimStart() === '' ? later.trimStart() : rest;
  if (from === '') return undefined;
  return WORD.exec(from)?.[0].slice(0, 60);
}
