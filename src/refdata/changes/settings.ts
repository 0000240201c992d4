import { integer, type Reader } from '../../platform/config.js';

export interface ChangeFeedSettings {
  /** Members on a page of the change feed. */
  pageSize: number;
  /**
   * A full page links to the next, and is immutable, once its newest member is
   * this old: a change commits this long after taking its time at the latest.
   */
  settleMilliseconds: number;
}

export function readChangeFeedSettings(read: Reader): ChangeFeedSettings {
  return {
    pageSize: integer(read, 'REFDATA_CHANGES_PAGE_SIZE', 250, 2, 5000),
    settleMilliseconds: integer(read, 'REFDATA_CHANGES_SETTLE_MS', 60_000, 0, 3_600_000),
  };
}
