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
  override readonly name = 'UnreadableFile';
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

/** The most CSV files one ZIP archive may hold, and the most they may unpack to. */
const MAX_ZIPPED_FILES = 50;
const MAX_UNZIPPED_BYTES = 512 * 1024 * 1024;

/**
 * The CSV files of a ZIP archive (an export of the CSV set), each read as a
 * file of its own; an archive that holds a workbook is read as one.
 */
async function readZip(file: UploadedFile, encoding?: Encoding): Promise<ReadFile | undefined> {
  let zip: JSZip;
  try {
    zip = await JSZip.loadAsync(file.bytes);
  } catch {
    throw new UnreadableFile(file.name, `${file.name}: is not a ZIP archive or an .xlsx workbook`);
  }
  if (zip.file('xl/workbook.xml')) return undefined;
  const entries = Object.values(zip.files).filter(
    (entry) => !entry.dir && entry.name.toLowerCase().endsWith('.csv'),
  );
  if (entries.length === 0) throw new UnreadableFile(file.name, `${file.name}: holds no CSV file`);
  if (entries.length > MAX_ZIPPED_FILES)
    throw new UnreadableFile(
      file.name,
      `${file.name}: holds more than ${MAX_ZIPPED_FILES} CSV files`,
    );
  const read: ReadFile = { name: file.name, tables: [], blankRecords: 0, records: 0 };
  let unpacked = 0;
  for (const entry of entries) {
    // The size the archive declares, checked before anything is unpacked (a
    // small archive may unpack to gigabytes); what is unpacked is counted too.
    const declared = (entry as unknown as { _data?: { uncompressedSize?: number } })._data
      ?.uncompressedSize;
    if (declared !== undefined && unpacked + declared > MAX_UNZIPPED_BYTES)
      throw new UnreadableFile(
        file.name,
        `${file.name}: unpacks to more than ${MAX_UNZIPPED_BYTES} bytes`,
      );
    const bytes = await entry.async('nodebuffer');
    unpacked += bytes.length;
    if (unpacked > MAX_UNZIPPED_BYTES)
      throw new UnreadableFile(
        file.name,
        `${file.name}: unpacks to more than ${MAX_UNZIPPED_BYTES} bytes`,
      );
    const table = readCsv(`${file.name} › ${entry.name}`, bytes, encoding);
    read.tables.push({ source: table.file, header: table.header, records: table.records });
    read.blankRecords += table.blankLines.length;
    read.records += table.records.length;
    read.encoding ??= table.encoding;
    read.encodingFrom ??= table.encodingFrom;
  }
  return read;
}

/**
 * Reads an uploaded file as tables: a workbook sheet by sheet, anything else
 * as CSV text in its encoding (or the one chosen). A file that cannot be read
 * is refused whole, saying where.
 */
export async function readUploadedFile(file: UploadedFile, encoding?: Encoding): Promise<ReadFile> {
  try {
    const zipped = isZip(file.bytes) ? await readZip(file, encoding) : undefined;
    if (zipped) return zipped;
    if (isZip(file.bytes)) {
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
    const table = readCsv(file.name, file.bytes, encoding);
    return {
      name: file.name,
      tables: [{ source: file.name, header: table.header, records: table.records }],
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
