import JSZip from 'jszip';
import type { SourceTable } from './cfihos-tables.js';
import { CsvReadError, type Encoding, readCsv } from './csv-table.js';
import { readWorkbook, WorkbookReadError } from './workbook.js';

/** A file as uploaded: its name and its bytes. */
export interface UploadedFile {
  name: string;
  bytes: Buffer;
}

/** Why a file could not be read at all, with where when known. */
export class UnreadableFile extends Error {
  override readonly name: string = 'UnreadableFile';
  constructor(
    readonly file: string,
    message: string,
    readonly line?: number,
    readonly column?: number,
  ) {
    super(message);
  }
}

/** A file read: its tables, and how its text was decoded (CSV). */
export interface ReadFile {
  name: string;
  tables: SourceTable[];
  encoding?: string;
  encodingFrom?: string;
  /** Records left out for being blank (every field empty). */
  blankRecords: number;
  records: number;
}

/** A ZIP archive (an `.xlsx` workbook is one): its first bytes say so whatever its name. */
function isZip(bytes: Buffer): boolean {
  return bytes.subarray(0, 4).equals(Buffer.from([0x50, 0x4b, 0x03, 0x04]));
}

/** The most CSV files one ZIP archive may hold. */
const MAX_ZIPPED_FILES = 50;

/** What the archives of one upload may unpack to together (docs/import.md). */
export const UNPACK_LIMIT_BYTES = 512 * 1024 * 1024;

/** An upload that unpacks, or would need memory, beyond what this service gives one: a 413. */
export class TooLargeToRead extends UnreadableFile {
  override readonly name = 'TooLargeToRead';
}

/**
 * What the ZIP archives of one upload may unpack to together: a small archive
 * may unpack to gigabytes. The sizes the archive declares are looked at
 * first (an honest bomb is refused before anything is unpacked), and what is
 * inflated is counted as it comes, so an archive whose headers under-declare
 * is stopped at the limit, not after.
 */
export class UnpackBudget {
  constructor(public left = UNPACK_LIMIT_BYTES) {}

  private refuse(file: string): TooLargeToRead {
    return new TooLargeToRead(
      file,
      `${file}: unpacks to more than ${UNPACK_LIMIT_BYTES / 1024 / 1024} MiB, the most this service unpacks from one upload`,
    );
  }

  /** Refuses an archive whose declared sizes already exceed what is left. */
  expect(file: string, declared: number): void {
    if (declared > this.left) throw this.refuse(file);
  }

  spend(file: string, bytes: number): void {
    this.left -= bytes;
    if (this.left < 0) throw this.refuse(file);
  }
}

/** JSZip's documented `internalStream`, which its type declarations leave out. */
interface InternalStreams {
  internalStream(type: 'nodebuffer'): StreamHelper;
}
interface StreamHelper {
  on(event: 'data', listener: (chunk: Buffer) => void): StreamHelper;
  on(event: 'error', listener: (error: Error) => void): StreamHelper;
  on(event: 'end', listener: () => void): StreamHelper;
  pause(): StreamHelper;
  resume(): StreamHelper;
}

/**
 * An entry inflated chunk by chunk, each counted as it comes; kept when
 * `keep`, else only counted (a workbook's parts, which the workbook reader
 * unpacks again once they are known to fit).
 */
async function inflated(
  file: string,
  entry: JSZip.JSZipObject,
  budget: UnpackBudget,
  keep: boolean,
): Promise<Buffer> {
  const chunks: Buffer[] = [];
  // JSZip's own stream (StreamHelper) inflates a chunk at a time and can be paused.
  const helper = (entry as unknown as InternalStreams).internalStream('nodebuffer');
  await new Promise<void>((resolve, reject) => {
    helper
      .on('data', (chunk: Buffer) => {
        try {
          budget.spend(file, chunk.length);
        } catch (error) {
          helper.pause();
          reject(error);
          return;
        }
        if (keep) chunks.push(chunk);
      })
      .on('error', () => {
        // JSZip also ends here when an entry is longer than its header said.
        reject(
          new UnreadableFile(
            file,
            `${file}: ${entry.name} cannot be unpacked (a damaged archive?)`,
          ),
        );
      })
      .on('end', () => resolve())
      .resume();
  });
  return Buffer.concat(chunks);
}

