/**
 * Hostile uploads to the import: archives and workbooks that inflate far past
 * what they weigh, whether their headers say so or lie, and a CSV field that
 * never ends. Each is refused at the limit, naming it, while another client's
 * requests keep being answered, and the memory it took is given back.
 */
import { crc32, createDeflateRaw } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DATABASE_KINDS } from '../harness.js';
import { createLibrary, refdataForTests, storedCounts } from './helpers.js';
import { startImport } from './import-client.js';

const MiB = 1024 * 1024;

/** `size` bytes of spaces, deflated (raw, as a ZIP entry holds them): about a thousandth of it. */
async function deflatedSpaces(size: number): Promise<Buffer> {
  const deflate = createDeflateRaw({ level: 9 });
  const chunks: Buffer[] = [];
  deflate.on('data', (chunk: Buffer) => chunks.push(chunk));
  const done = new Promise((resolve) => deflate.on('end', resolve));
  const block = Buffer.alloc(MiB, 0x20);
  for (let written = 0; written < size; written += MiB) {
    if (!deflate.write(block)) await new Promise((resolve) => deflate.once('drain', resolve));
  }
  deflate.end();
  await done;
  return Buffer.concat(chunks);
}

interface Entry {
  name: string;
  /** Deflated (raw) data. */
  data: Buffer;
  /** What the headers say it unpacks to: the truth, or a lie. */
  declaredSize: number;
  crc: number;
}

/** A ZIP archive written by hand, so that its headers can under-declare its sizes. */
function zipOf(entries: readonly Entry[]): Buffer {
  const locals: Buffer[] = [];
  const centrals: Buffer[] = [];
  let offset = 0;
  for (const entry of entries) {
    const name = Buffer.from(entry.name);
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    local.writeUInt16LE(20, 4);
    local.writeUInt16LE(0, 6);
    local.writeUInt16LE(8, 8); // deflate
    local.writeUInt32LE(0, 10);
    local.writeUInt32LE(entry.crc, 14);
    local.writeUInt32LE(entry.data.length, 18);
    local.writeUInt32LE(entry.declaredSize, 22);
    local.writeUInt16LE(name.length, 26);
    local.writeUInt16LE(0, 28);
    const central = Buffer.alloc(46);
    central.writeUInt32LE(0x02014b50, 0);
    central.writeUInt16LE(20, 4);
    central.writeUInt16LE(20, 6);
    central.writeUInt16LE(0, 8);
    central.writeUInt16LE(8, 10);
    central.writeUInt32LE(0, 12);
    central.writeUInt32LE(entry.crc, 16);
    central.writeUInt32LE(entry.data.length, 20);
    central.writeUInt32LE(entry.declaredSize, 24);
    central.writeUInt16LE(name.length, 28);
    central.writeUInt32LE(offset, 42);
    locals.push(local, name, entry.data);
    centrals.push(central, name);
    offset += local.length + name.length + entry.data.length;
  }
  const directory = Buffer.concat(centrals);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(entries.length, 8);
  end.writeUInt16LE(entries.length, 10);
  end.writeUInt32LE(directory.length, 12);
  end.writeUInt32LE(offset, 16);
  return Buffer.concat([...locals, directory, end]);
}

async function small(name: string, text: string): Promise<Entry> {
  const bytes = Buffer.from(text);
  const deflate = createDeflateRaw();
  const chunks: Buffer[] = [];
  deflate.on('data', (chunk: Buffer) => chunks.push(chunk));
  const done = new Promise((resolve) => deflate.on('end', resolve));
  deflate.end(bytes);
  await done;
  return { name, data: Buffer.concat(chunks), declaredSize: bytes.length, crc: crc32(bytes) };
}

const WORKBOOK_XML =
  '<?xml version="1.0"?><workbook xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"><sheets><sheet name="a" sheetId="1"/></sheets></workbook>';

