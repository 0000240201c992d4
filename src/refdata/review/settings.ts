import { RetryPolicy } from '../../platform/background/retry-policy.js';
import { oneOf, type Reader } from '../../platform/config.js';
import { type MailSettings, readMailSettings } from '../../platform/mail/mail-transport.js';

/** The review process's settings (docs/review.md). */
export interface ReviewSettings {
  /** Nobody approves or rejects what they submitted or last changed. */
  fourEyes: boolean;
  mail: MailSettings;
  /** The waits between a mail's attempts (`REFDATA_MAIL_RETRY_SCHEDULE`). */
  mailRetry: RetryPolicy;
}

/** 10 s, doubling, six attempts in all: a mail server back within minutes loses nothing. */
export const DEFAULT_MAIL_RETRY_SCHEDULE = '10s,20s,40s,80s,160s';

export function readReviewSettings(read: Reader, dataDir: string, cwd: string): ReviewSettings {
  return {
    fourEyes: oneOf(read, 'REFDATA_FOUR_EYES', 'true', ['true', 'false']) === 'true',
    mail: readMailSettings(read, 'REFDATA', 'refdata <refdata@localhost>', { dataDir, cwd }),
    mailRetry: RetryPolicy.read(read, 'REFDATA_MAIL_RETRY_SCHEDULE', DEFAULT_MAIL_RETRY_SCHEDULE),
  };
}
