import { oneOf, type Reader } from '../../platform/config.js';
import { type MailSettings, readMailSettings } from '../../platform/mail/mail-transport.js';

/** The review process's settings (docs/review.md). */
export interface ReviewSettings {
  /** Nobody approves or rejects what they submitted or last changed. */
  fourEyes: boolean;
  mail: MailSettings;
}

export function readReviewSettings(read: Reader, dataDir: string, cwd: string): ReviewSettings {
  return {
    fourEyes: oneOf(read, 'REFDATA_FOUR_EYES', 'true', ['true', 'false']) === 'true',
    mail: readMailSettings(read, 'REFDATA', 'refdata <refdata@localhost>', { dataDir, cwd }),
  };
}
