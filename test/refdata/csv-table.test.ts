/**
 * Reading CSV files as they come: the whole CFIHOS v2.0 Core set as IOGP
 * publishes it (seven files in Windows-1252, one in UTF-8), a byte-order
 * mark, an encoding chosen by the person, and files that cannot be read,
 * each refused with its line and column.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CsvReadError, readCsv } from '../../src/refdata/imports/csv-table.js';

const CFIHOS = join(import.meta.dirname, '../../datasets/cfihos-v2.0-core');

/** The records of each file, as the data's README counts them (blank ones included). */
const COUNTS: Record<string, number> = {
  'cfihos-core-equipment-class-v2.0.csv': 832,
  'cfihos-core-tag-class-v2.0.csv': 875,
  'cfihos-core-property-v2.0.csv': 1388,
  'cfihos-core-property-picklist-values-v2.0.csv': 3027,
  'cfihos-core-unit-of-measure-v2.0.csv': 1472,
  'cfihos-core-equipment-class-property-v2.0.csv': 4707,
  'cfihos-core-tag-class-property-v2.0.csv': 4018,
  'cfihos-core-tag-class-equipment-class-relationship-v2.0.csv': 911,
};

function refusal(run: () => unknown): CsvReadError {
  try {
    run();
  } catch (error) {
    if (error instanceof CsvReadError) return error;
    throw error;
  }
  throw new Error('the file was read');
}

describe('reading CSV files', () => {
  it.each(Object.entries(COUNTS))('reads %s whole, in the encoding it is in', (file, count) => {
    const table = readCsv(file, readFileSync(join(CFIHOS, file)));
    expect(table.records.length + table.blankLines.length).toBe(count);
    // The tag classes end with 27 rows of commas alone: blank rows, left out.
    expect(table.blankLines).toHaveLength(file === 'cfihos-core-tag-class-v2.0.csv' ? 27 : 0);
    expect(table.encoding).toBe(file.includes('relationship') ? 'utf-8' : 'windows-1252');
    for (const record of table.records) expect(record.values).toHaveLength(table.header.length);
    // No replacement characters: every byte was read as what it is.
    expect(table.records.some((record) => record.values.join().includes('\uFFFD'))).toBe(false);
  });

  it('reads the units of measure with their characters as written', () => {
    const file = 'cfihos-core-unit-of-measure-v2.0.csv';
    const table = readCsv(file, readFileSync(join(CFIHOS, file)));
    const text = table.records.map((record) => record.values.join(',')).join('\n');
    // Bytes 0xE5, 0xB0 and 0xB7 in Windows-1252.
    expect(text).toContain('ångström');
    expect(text).toContain('inch of water (60°f)');
    expect(text).toContain('Btu(IT)/lb·degR');
    expect(table.encodingFrom).toBe('detected');
  });

  it('tells where a record begins, a quoted field over several lines counted', () => {
    const text = 'code,name,definition\nA,Pump,"moves\nliquids"\nB,Valve,stops them\n';
    const table = readCsv('two.csv', Buffer.from(text));
    expect(table.records.map((record) => record.line)).toEqual([2, 4]);
    expect(table.records[0]?.values[2]).toBe('moves\nliquids');
  });

  it('takes a byte-order mark, and an encoding the person chooses', () => {
    const withBom = Buffer.concat([
      Buffer.from([0xef, 0xbb, 0xbf]),
      Buffer.from('code,name\nA,Påfyll\n'),
    ]);
    const table = readCsv('bom.csv', withBom);
    expect(table.header).toEqual(['code', 'name']);
    expect(table.encodingFrom).toBe('byte-order mark');
    expect(table.records[0]?.values[1]).toBe('Påfyll');
    const latin = Buffer.from('code,name\nA,Caf\xe9\n', 'latin1');
    expect(readCsv('chosen.csv', latin, 'iso-8859-1').records[0]?.values[1]).toBe('Café');
    const utf16 = Buffer.concat([
      Buffer.from([0xff, 0xfe]),
      Buffer.from('code,name\nA,Ærø\n', 'utf16le'),
    ]);
    expect(readCsv('utf16.csv', utf16).records[0]?.values[1]).toBe('Ærø');
  });

  it('refuses what it cannot read, saying where', () => {
    const truncated = refusal(() =>
      readCsv('cut.csv', Buffer.from('code,name,definition\nA,Pump,"moves liq')),
    );
    expect(truncated.reason).toMatch(/never closed/);
    expect(truncated.line).toBe(2);
    const ragged = refusal(() =>
      readCsv('ragged.csv', Buffer.from('code,name\nA,Pump\nB,Valve,extra\n')),
    );
    expect(ragged.reason).toMatch(/number of fields/);
    expect(ragged.line).toBe(3);
    expect(refusal(() => readCsv('empty.csv', Buffer.from(''))).reason).toMatch(/empty/);
    expect(refusal(() => readCsv('blank.csv', Buffer.from('code,,name\n'))).reason).toMatch(
      /empty column name/,
    );
    // UTF-8 chosen over a Windows-1252 file: refused where the first byte does not decode,
    // never read as U+FFFD ("90 �C").
    const degrees = Buffer.from('code,name,unit\nA,Pump,90 \xb0C\n', 'latin1');
    const wrongEncoding = refusal(() => readCsv('degrees.csv', degrees, 'utf-8'));
    expect(wrongEncoding.reason).toMatch(/is not UTF-8 .*0xB0.*windows-1252/);
    expect([wrongEncoding.line, wrongEncoding.column]).toEqual([2, 11]);
    // UTF-16 chosen over bytes that are not: an odd count, or a lone surrogate.
    const lone = Buffer.from([0x41, 0x00, 0x0a, 0x00, 0x00, 0xd8, 0x42, 0x00]);
    expect(refusal(() => readCsv('lone.csv', lone, 'utf-16le')).line).toBe(2);
    // The start of a PNG image.
    const png = Buffer.from([
      0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 0x0d, 0x49, 0x48,
    ]);
    const binary = refusal(() => readCsv('picture.png', png));
    expect(binary.reason).toMatch(/not text/);
  });
});
