import type { Kysely } from 'kysely';
import { type Session, SessionStore } from '../../platform/web/sessions.js';
import type { Role } from '../auth/roles.js';
import type { RefdataTables } from '../db/tables.js';

export const SESSION_COOKIE = '_refdata_session';

/** Who is signed in, as the pages need it. */
export interface Viewer {
  /** The identity provider's subject (or the token's `sub`). */
  subject: string;
  /** What to call them in the header. */
  name: string;
  roles: Role[];
  /** How they signed in: through the identity provider, or with a bearer token. */
  via: 'oidc' | 'token';
}

/** An OpenID Connect sign-in under way: what the callback must find again. */
export interface PendingSignIn {
  state: string;
  nonce: string;
  codeVerifier: string;
  returnTo: string;
  startedAt: number;
}

export interface RefdataSessionData {
  csrf: string;
  viewer?: Viewer;
  /** The ID token, for ending the session at the provider too (`id_token_hint`). */
  idToken?: string;
  /** The provider's session ID (`sid`), which its back-channel logout tokens name. */
  sid?: string;
  signIn?: PendingSignIn;
  /** A new secret sealed for the page redirected to (platform/web/shown-once.ts). */
  sealedSecret?: string;
}

export type RefdataSession = Session<RefdataSessionData>;
export type RefdataSessions = SessionStore<RefdataSessionData>;

export function refdataSessions(
  db: Kysely<RefdataTables>,
  options: { lifetimeMs: number; secureCookie: boolean },
): RefdataSessions {
  return new SessionStore<RefdataSessionData>(db as Kysely<never>, {
    ...options,
    cookieName: SESSION_COOKIE,
    userOf: (data) => data.viewer?.subject,
  });
}
