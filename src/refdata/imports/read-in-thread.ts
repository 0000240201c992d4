import { siblingModule, startModuleWorker } from '../../platform/threads/module-worker.js';
import { WorkerCalls } from '../../platform/threads/worker-calls.js';
import type { Encoding } from './csv-table.js';
import type { readApi } from './read-worker.js';
import {
  type ReadFile,
  TooLargeToRead,
  UNPACK_LIMIT_BYTES,
  UnreadableFile,
  type UploadedFile,
} from './sources.js';

/**
 * The heap one upload's reading thread may grow to. A workbook's cells become
 * objects many times the size of its XML: the whole CFIHOS v2.0 Core set as
 * one workbook needs about a fifth of this. A file that needs more is refused
 * (413), and its thread's memory is given back when it ends.
 */
export const READ_HEAP_MB = 1024;
/** Uploads read at once; more wait their turn, so a burst cannot take every core. */
const READING_AT_ONCE = 2;

let reading = 0;
const waiting: (() => void)[] = [];

async function turn(): Promise<() => void> {
  if (reading >= READING_AT_ONCE) await new Promise<void>((resolve) => waiting.push(resolve));
  reading += 1;
  return () => {
    reading -= 1;
    waiting.shift()?.();
  };
}

/**
 * Reads an upload's files one after the other in a thread of their own, with
 * one unpacking budget for them all and a bound on the thread's memory. A
 * file that cannot be read is an `UnreadableFile` (a `TooLargeToRead` for one
 * past a limit), as it would be read here.
 */
export async function* readInThread(
  files: readonly UploadedFile[],
  encoding: Encoding | undefined,
): AsyncGenerator<ReadFile | UnreadableFile> {
  const done = await turn();
  const worker = startModuleWorker(siblingModule(import.meta.url, 'read-worker'), {
    resourceLimits: { maxOldGenerationSizeMb: READ_HEAP_MB, maxYoungGenerationSizeMb: 64 },
  });
  const calls = new WorkerCalls<typeof readApi>(worker);
  let left = UNPACK_LIMIT_BYTES;
  try {
    for (const file of files) {
      let answer: Awaited<ReturnType<typeof readApi.read>>;
      try {
        answer = await calls.call('read', file.name, file.bytes, encoding, left);
      } catch {
        // The thread ended under its memory limit (or otherwise): this file
        // cannot be read here, and neither can the rest in this thread.
        yield new TooLargeToRead(
          file.name,
          `${file.name}: needs more memory to read than this service gives one upload (${READ_HEAP_MB} MiB); split it, or import it as CSV`,
        );
        return;
      }
      if ('refused' in answer) {
        const { refused } = answer;
        yield new (refused.tooLarge ? TooLargeToRead : UnreadableFile)(
          refused.file,
          refused.message,
          refused.line,
          refused.column,
        );
        continue;
      }
      left = answer.left;
      yield answer.file;
    }
  } finally {
    await calls.terminate();
    done();
  }
}
