import { type FileHandle, mkdir, open, readdir, rm, truncate } from 'node:fs/promises';
import { hostname } from 'node:os';
import { dirname, join } from 'node:path';

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

  /**
   * A new file at `path`, or, with `resume`, the file there cut back to the
   * `bytes` a saved position covers (what was appended after it is read from
   * the change log again), appended to from there.
   */
  constructor(
    readonly path: string,
    resume?: { bytes: number; changeBytes: number },
  ) {
    if (resume) {
      this.bytes = resume.bytes;
      this.changeBytes = resume.changeBytes;
    }
    this.handle = resume
      ? truncate(path, resume.bytes).then(() => open(path, 'a'))
      : mkdir(dirname(path), { recursive: true }).then(() => open(path, 'w'));
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
    // Opened (and, resumed, cut back) even with nothing appended.
    await this.handle;
  }

  /** Closes the file, and removes it unless `keep`. */
  async close(keep = false): Promise<void> {
    await this.last;
    await (await this.handle.catch(() => undefined))?.close();
    if (!keep) await rm(this.path, { force: true });
  }
}

/**
 * The directory of one instance's snapshots under `root`: named by host and
 * process, so that an instance that was killed leaves a directory the next one
 * on the same host can tell is nobody's (`removeStaleSnapshots`).
 */
export function snapshotDirectory(root: string, unique: string): string {
  return join(root, `${hostname()}-${process.pid}-${unique}`);
}

/**
 * Removes the snapshot directories of processes of this host that no longer
 * run (an instance killed before it could remove its own). Others' hosts'
 * directories (a shared data directory) are theirs to remove.
 */
export async function removeStaleSnapshots(root: string): Promise<void> {
  const prefix = `${hostname()}-`;
  const names = await readdir(root).catch(() => [] as string[]);
  for (const name of names) {
    if (!name.startsWith(prefix)) continue;
    const pid = Number(name.slice(prefix.length).split('-')[0]);
    if (!Number.isSafeInteger(pid) || pid === process.pid || isRunning(pid)) continue;
    await rm(join(root, name), { recursive: true, force: true });
  }
}

/** Whether a process of this host runs. */
export function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: it runs, as another user.
    return (error as NodeJS.ErrnoException).code === 'EPERM';
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
