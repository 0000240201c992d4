import { analyse } from 'chardet';
import { CsvError } from 'csv-parse';
import { parse } from 'csv-parse/sync';
import iconv from 'iconv-lite';

/** Encodings a file may be read in, when the person importing names one. */
export const ENCODINGS = ['utf-8', 'windows-1252', 'iso-8859-1', 'utf-16le', 'utf-16be'] as const;
export type Encoding = (typeof ENCODINGS)[number];

/** A CSV file as read: its encoding, its header and its records, each with where it began. */
export interface CsvTable {
  file: string;
  encoding: Encoding;
  /** How the encoding was known: a byte-order mark, valid UTF-8, a guess from the bytes, or the person's choice. */
  encodingFrom: 'byte-order mark' | 'valid UTF-8' | 'detected' | 'chosen';
  header: string[];
  records: { line: number; values: string[] }[];
  /** Lines of records whose every field is empty (`,,,`): blank rows, as a spreadsheet has them, left out. */
  blankLines: number[];
}

/** Why a file could not be read, and where: the line (1 is the header) and the column, when known. */
export class CsvReadError extends Error {
  override readonly name = 'CsvReadError';
  constructor(
    readonly file: string,
    readonly reason: string,
    readonly line?: number,
    readonly column?: number,
  ) {
    super(
      `${file}${line === undefined ? '' : `, line ${line}`}${column === undefined ? '' : `, column ${column}`}: ${reason}`,
    );
  }
}

const BOMS: [Buffer, Encoding][] = [
  [Buffer.from([0xef, 0xbb, 0xbf]), 'utf-8'],
  [Buffer.from([0xff, 0xfe]), 'utf-16le'],
  [Buffer.from([0xfe, 0xff]), 'utf-16be'],
];

const STRICT_UTF8 = new TextDecoder('utf-8', { fatal: true });

/**
 * The file's text and the encoding it was read in. A byte-order mark says it;
 * bytes that are valid UTF-8 are UTF-8 (what other encoding's text is valid
 * UTF-8 by chance is vanishingly rare); otherwise the detector's best
 * single-byte guess, where ISO-8859-1 is read as Windows-1252, its superset,
 * as browsers do (the CFIHOS files are Windows-1252: `m²`, `°C`).
 */
export function decodeText(
  file: string,
  bytes: Buffer,
  chosen?: Encoding,
): { text: string; encoding: Encoding; encodingFrom: CsvTable['encodingFrom'] } {
  const bom = BOMS.find(([mark]) => bytes.subarray(0, mark.length).equals(mark));
  if (chosen) {
    const body = bom && bom[1] === chosen ? bytes.subarray(bom[0].length) : bytes;
    return { text: strictlyDecoded(file, body, chosen), encoding: chosen, encodingFrom: 'chosen' };
  }
  if (bom) {
    const [mark, encoding] = bom;
    return {
      text: iconv.decode(bytes.subarray(mark.length), encoding),
      encoding,
      encodingFrom: 'byte-order mark',
    };
  }
  try {
    return { text: STRICT_UTF8.decode(bytes), encoding: 'utf-8', encodingFrom: 'valid UTF-8' };
  } catch {
    // Not UTF-8: a single-byte encoding, guessed below.
  }
  const [best] = analyse(sampleOf(bytes));
  const guessed = best?.name.toLowerCase();
  if (guessed === 'utf-16le' || guessed === 'utf-16be') {
    return { text: iconv.decode(bytes, guessed), encoding: guessed, encodingFrom: 'detected' };
  }
  if (bytes.includes(0)) {
    throw new CsvReadError(file, 'is not text: it holds NUL bytes');
  }
  if (guessed && !LATIN.has(guessed)) {
    throw new CsvReadError(
      file,
      `is not UTF-8, and looks like ${best?.name}, which is not read here; save it as UTF-8 or choose its encoding among ${ENCODINGS.join(', ')}`,
    );
  }
  return {
    text: iconv.decode(bytes, 'windows-1252'),
    encoding: 'windows-1252',
    encodingFrom: 'detected',
  };
}

/** The Unicode encodings, read strictly: a byte that does not decode is refused, never U+FFFD. */
const STRICT: Partial<Record<Encoding, InstanceType<typeof TextDecoder>>> = {
  'utf-8': STRICT_UTF8,
  'utf-16le': new TextDecoder('utf-16le', { fatal: true }),
  'utf-16be': new TextDecoder('utf-16be', { fatal: true }),
};

/**
 * Text in the encoding the person chose. UTF-8 and UTF-16 are read strictly:
 * bytes that do not decode are refused, naming the line and column of the
 * first, rather than stored as U+FFFD. (Windows-1252 and ISO-8859-1 give
 * every byte a character.)
 */
function strictlyDecoded(file: string, bytes: Buffer, chosen: Encoding): string {
  const strict = STRICT[chosen];
  if (!strict) return iconv.decode(bytes, chosen);
  try {
    return strict.decode(bytes);
  } catch {
    // Where: the longest start that decodes, then its line and column.
    let good = 0;
    let bad = bytes.length;
    while (bad - good > 1) {
      const middle = Math.floor((good + bad) / 2);
      if (decodesAsStart(strict, bytes.subarray(0, middle))) good = middle;
      else bad = middle;
    }
    const before = new TextDecoder(chosen).decode(bytes.subarray(0, good));
    const lineStart = before.lastIndexOf('\n') + 1;
    const line = before.slice(0, lineStart).split('\n').length;
    const byte = bytes[good] ?? 0;
    throw new CsvReadError(
      file,
      `is not ${chosen.toUpperCase()} at byte 0x${byte.toString(16).toUpperCase().padStart(2, '0')}; choose the encoding it is in (a file from Excel on Windows is most often windows-1252), or leave the choice out to have it detected`,
      line,
      [...before.slice(lineStart)].length + 1,
    );
  }
}

