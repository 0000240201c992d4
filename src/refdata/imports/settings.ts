import { integer, type Reader } from '../../platform/config.js';

export interface ImportSettings {
  /** The most an upload of one import may hold, all files together. */
  maxUploadBytes: number;
  /** How long a job's worker holds it without renewing, before another instance may take it up. */
  leaseMilliseconds: number;
  /** How often each instance looks for a job to work on. */
  pollMilliseconds: number;
  /** Whether this instance works on jobs (an instance that only serves requests may leave them to others). */
  worker: boolean;
}

export function readImportSettings(read: Reader, worker: boolean): ImportSettings {
  return {
    maxUploadBytes: integer(read, 'REFDATA_IMPORT_MAX_BYTES', 64 * 1024 * 1024, 1024, 1024 ** 3),
    leaseMilliseconds: integer(read, 'REFDATA_IMPORT_LEASE_MS', 30_000, 1000, 3_600_000),
    pollMilliseconds: integer(read, 'REFDATA_IMPORT_POLL_MS', 1000, 50, 60_000),
    worker,
  };
}
