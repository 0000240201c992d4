import * as client from 'openid-client';
import type { OidcSignInConfig } from '../config.js';
import { ROLES, type Role } from './roles.js';
import { claimAt } from './tokens.js';

/** Where the provider sends the browser back to after a sign-in. */
export const CALLBACK_PATH = '/sign-in/callback';

/**
 * The roles the provider's claims grant under the configured map: a role is
 * held when the claim (a string or list of strings) has one of its values, or
 * when the map grants it to everyone (`*`).
 */
export function rolesFromClaims(
  claims: Record<string, unknown>,
  config: Pick<OidcSignInConfig, 'rolesClaim' | 'roleMap'>,
): Role[] {
  const raw = claimAt(claims, config.rolesClaim);
  const values = typeof raw === 'string' ? [raw] : Array.isArray(raw) ? raw : [];
  const held = new Set(values.filter((value): value is string => typeof value === 'string'));
  return ROLES.filter((role) =>
    (config.roleMap[role] ?? []).some((value) => value === '*' || held.has(value)),
  );
}

/**
 * The OpenID Connect provider refdata trusts (codehost in the embedded set-up),
 * through openid-client: people sign in at it (web/oidc-sign-in.ts) and the API
 * takes its JWT access tokens (auth/provider-tokens.ts). Its metadata is
 * discovered on first use and kept.
 */
export class IdentityProvider {
  private configuration: Promise<client.Configuration> | undefined;

  constructor(
    readonly config: OidcSignInConfig,
    private readonly publicUrl: string,
  ) {}

  get redirectUri(): string {
    return `${this.publicUrl}${CALLBACK_PATH}`;
  }

  /** The provider's configuration; a failed discovery is tried again next time. */
  discover(): Promise<client.Configuration> {
    this.configuration ??= client
      .discovery(
        new URL(this.config.issuer),
        this.config.clientId,
        this.config.clientSecret,
        undefined,
        {
          // Plain http is allowed only for a provider on this machine (the embedded one).
          ...(isLoopbackHttp(this.config.issuer)
            ? { execute: [client.allowInsecureRequests] }
            : {}),
        },
      )
      .catch((error: unknown) => {
        this.configuration = undefined;
        throw error;
      });
    return this.configuration;
  }

  /** A GitLab-compatible provider's administrators hold every role. */
  async isGitlabAdmin(configuration: client.Configuration, accessToken: string): Promise<boolean> {
    const response = await client.fetchProtectedResource(
      configuration,
      accessToken,
      new URL('/api/v4/user', this.config.issuer),
      'GET',
    );
    if (!response.ok) return false;
    const user = (await response.json()) as { is_admin?: unknown };
    return user.is_admin === true;
  }
}

function isLoopbackHttp(url: string): boolean {
  const { protocol, hostname } = new URL(url);
  return protocol === 'http:' && ['127.0.0.1', 'localhost', '[::1]'].includes(hostname);
}
