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

/** An `.xlsx` workbook is a ZIP archive: its first bytes say so whatever its name. */
function isWorkbook(bytes: Buffer): boolean {
  return bytes.subarray(0, 4).equals(Buffer.from([0x50, 0x4b, 0x03, 0x04]));
}

/**
 * Reads an uploaded file as tables: a workbook sheet by sheet, anything else
 * as CSV text in its encoding (or the one chosen). A file that cannot be read
 * is refused whole, saying where.
 */
export async function readUploadedFile(file: UploadedFile, encoding?: Encoding): Promise<ReadFile> {
  try {
    if (isWorkbook(file.bytes)) {
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
