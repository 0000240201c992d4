import ExcelJS from 'exceljs';

/** A sheet of a workbook read as a table: its name, header and records with their row numbers. */
export interface SheetTable {
  file: string;
  sheet: string;
  header: string[];
  records: { line: number; values: string[] }[];
}

/** Why a workbook could not be read, and where. */
export class WorkbookReadError extends Error {
  override readonly name = 'WorkbookReadError';
  constructor(
    readonly file: string,
    readonly reason: string,
    readonly sheet?: string,
    readonly line?: number,
    readonly column?: number,
  ) {
    super(
      `${file}${sheet === undefined ? '' : `, sheet ${sheet}`}${line === undefined ? '' : `, row ${line}`}${column === undefined ? '' : `, column ${column}`}: ${reason}`,
    );
  }
}

/** A cell's value as the text a CSV file would hold for it. */
function cellText(value: ExcelJS.CellValue): string | undefined {
  if (value === null || value === undefined) return '';
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  if (value instanceof Date) return value.toISOString();
  if (typeof value === 'object') {
    if ('richText' in value) return value.richText.map((part) => part.text).join('');
    if ('text' in value && typeof value.text === 'string') return value.text;
    if ('result' in value) return cellText(value.result as ExcelJS.CellValue);
  }
  return undefined;
}

/**
 * Reads an `.xlsx` workbook, each sheet a table in the same form as a CSV
 * file's: the first row its header, each later row a record, blank rows
 * skipped. A cell whose value has no text (an error value) is refused with
 * its sheet, row and column.
 */
export async function readWorkbook(file: string, bytes: Buffer): Promise<SheetTable[]> {
  const workbook = new ExcelJS.Workbook();
  try {
    await workbook.xlsx.load(bytes as unknown as ArrayBuffer);
  } catch {
    throw new WorkbookReadError(file, 'is not an Excel workbook (.xlsx)');
  }
  const tables: SheetTable[] = [];
  for (const sheet of workbook.worksheets) {
    const rows: { line: number; values: string[] }[] = [];
    sheet.eachRow({ includeEmpty: false }, (row, line) => {
      const values: string[] = [];
      for (let column = 1; column <= row.cellCount; column += 1) {
        const text = cellText(row.getCell(column).value);
        if (text === undefined) {
          throw new WorkbookReadError(
            file,
            'holds a value that is not text, a number or a date',
            sheet.name,
            line,
            column,
          );
        }
        values.push(text);
      }
      rows.push({ line, values });
    });
    const [first, ...rest] = rows;
    if (!first) continue;
    const header = first.values.map((name) => name.trim());
    // Trailing empty header cells are nothing; an empty one between names is a mistake.
    while (header.length > 0 && header[header.length - 1] === '') header.pop();
    if (header.some((name) => name === '')) {
      throw new WorkbookReadError(
        file,
        'has a header with an empty column name',
        sheet.name,
        first.line,
      );
    }
    const records = rest
      .map(({ line, values }) => ({
        line,
        values: Array.from({ length: header.length }, (_, index) => values[index] ?? ''),
        beyond: values.slice(header.length).some((value) => value !== ''),
      }))
      .filter(({ values }) => values.some((value) => value !== ''));
    const overflowing = records.find((record) => record.beyond);
    if (overflowing) {
      throw new WorkbookReadError(
        file,
        'has a value beyond the header’s last column',
        sheet.name,
        overflowing.line,
        header.length + 1,
      );
    }
    tables.push({
      file,
      sheet: sheet.name,
      header,
      records: records.map(({ line, values }) => ({ line, values })),
    });
  }
  if (tables.length === 0) throw new WorkbookReadError(file, 'has no sheet with a header row');
  return tables;
}

/** A workbook with one sheet per table, every cell text: what an export hands out. */
export async function writeWorkbook(
  sheets: readonly {
    name: string;
    header: readonly string[];
    rows: readonly (readonly string[])[];
  }[],
): Promise<Buffer> {
  const workbook = new ExcelJS.Workbook();
  for (const table of sheets) {
    const sheet = workbook.addWorksheet(table.name);
    sheet.addRow([...table.header]);
    for (const row of table.rows) sheet.addRow([...row]);
  }
  return Buffer.from(await workbook.xlsx.writeBuffer());
}
