import { createRemoteJWKSet, errors, type JWTPayload, jwtVerify } from 'jose';
import { type IdentityProvider, rolesFromClaims } from './identity-provider.js';
import type { Role } from './roles.js';
import { type Principal, TokenRefused } from './tokens.js';

/** Accepted clock difference between the provider and here. */
const CLOCK_TOLERANCE_SECONDS = 30;

/**
 * What a token's scopes let it do here: GitLab's `api` acts with every role
 * the person holds; codehost's other scopes (profile, e-mail) give none. A
 * scope never gives a role the person lacks.
 */
export const SCOPE_ROLES: Readonly<Record<string, readonly Role[]>> = {
  api: ['Reader', 'Creator', 'Reviewer'],
};

/** The scopes a token for refdata may carry, as the resource metadata lists them. */
export const SCOPES_SUPPORTED = Object.keys(SCOPE_ROLES);

/**
 * Access tokens the identity provider issues for refdata (RFC 9068 JWTs with
 * refdata as their audience, RFC 8707): checked against the provider's published
 * keys, with no call back; roles come from the same claim and map as a web
 * sign-in's, narrowed by the token's scope.
 */
export class ProviderTokenVerifier {
  private keys: ReturnType<typeof createRemoteJWKSet> | undefined;

  constructor(
    private readonly provider: IdentityProvider,
    /** refdata's resource identifier: the tokens' `aud`. */
    readonly resource: string,
  ) {}

  get issuer(): string {
    return this.provider.config.issuer;
  }

  async verify(token: string, maxLifetimeSeconds: number): Promise<Principal> {
    let configuration: Awaited<ReturnType<IdentityProvider['discover']>>;
    try {
      configuration = await this.provider.discover();
    } catch {
      throw new TokenRefused(
        `${this.provider.config.name}, which issued the token, cannot be reached to check it just now.`,
      );
    }
    const metadata = configuration.serverMetadata();
    if (!metadata.jwks_uri) {
      throw new TokenRefused(
        `${this.provider.config.name} publishes no keys to check tokens with.`,
      );
    }
    this.keys ??= createRemoteJWKSet(new URL(metadata.jwks_uri));
    let payload: JWTPayload;
    try {
      ({ payload } = await jwtVerify(token, this.keys, {
        issuer: metadata.issuer,
        audience: this.resource,
        // RFC 9068 section 4: an ID token or any other JWT must not pass for an access token.
        typ: 'at+jwt',
        clockTolerance: CLOCK_TOLERANCE_SECONDS,
        requiredClaims: ['exp', 'iat', 'sub', 'jti', 'client_id'],
      }));
    } catch (error) {
      throw new TokenRefused(this.describe(error), { cause: error });
    }
    const subject = payload.sub as unknown;
    if (typeof subject !== 'string' || subject === '' || subject.length > 200) {
      throw new TokenRefused("The token's sub claim must be a short non-empty string.");
    }
    const lifetime = Number(payload.exp) - Number(payload.iat);
    if (!(lifetime <= maxLifetimeSeconds)) {
      throw new TokenRefused(
        `The token lives too long: tokens may live at most ${maxLifetimeSeconds} seconds.`,
      );
    }
    const scopes = typeof payload.scope === 'string' ? payload.scope.split(' ') : [];
    const allowed = new Set(scopes.flatMap((scope) => SCOPE_ROLES[scope] ?? []));
    const held = rolesFromClaims(payload as Record<string, unknown>, this.provider.config);
    return {
      // The same actor a web sign-in records, so a person's work is theirs either way.
      subject: `${this.provider.config.issuer}#${subject}`,
      roles: held.filter((role) => allowed.has(role)),
      expiresAt: Number(payload.exp) * 1000,
      ...(scopes.some((scope) => scope in SCOPE_ROLES)
        ? {}
        : { scopeNeeded: SCOPES_SUPPORTED.join(' ') }),
    };
  }

  private describe(error: unknown): string {
    const name = this.provider.config.name;
    if (error instanceof errors.JWTExpired) return 'The token has expired.';
    if (error instanceof errors.JWTClaimValidationFailed) {
      if (error.claim === 'aud') {
        return `The token is for another API: this one accepts tokens for ${this.resource} (ask ${name} with resource=${this.resource}).`;
      }
      if (error.claim === 'typ') {
        return 'The token is not an access token (its typ is not at+jwt): an ID token is not accepted here.';
      }
      return `The token's ${error.claim} claim is not accepted.`;
    }
    if (
      error instanceof errors.JWSSignatureVerificationFailed ||
      error instanceof errors.JWKSNoMatchingKey
    ) {
      return `The token is not signed by a key ${name} publishes.`;
    }
    if (error instanceof errors.JWKSTimeout || error instanceof errors.JWKSInvalid) {
      return `${name}\u2019s keys could not be read.`;
    }
    return 'The token is malformed.';
  }
}
