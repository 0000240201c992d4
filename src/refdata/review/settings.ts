import { join, resolve } from 'node:path';
import { ConfigError, oneOf, type Reader } from '../../platform/config.js';

/** How mail leaves refdata: an SMTP server, or a folder when none is configured. */
export interface MailSettings {
  /** `smtp://` or `smtps://`, with credentials in the URL if the server asks for them. */
  smtpUrl: string | undefined;
  /** The From of every mail. */
  from: string;
  /** Where mails are written as files when no SMTP server is configured. */
  folder: string;
}

/** The review process's settings (docs/review.md). */
export interface ReviewSettings {
  /** Nobody approves or rejects what they submitted or last changed. */
  fourEyes: boolean;
  mail: MailSettings;
}

export function readReviewSettings(read: Reader, dataDir: string, cwd: string): ReviewSettings {
  const smtpUrl = read('REFDATA_SMTP_URL');
  if (smtpUrl !== undefined) {
    let protocol = '';
    try {
      protocol = new URL(smtpUrl).protocol;
    } catch {
      // said below
    }
    if (protocol !== 'smtp:' && protocol !== 'smtps:')
      throw new ConfigError('REFDATA_SMTP_URL', '', 'it must be an smtp:// or smtps:// URL');
  }
  const folder = read('REFDATA_MAIL_DIR');
  return {
    fourEyes: oneOf(read, 'REFDATA_FOUR_EYES', 'true', ['true', 'false']) === 'true',
    mail: {
      smtpUrl,
      from: read('REFDATA_MAIL_FROM') ?? 'refdata <refdata@localhost>',
      folder: folder ? resolve(cwd, folder) : join(dataDir, 'mail'),
    },
  };
}
