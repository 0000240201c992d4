import type { Reader, SettingsContext } from '../platform/config.js';
import { type MailSettings, readMailSettings } from '../platform/mail/mail-transport.js';

/** codehost's own settings; see docs/configuration.md. */
export interface CodehostSettings {
  /** Where mail to users goes (an administrator's changes to their sign-in, say). */
  mail: MailSettings;
}

export function readCodehostSettings(read: Reader, context: SettingsContext): CodehostSettings {
  return {
    mail: readMailSettings(read, 'CODEHOST', 'codehost <codehost@localhost>', context),
  };
}
