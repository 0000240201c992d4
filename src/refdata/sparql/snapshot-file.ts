import { type FileHandle, mkdir, open, rm } from 'node:fs/promises';
import { dirname } from 'node:path';

/**
 * A view's snapshot on disk: every change its copies were given, in order, as
 * records of the IRIs whose triples are removed and the N-Quads then added
 * (the build's batches first, with no IRIs). A copy that has to be replaced
 * (stopped past its time, or its engine trapped) is filled from it in its own
 * thread, while the other copies answer, and with no copy left at all; it is
 * never read on the request thread. Each record is one header line, the IRIs
 * as JSON and the byte length of the N-Quads, then the N-Quads: a resource's
 * blank nodes stay in one record, as a store names them afresh on each load.
 */
export class SnapshotFile {
  private handle: Promise<FileHandle>;
  /** The last append, which every later append and `flushed` waits for. */
  private last: Promise<void> = Promise.resolve();
  private failure: Error | undefined;
  /** Bytes written, and those of records with IRIs (changes rather than the build). */
  bytes = 0;
  changeBytes = 0;

  constructor(readonly path: string) {
    this.handle = mkdir(dirname(path), { recursive: true }).then(() => open(path, 'w'));
    // A failure is taken up by the next append or `flushed`, not as an unhandled rejection.
    this.handle.catch(() => undefined);
  }

  /** Adds a record after every one before it; its failure is reported by `flushed`. */
  append(iris: readonly string[], nquads: string): void {
    if (iris.length === 0 && nquads === '') return;
    const body = Buffer.from(nquads, 'utf8');
    const header = Buffer.from(`${JSON.stringify(iris)}\t${body.length}\n`, 'utf8');
    this.bytes += header.length + body.length;
    if (iris.length > 0) this.changeBytes += header.length + body.length;
    this.last = this.last.then(async () => {
      if (this.failure) return;
      try {
        const handle = await this.handle;
        await handle.write(header);
        await handle.write(body);
      } catch (error) {
        this.failure = error instanceof Error ? error : new Error(String(error));
      }
    });
  }

  /** Resolves when every record appended so far is in the file; rejects if one could not be written. */
  async flushed(): Promise<void> {
    await this.last;
    if (this.failure) throw this.failure;
  }

  /** Closes and removes the file. */
  async remove(): Promise<void> {
    await this.last;
    await (await this.handle.catch(() => undefined))?.close();
    await rm(this.path, { force: true });
  }
}

/** One record as the reader finds it, and where the next begins. */
export interface SnapshotRecord {
  iris: string[];
  nquads: string;
  next: number;
}

type ReadAt = (
  file: number,
  buffer: Buffer,
  offset: number,
  length: number,
  position: number,
) => number;

/**
 * The record at `position` of an open snapshot file, read with `readAt`
 * (`fs.readSync`, in a copy's thread); undefined at the end, or where a
 * record is still being written.
 */
export function readSnapshotRecord(
  file: number,
  position: number,
  readAt: ReadAt,
): SnapshotRecord | undefined {
  let size = 64 * 1024;
  for (;;) {
    const buffer = Buffer.alloc(size);
    const read = readAt(file, buffer, 0, size, position);
    const end = buffer.subarray(0, read).indexOf(0x0a);
    if (end === -1) {
      // A header longer than what was read, unless the file ends first.
      if (read < size) return undefined;
      size *= 4;
      continue;
    }
    const header = buffer.subarray(0, end).toString('utf8');
    const tab = header.lastIndexOf('\t');
    const iris = JSON.parse(header.slice(0, tab)) as string[];
    const length = Number(header.slice(tab + 1));
    const body = Buffer.alloc(length);
    const bodyRead = readAt(file, body, 0, length, position + end + 1);
    if (bodyRead < length) return undefined;
    return { iris, nquads: body.toString('utf8'), next: position + end + 1 + length };
  }
}
