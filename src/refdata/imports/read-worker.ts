/**
 * A thread that reads one upload's files (CSV, ZIP archives, `.xlsx`
 * workbooks) into tables, so that unpacking and parsing never hold the thread
 * that serves everyone, and what a hostile file costs ends with the thread.
 */
import { answerCalls } from '../../platform/threads/worker-calls.js';
import type { Encoding } from './csv-table.js';
import {
  type ReadFile,
  readUploadedFile,
  TooLargeToRead,
  UnpackBudget,
  UnreadableFile,
} from './sources.js';

/** A file that could not be read: why, and where when known. */
export interface Refusal {
  tooLarge: boolean;
  file: string;
  message: string;
  line?: number;
  column?: number;
}

export const readApi = {
  async read(
    name: string,
    bytes: Uint8Array,
    encoding: Encoding | undefined,
    left: number,
  ): Promise<{ file: ReadFile; left: number } | { refused: Refusal }> {
    const budget = new UnpackBudget(left);
    try {
      const file = await readUploadedFile(
        { name, bytes: Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength) },
        encoding,
        budget,
      );
      return { file, left: budget.left };
    } catch (error) {
      if (!(error instanceof UnreadableFile)) throw error;
      return {
        refused: {
          tooLarge: error instanceof TooLargeToRead,
          file: error.file,
          message: error.message,
          ...(error.line === undefined ? {} : { line: error.line }),
          ...(error.column === undefined ? {} : { column: error.column }),
        },
      };
    }
  },
};

answerCalls(readApi);
