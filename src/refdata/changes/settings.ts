import { integer, type Reader } from '../../platform/config.js';

export interface ChangeFeedSettings {
  /** Members on a page of the change feed. */
  pageSize: number;
}

export function readChangeFeedSettings(read: Reader): ChangeFeedSettings {
  return { pageSize: integer(read, 'REFDATA_CHANGES_PAGE_SIZE', 250, 2, 5000) };
}
