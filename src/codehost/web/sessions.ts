import type { Kysely } from 'kysely';
import {
  type Session as PlatformSession,
  SessionStore as PlatformSessionStore,
} from '../../platform/web/sessions.js';
import type { CodehostTables } from '../db/tables.js';

export const SESSION_COOKIE = '_codehost_session';

/** What a browser session remembers between requests. */
export interface SessionData {
  /** The signed-in user. */
  userId?: number;
  /** Password accepted, two-factor code still due (and since when). */
  pendingUserId?: number;
  pendingSince?: number;
  /** Where to go once signed in (a path on this service). */
  returnTo?: string;
  /**
   * Until when the signed-in user, asked to sign in again (`prompt=login`,
   * `max_age`), may do so: the sign-in page shows its form, and the session is
   * replaced only when it succeeds. Once past, the request is forgotten with its
   * `returnTo`, so an abandoned one leaves nothing behind.
   */
  reauthenticateUntil?: number;
  /** A relying party's guess at the login (OpenID Connect `login_hint`), to fill in. */
  loginHint?: string;
  /**
   * How the user signed in, as RFC 8176 `amr` values (`pwd`, `otp`, `hwk`,
   * `swk`, `user`, `mfa`), for the ID tokens this session's authorizations give.
   */
  amr?: string[];
  /** The OpenID Connect session ID (`sid`) of this signed-in session. */
  sid?: string;
  /**
   * When this session signed in (epoch milliseconds): the `auth_time` of the ID
   * tokens it leads to, and what `max_age` is measured against. Not the user's
   * latest sign-in, which another browser may have made since.
   */
  authTime?: number;
  /**
   * The device code this browser looked up and is deciding on (`/oauth/device`):
   * its confirmation page is a GET of its own, so that Back and Reload post nothing.
   */
  deviceUserCode?: string;
  /** The WebAuthn challenge of the passkey ceremony a page offered, until it is answered. */
  passkeyChallenge?: string;
  /** The synchronizer token every form posts back. */
  csrf: string;
  /** A TOTP secret offered on the set-up page, until the user confirms it. */
  otpSetupSecret?: string;
  /**
   * A new secret (token, application secret) on its way to the page that shows
   * it once, after a redirect: sealed with a key only the browser's cookie
   * gives, so the stored row never holds it readable.
   */
  sealedSecret?: string;
}

export type Session = PlatformSession<SessionData>;
export type SessionStore = PlatformSessionStore<SessionData>;

/** codehost's browser sessions, in its `sessions` table, named by user ID. */
export function codehostSessions(
  db: Kysely<CodehostTables>,
  options: { lifetimeMs: number; secureCookie: boolean },
): SessionStore {
  return new PlatformSessionStore<SessionData>(db as Kysely<never>, {
    ...options,
    cookieName: SESSION_COOKIE,
    userOf: (data) => data.userId,
  });
}
