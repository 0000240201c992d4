import { RetryPolicy } from '../platform/background/retry-policy.js';
import { readWorkers } from '../platform/background/workers.js';
import type { Reader, SettingsContext } from '../platform/config.js';
import { type MailSettings, readMailSettings } from '../platform/mail/mail-transport.js';

/** 5 s, 30 s, 2 min, 10 min, 1 h; then a logout token is given up. */
export const DEFAULT_BACKCHANNEL_RETRY_SCHEDULE = '5s,30s,2m,10m,1h';

/** codehost's own settings; see docs/configuration.md. */
export interface CodehostSettings {
  /** Where mail to users goes (an administrator's changes to their sign-in, say). */
  mail: MailSettings;
  /** The waits between a logout token's attempts (`CODEHOST_BACKCHANNEL_RETRY_SCHEDULE`). */
  backchannelRetry: RetryPolicy;
  /** The kinds of work after the answer this instance takes on (`CODEHOST_WORKERS`). */
  workers: ReadonlySet<CodehostWorker>;
}

/** codehost's kinds of work done after the answer, as `CODEHOST_WORKERS` names them. */
export const CODEHOST_WORKERS = ['backchannel-logout'] as const;
export type CodehostWorker = (typeof CODEHOST_WORKERS)[number];

export function readCodehostSettings(read: Reader, context: SettingsContext): CodehostSettings {
  return {
    mail: readMailSettings(read, 'CODEHOST', 'codehost <codehost@localhost>', context),
    backchannelRetry: RetryPolicy.read(
      read,
      'CODEHOST_BACKCHANNEL_RETRY_SCHEDULE',
      DEFAULT_BACKCHANNEL_RETRY_SCHEDULE,
    ),
    workers: readWorkers(read, 'CODEHOST', CODEHOST_WORKERS),
  };
}