/** What a ZIP entry says it unpacks to (JSZip keeps it from the archive's directory). */
function declaredSize(entry: JSZip.JSZipObject): number {
  return (
    (entry as unknown as { _data?: { uncompressedSize?: number } })._data?.uncompressedSize ?? 0
  );
}

/** Files a ZIP tool adds beside the real ones (macOS's resource forks). */
function isClutter(name: string): boolean {
  return name.startsWith('__MACOSX/') || /(^|\/)\._/.test(name);
}

/**
 * A ZIP archive: the sheets of a workbook (`.xlsx`), or its CSV files (an
 * export of the CSV set), each read as a file of its own.
 */
async function readZip(
  file: UploadedFile,
  budget: UnpackBudget,
  encoding?: Encoding,
): Promise<ReadFile> {
  let zip: JSZip;
  try {
    zip = await JSZip.loadAsync(file.bytes);
  } catch {
    throw new UnreadableFile(file.name, `${file.name}: is not a ZIP archive or an .xlsx workbook`);
  }
  const entries = Object.values(zip.files).filter((entry) => !entry.dir && !isClutter(entry.name));
  if (zip.file('xl/workbook.xml')) {
    budget.expect(
      file.name,
      entries.reduce((sum, entry) => sum + declaredSize(entry), 0),
    );
    for (const entry of entries) await inflated(file.name, entry, budget, false);
    const sheets = await readWorkbook(file.name, file.bytes);
    return {
      name: file.name,
      tables: sheets.map((sheet) => ({
        source: `${file.name} › ${sheet.sheet}`,
        header: sheet.header,
        records: sheet.records,
      })),
      blankRecords: 0,
      records: sheets.reduce((sum, sheet) => sum + sheet.records.length, 0),
    };
  }
  const csvs = entries.filter((entry) => entry.name.toLowerCase().endsWith('.csv'));
  if (csvs.length === 0) throw new UnreadableFile(file.name, `${file.name}: holds no CSV file`);
  if (csvs.length > MAX_ZIPPED_FILES)
    throw new UnreadableFile(
      file.name,
      `${file.name}: holds more than ${MAX_ZIPPED_FILES} CSV files`,
    );
  budget.expect(
    file.name,
    csvs.reduce((sum, entry) => sum + declaredSize(entry), 0),
  );
  const read: ReadFile = { name: file.name, tables: [], blankRecords: 0, records: 0 };
  for (const entry of csvs) {
    const bytes = await inflated(file.name, entry, budget, true);
    const table = readCsv(`${file.name} › ${entry.name}`, bytes, encoding);
    read.tables.push({
      source: table.file,
      header: table.header,
      records: table.records,
      csv: true,
    });
    read.blankRecords += table.blankLines.length;
    read.records += table.records.length;
    read.encoding ??= table.encoding;
    read.encodingFrom ??= table.encodingFrom;
  }
  return read;
}

/**
 * Reads an uploaded file as tables: a workbook sheet by sheet, a ZIP archive
 * file by file, anything else as CSV text in its encoding (or the one
 * chosen). A file that cannot be read is refused whole, saying where.
 */
export async function readUploadedFile(
  file: UploadedFile,
  encoding?: Encoding,
  budget = new UnpackBudget(),
): Promise<ReadFile> {
  try {
    if (isZip(file.bytes)) return await readZip(file, budget, encoding);
    const table = readCsv(file.name, file.bytes, encoding);
    return {
      name: file.name,
      tables: [{ source: file.name, header: table.header, records: table.records, csv: true }],
      encoding: table.encoding,
      encodingFrom: table.encodingFrom,
      blankRecords: table.blankLines.length,
      records: table.records.length,
    };
  } catch (error) {
    if (error instanceof CsvReadError)
      throw new UnreadableFile(file.name, error.message, error.line, error.column);
    if (error instanceof WorkbookReadError)
      throw new UnreadableFile(file.name, error.message, error.line, error.column);
    throw error;
  }
}
