/**
 * Workbooks in and out: the CFIHOS v2.0 Core set written as one `.xlsx` with
 * a sheet per file reads back exactly as the CSV files read, and workbooks
 * that cannot be read are refused saying where.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import ExcelJS from 'exceljs';
import { describe, expect, it } from 'vitest';
import { readCsv } from '../../src/refdata/imports/csv-table.js';
import {
  readWorkbook,
  WorkbookReadError,
  writeWorkbook,
} from '../../src/refdata/imports/workbook.js';

const CFIHOS = join(import.meta.dirname, '../../datasets/cfihos-v2.0-core');

async function refusal(run: () => Promise<unknown>): Promise<WorkbookReadError> {
  try {
    await run();
  } catch (error) {
    if (error instanceof WorkbookReadError) return error;
    throw error;
  }
  throw new Error('the workbook was read');
}

describe('workbooks', () => {
  it('hold the whole CFIHOS set, a sheet a file, as the CSV files read', async () => {
    const files = readdirSync(CFIHOS).filter((name) => name.endsWith('.csv'));
    const tables = files.map((file) => readCsv(file, readFileSync(join(CFIHOS, file))));
    // A sheet's name has at most 31 characters.
    const name = (file: string) => file.replace(/^cfihos-core-|-v2\.0\.csv$/g, '').slice(0, 31);
    const bytes = await writeWorkbook(
      tables.map((table) => ({
        name: name(table.file),
        header: table.header,
        rows: table.records.map((record) => record.values),
      })),
    );
    const sheets = await readWorkbook('cfihos.xlsx', bytes);
    expect(sheets.map((sheet) => sheet.sheet)).toEqual(tables.map((table) => name(table.file)));
    for (const [index, sheet] of sheets.entries()) {
      const table = tables[index];
      expect(sheet.header).toEqual(table?.header);
      // Blank rows apart, the same records in the same order; a line is the sheet's row.
      expect(sheet.records.map((record) => record.values)).toEqual(
        table?.records.map((record) => record.values),
      );
      expect(sheet.records[0]?.line).toBe(2);
    }
  });

  it('reads numbers, dates and rich text as text, and pads short rows', async () => {
    const workbook = new ExcelJS.Workbook();
    const sheet = workbook.addWorksheet('units');
    sheet.addRow(['code', 'name', 'factor']);
    sheet.addRow(['U1', { richText: [{ text: 'metre ' }, { text: 'per second' }] }, 1.5]);
    sheet.addRow(['U2', 'second']);
    sheet.addRow([]);
    sheet.addRow(['U3', 'day', new Date('2026-01-02T00:00:00Z')]);
    const [table] = await readWorkbook(
      'units.xlsx',
      Buffer.from(await workbook.xlsx.writeBuffer()),
    );
    expect(table?.records.map((record) => record.values)).toEqual([
      ['U1', 'metre per second', '1.5'],
      ['U2', 'second', ''],
      ['U3', 'day', '2026-01-02T00:00:00.000Z'],
    ]);
    expect(table?.records.map((record) => record.line)).toEqual([2, 3, 5]);
  });

  it('refuses what is not a workbook, and values beyond the header', async () => {
    expect(
      (await refusal(() => readWorkbook('a.xlsx', Buffer.from('code,name\nA,B\n')))).reason,
    ).toMatch(/not an Excel workbook/);
    const workbook = new ExcelJS.Workbook();
    const sheet = workbook.addWorksheet('classes');
    sheet.addRow(['code', 'name']);
    sheet.addRow(['C1', 'Pump', 'stray']);
    const wide = await refusal(async () =>
      readWorkbook('wide.xlsx', Buffer.from(await workbook.xlsx.writeBuffer())),
    );
    expect(wide).toMatchObject({ sheet: 'classes', line: 2, column: 3 });
    const empty = new ExcelJS.Workbook();
    empty.addWorksheet('nothing');
    expect(
      (
        await refusal(async () =>
          readWorkbook('empty.xlsx', Buffer.from(await empty.xlsx.writeBuffer())),
        )
      ).reason,
    ).toMatch(/no sheet/);
  });
});
