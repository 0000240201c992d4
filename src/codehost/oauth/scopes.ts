/**
 * The scopes a token may carry. GitLab 8.12 had `api` only; `read_user` came
 * later and clients ask for it, and the OpenID Connect scopes are GitLab's today.
 */
export const SCOPES = {
  api: 'Full access to the API on your behalf',
  read_user: 'Read your profile (username, name, e-mail addresses) through /user',
  openid: 'Sign you in with OpenID Connect: your user id, name, username and groups',
  profile: 'Read your profile (name, username, website) through OpenID Connect',
  email: 'Read your primary e-mail address through OpenID Connect',
} as const;

export type Scope = keyof typeof SCOPES;
export const SCOPE_NAMES = Object.keys(SCOPES) as Scope[];
/** Doorkeeper's default in GitLab: a request without `scope` gets `api`. */
export const DEFAULT_SCOPES: readonly Scope[] = ['api'];

export function isScope(value: string): value is Scope {
  return Object.hasOwn(SCOPES, value);
}

/** Space-separated scopes, as on the wire; undefined when any is unknown or none given. */
export function parseScopes(text: string): Scope[] | undefined {
  const names = text.split(/\s+/).filter(Boolean);
  if (names.length === 0 || !names.every(isScope)) return undefined;
  return [...new Set(names)];
}

export function formatScopes(scopes: readonly string[]): string {
  return SCOPE_NAMES.filter((scope) => scopes.includes(scope)).join(' ');
}

/** True when `granted` covers every scope of `requested`. */
export function coversScopes(granted: readonly string[], requested: readonly string[]): boolean {
  return requested.every((scope) => granted.includes(scope));
}
