import { RetryPolicy } from '../platform/background/retry-policy.js';
import { readWorkers } from '../platform/background/workers.js';
import {
  ConfigError,
  integer,
  oneOf,
  type Reader,
  type SettingsContext,
} from '../platform/config.js';
import { type MailSettings, readMailSettings } from '../platform/mail/mail-transport.js';
import { secretHash } from '../platform/security/secrets.js';

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
  /** How long a JWT access token for a resource server lives (RFC 9068; it cannot be revoked). */
  resourceTokenLifetimeSeconds: number;
  /** Clients registering themselves (RFC 7591); see docs/oauth.md. */
  registration: RegistrationSettings;
}

/** Dynamic Client Registration as the operator allows it (`CODEHOST_REGISTRATION*`). */
export interface RegistrationSettings {
  /** `open` to anyone, `token` with the initial access token, or `off`. */
  mode: 'open' | 'token' | 'off';
  /** The initial access token's hash, when `mode` is `token`. */
  initialAccessTokenHash: string | undefined;
  /** Registrations one address may make per hour. */
  perAddressPerHour: number;
  /** A registration no token was issued to for this long is deleted. */
  unusedDays: number;
}

/** The settings codehost runs with when none are given (tests that build it alone). */
export const DEFAULT_RESOURCE_TOKEN_LIFETIME_SECONDS = 300;
export const DEFAULT_REGISTRATION: RegistrationSettings = {
  mode: 'open',
  initialAccessTokenHash: undefined,
  perAddressPerHour: 20,
  unusedDays: 30,
};

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
    resourceTokenLifetimeSeconds: integer(
      read,
      'CODEHOST_RESOURCE_TOKEN_LIFETIME_SECONDS',
      DEFAULT_RESOURCE_TOKEN_LIFETIME_SECONDS,
      10,
      3600,
    ),
    registration: readRegistrationSettings(read),
  };
}

function readRegistrationSettings(read: Reader): RegistrationSettings {
  const mode = oneOf(read, 'CODEHOST_REGISTRATION', 'open', ['open', 'token', 'off']);
  const token = read('CODEHOST_REGISTRATION_TOKEN');
  // A bearer token's characters (RFC 6750 section 2.1), and long enough not to be guessed.
  if (mode === 'token' && (token === undefined || !/^[A-Za-z0-9._~+/-]{20,}=*$/.test(token))) {
    throw new ConfigError(
      'CODEHOST_REGISTRATION_TOKEN',
      token === undefined ? '' : '(hidden)',
      'with CODEHOST_REGISTRATION=token it is required: the initial access token clients register with, at least 20 letters, digits or -._~+/',
    );
  }
  return {
    mode,
    // Kept only as a hash, as every other secret is.
    initialAccessTokenHash: mode === 'token' && token ? secretHash(token) : undefined,
    perAddressPerHour: integer(read, 'CODEHOST_REGISTRATION_PER_HOUR', 20, 1, 100_000),
    unusedDays: integer(read, 'CODEHOST_REGISTRATION_UNUSED_DAYS', 30, 1, 3650),
  };
}