/** Whether `bytes` is the start of valid text: all of it decodes, but perhaps a character cut at the end. */
function decodesAsStart(strict: InstanceType<typeof TextDecoder>, bytes: Buffer): boolean {
  try {
    // `stream: true` lets a character cut at the end wait for bytes that never come.
    new TextDecoder(strict.encoding, { fatal: true }).decode(bytes, { stream: true });
    return true;
  } catch {
    return false;
  }
}

/** How much of a file the detector reads: what tells encodings apart is its bytes past ASCII. */
const SAMPLE_BYTES = 16 * 1024;

/**
 * The part of a file the encoding is guessed from: its start, and the bytes
 * from its first one past ASCII on (the whole of a 400 KB file took chardet
 * a tenth of a second; a sample tells the same).
 */
function sampleOf(bytes: Buffer): Buffer {
  if (bytes.length <= SAMPLE_BYTES * 2) return bytes;
  const first = bytes.findIndex((byte) => byte >= 0x80);
  if (first === -1 || first < SAMPLE_BYTES) return bytes.subarray(0, SAMPLE_BYTES * 2);
  return Buffer.concat([
    bytes.subarray(0, 4096),
    bytes.subarray(Math.max(0, first - 1024), first + SAMPLE_BYTES),
  ]);
}

/** What the detector may call a file in a Western single-byte encoding (read as Windows-1252). */
const LATIN = new Set(['windows-1252', 'iso-8859-1', 'iso-8859-15', 'ascii']);

/** Where a parser error points: its line, and the column counted from 1 when it says. */
function positionOf(error: CsvError): { line?: number; column?: number } {
  const line = typeof error.lines === 'number' ? error.lines : undefined;
  const column = typeof error.column === 'number' ? error.column + 1 : undefined;
  return { ...(line === undefined ? {} : { line }), ...(column === undefined ? {} : { column }) };
}

/**
 * Reads a CSV file: decoded (`decodeText`), parsed by RFC 4180's rules
 * (quoted fields may hold commas, quotes and line breaks), empty lines
 * and blank records (every field empty) left out, every record as wide as the header. A record that cannot be read
 * is an error naming its line and column; nothing is guessed.
 */
export function readCsv(file: string, bytes: Buffer, chosen?: Encoding): CsvTable {
  const { text, encoding, encodingFrom } = decodeText(file, bytes, chosen);
  let rows: { record: string[]; info: { lines: number } }[];
  try {
    rows = parse(text, {
      info: true,
      skip_empty_lines: true,
      relax_quotes: false,
      max_record_size: MAX_RECORD_CHARACTERS,
    }) as unknown as {
      record: string[];
      info: { lines: number };
    }[];
  } catch (error) {
    if (!(error instanceof CsvError)) throw error;
    const { line, column } = positionOf(error);
    throw new CsvReadError(file, plainReason(error), line, column);
  }
  const [first, ...rest] = rows;
  if (!first) throw new CsvReadError(file, 'is empty: it has no header row');
  const header = first.record.map((name) => name.trim());
  if (header.some((name) => name === '')) {
    throw new CsvReadError(file, 'has a header with an empty column name', 1);
  }
  // A record's `lines` is where it ended; it began after the one before it.
  let previousEnd = first.info.lines;
  const records: CsvTable['records'] = [];
  const blankLines: number[] = [];
  for (const row of rest) {
    const line = previousEnd + 1;
    previousEnd = row.info.lines;
    if (row.record.every((value) => value.trim() === '')) blankLines.push(line);
    else records.push({ line, values: row.record });
  }
  return { file, encoding, encodingFrom, header, records, blankLines };
}

/**
 * The longest record read, in characters: far above any real one (CFIHOS's
 * longest definitions are a few thousand), and a bound on what one field that
 * never ends (a quote left open in a 50 MiB file) costs to read.
 */
export const MAX_RECORD_CHARACTERS = 1024 * 1024;

/** The parser's reason in words a person reads. */
function plainReason(error: CsvError): string {
  switch (error.code) {
    case 'CSV_MAX_RECORD_SIZE':
      return `has a record longer than ${MAX_RECORD_CHARACTERS} characters (1 MiB), the most this service reads in one; a quote left open?`;
    case 'CSV_RECORD_INCONSISTENT_FIELDS_LENGTH':
      return 'has a different number of fields than the header';
    case 'CSV_QUOTE_NOT_CLOSED':
      return 'has a quoted field that is never closed (a truncated file?)';
    case 'CSV_INVALID_CLOSING_QUOTE':
    case 'CSV_NON_TRIMABLE_CHAR_AFTER_CLOSING_QUOTE':
      return 'has a character after a closing quote; a quote inside a quoted field is written twice ("")';
    default:
      return error.message;
  }
}