describe.each(DATABASE_KINDS)('hostile uploads to the import on %s', (kind) => {
  const service = refdataForTests(kind);
  /** 600 MiB of spaces, deflated to well under a megabyte. */
  let bomb: Buffer;
  beforeAll(async () => {
    bomb = await deflatedSpaces(600 * MiB);
  }, 120_000);

  /** The slowest answer to another client's request while `work` runs. */
  let slowest = 0;
  let polling = false;
  async function whileOthersAsk<T>(work: () => Promise<T>): Promise<T> {
    polling = true;
    const poller = (async () => {
      while (polling) {
        const started = performance.now();
        const answer = await service.call('GET', '/-/health');
        expect(answer.statusCode).toBe(200);
        slowest = Math.max(slowest, performance.now() - started);
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    })();
    try {
      return await work();
    } finally {
      polling = false;
      await poller;
    }
  }
  afterAll(() => {
    // The issue measured a plain GET stalled for 19 s by one such upload.
    expect(slowest).toBeLessThan(2000);
  });

  async function refusedTooLarge(name: string, bytes: Buffer, words: RegExp) {
    const library = await createLibrary(service);
    const before = await storedCounts(service);
    const response = await whileOthersAsk(() =>
      startImport(service, { library }, [{ name, bytes }]),
    );
    expect(response.statusCode, response.body).toBe(413);
    expect(response.json().type).toMatch(/payload-too-large$/);
    expect(response.json().detail).toMatch(words);
    expect(await storedCounts(service)).toEqual(before);
  }

  it('refuses a workbook whose sheet inflates past the limit, whether its headers say so or not', async () => {
    const honest = await small('xl/workbook.xml', WORKBOOK_XML);
    const sheet = { name: 'xl/worksheets/sheet1.xml', data: bomb, crc: 0 };
    await refusedTooLarge(
      'declared.xlsx',
      zipOf([honest, { ...sheet, declaredSize: 600 * MiB }]),
      /declared\.xlsx: unpacks to more than 512 MiB/,
    );
    await refusedTooLarge(
      'lying.xlsx',
      zipOf([honest, { ...sheet, declaredSize: 1000 }]),
      /lying\.xlsx: unpacks to more than 512 MiB/,
    );
  }, 120_000);

  it('refuses an archive of CSV files whose headers under-declare their sizes', async () => {
    await refusedTooLarge(
      'lying.zip',
      zipOf([{ name: 'classes.csv', data: bomb, crc: 0, declaredSize: 2000 }]),
      /lying\.zip: unpacks to more than 512 MiB/,
    );
  }, 120_000);

  it('gives back the memory such uploads took', async () => {
    const rss = () => process.memoryUsage().rss;
    const lying = zipOf([
      await small('xl/workbook.xml', WORKBOOK_XML),
      { name: 'xl/worksheets/sheet1.xml', data: bomb, crc: 0, declaredSize: 1000 },
    ]);
    const library = await createLibrary(service);
    // One first, so that what the service keeps after any upload is in the baseline.
    await startImport(service, { library }, [{ name: 'lying.xlsx', bytes: lying }]);
    const before = rss();
    for (let upload = 0; upload < 3; upload += 1) {
      const answer = await startImport(service, { library }, [
        { name: 'lying.xlsx', bytes: lying },
      ]);
      expect(answer.statusCode).toBe(413);
    }
    // The issue measured about 1 GB kept per upload; unpacking in a thread of its own keeps none.
    expect(rss() - before).toBeLessThan(256 * MiB);
  }, 180_000);

  it('refuses a CSV field that never ends, naming the line and the limit', async () => {
    const library = await createLibrary(service);
    const header =
      'parent equipment class name,equipment class CFIHOS unique code,equipment class name,equipment class definition,abstract class indicator,spare part information required indicator,equipment class existence reason description,equipment class synonym name';
    const bytes = Buffer.concat([
      Buffer.from(`${header}\r\n,X-1,pump,"`),
      Buffer.alloc(48 * MiB, 0x61),
      Buffer.from('"\r\n'),
    ]);
    const response = await whileOthersAsk(() =>
      startImport(service, { library }, [{ name: 'endless.csv', bytes }]),
    );
    expect(response.statusCode, response.body.slice(0, 300)).toBe(400);
    expect(response.json().errors[0].detail).toMatch(
      /endless\.csv, line 2.*longer than 1048576 characters/,
    );
  }, 120_000);
});
