import { hash } from 'node:crypto';
import {
  createLocalJWKSet,
  createRemoteJWKSet,
  decodeJwt,
  errors,
  type JWTPayload,
  jwtVerify,
  SignJWT,
} from 'jose';
import { ownEntry } from '../../platform/own.js';
import type { RefdataSettings } from '../config.js';
import type { PersonalTokens } from './personal-tokens.js';
import type { ProviderTokenVerifier } from './provider-tokens.js';
import { type Role, rolesFrom } from './roles.js';
import { SIGNING_ALGORITHM, type SigningKey } from './signing-key.js';

export interface Principal {
  subject: string;
  roles: Role[];
  /** When the token stops being good (epoch milliseconds). */
  expiresAt: number;
  /** The scopes that would give it access, when its own give none (RFC 6750 insufficient_scope). */
  scopeNeeded?: string;
}

/** Why a token was refused; the message is safe to show the caller. */
export class TokenRefused extends Error {
  override readonly name = 'TokenRefused';
}

/** Accepted clock difference between us and the issuer. */
const CLOCK_TOLERANCE_SECONDS = 30;

/** How many verified tokens are remembered (the oldest go first). */
const VERIFIED_TOKENS_KEPT = 10_000;

/** A claim by name, or by a dotted path into objects (never reaching Object.prototype). */
export function claimAt(payload: Record<string, unknown>, path: string): unknown {
  if (Object.hasOwn(payload, path)) return payload[path];
  return path
    .split('.')
    .reduce<unknown>(
      (value, key) =>
        value !== null && typeof value === 'object'
          ? ownEntry(value as Record<string, unknown>, key)
          : undefined,
      payload,
    );
}

/**
 * Checks bearer tokens: the signature against the key set (refdata's own key,
 * or an identity provider's JWKS), then issuer, audience and expiry, and reads
 * the roles from the configured claim.
 */
export class TokenVerifier {
  private readonly keys:
    | ReturnType<typeof createLocalJWKSet>
    | ReturnType<typeof createRemoteJWKSet>;

  constructor(
    private readonly config: RefdataSettings['tokens'],
    localKey: SigningKey | undefined,
    private readonly others: {
      /** Where clients learn how to get a token (RFC 9728), named in every challenge. */
      resourceMetadataUrl: string;
      /** The identity provider's access tokens for refdata, where one is configured. */
      provider?: ProviderTokenVerifier | undefined;
      /** People's personal access tokens, looked up at each request. */
      personal?: PersonalTokens | undefined;
    },
  ) {
    if (config.jwksUrl) {
      this.keys = createRemoteJWKSet(new URL(config.jwksUrl));
    } else if (localKey) {
      this.keys = createLocalJWKSet({ keys: [localKey.publicJwk] });
    } else {
      throw new Error('Either a JWKS URL or a local signing key is needed.');
    }
  }

  /**
   * Tokens already verified, by their SHA-256, until they expire: a client sends
   * one token with many requests, and checking its signature each time was a
   * twentieth of a request's work. A JWT cannot be revoked before it expires, so
   * this changes no answer; refusals are not kept.
   */
  private readonly verified = new Map<string, Principal>();

  /** Where clients learn how to get a token (RFC 9728). */
  get resourceMetadataUrl(): string {
    return this.others.resourceMetadataUrl;
  }

  async verify(token: string): Promise<Principal> {
    // A personal access token is looked up every time: revoking it counts at once.
    if (this.others.personal?.owns(token)) return this.others.personal.verify(token);
    const key = hash('sha256', token, 'base64url');
    const known = this.verified.get(key);
    if (known && Date.now() < known.expiresAt + CLOCK_TOLERANCE_SECONDS * 1000) return known;
    if (known) this.verified.delete(key);
    const provider = this.providerOf(token);
    const principal = provider
      ? await provider.verify(token, this.config.maxLifetimeSeconds)
      : await this.verifyOwn(token);
    this.remember(key, principal);
    return principal;
  }

  /** The provider's verifier, when the token says the provider issued it (it then checks that). */
  private providerOf(token: string): ProviderTokenVerifier | undefined {
    const { provider } = this.others;
    if (!provider) return undefined;
    try {
      return decodeJwt(token).iss === provider.issuer ? provider : undefined;
    } catch {
      return undefined;
    }
  }

  private remember(key: string, principal: Principal): void {
    if (this.verified.size >= VERIFIED_TOKENS_KEPT) {
      const oldest = this.verified.keys().next().value;
      if (oldest !== undefined) this.verified.delete(oldest);
    }
    this.verified.set(key, principal);
  }

  private async verifyOwn(token: string): Promise<Principal> {
    try {
      const { payload } = await jwtVerify(token, this.keys, {
        issuer: this.config.issuer,
        audience: this.config.audience,
        clockTolerance: CLOCK_TOLERANCE_SECONDS,
        requiredClaims: ['exp', 'sub'],
      });
      return principalFrom(payload, this.config);
    } catch (error) {
      if (error instanceof TokenRefused) throw error;
      throw new TokenRefused(describe(error, this.config), { cause: error });
    }
  }
}

/** Longest subject revisions can record (their actor column). */
const MAX_SUBJECT_LENGTH = 255;

/**
 * The caller from a verified payload. jose checks the signature and the registered
 * claims' presence and times, not what `sub` or the roles claim hold, nor an `iat`
 * from the future: a subject that is an object or empty would otherwise reach storage.
 */
function principalFrom(payload: JWTPayload, config: RefdataSettings['tokens']): Principal {
  const rolesClaim = config.rolesClaim;
  const subject = payload.sub as unknown;
  if (typeof subject !== 'string' || subject.trim() === '' || subject.length > MAX_SUBJECT_LENGTH) {
    throw new TokenRefused(
      `The token's sub claim must be a non-empty string of at most ${MAX_SUBJECT_LENGTH} characters.`,
    );
  }
  const now = Math.floor(Date.now() / 1000);
  if (typeof payload.iat === 'number' && payload.iat > now + CLOCK_TOLERANCE_SECONDS) {
    throw new TokenRefused("The token's iat claim is in the future.");
  }
  // A token that lives for ever cannot be taken back: its lifetime is bounded
  // here as it is when minted (from iat, or from now when iat is absent).
  const lifetime = Number(payload.exp) - (typeof payload.iat === 'number' ? payload.iat : now);
  if (lifetime > config.maxLifetimeSeconds) {
    throw new TokenRefused(
      `The token's exp claim is too far ahead: tokens may live at most ${config.maxLifetimeSeconds} seconds after their iat.`,
    );
  }
  const roles = claimAt(payload, rolesClaim);
  const wellTyped =
    roles === undefined ||
    typeof roles === 'string' ||
    (Array.isArray(roles) && roles.every((role) => typeof role === 'string'));
  if (!wellTyped) {
    throw new TokenRefused(
      `The token's ${rolesClaim} claim must be a string or an array of strings.`,
    );
  }
  // `exp` is required and checked by jose; a number by then.
  return { subject, roles: rolesFrom(roles), expiresAt: Number(payload.exp) * 1000 };
}

function describe(error: unknown, config: RefdataSettings['tokens']): string {
  if (error instanceof errors.JWTExpired) return 'The token has expired.';
  if (error instanceof errors.JWTClaimValidationFailed) {
    if (error.claim === 'iss')
      return `The token's iss claim is not accepted: this service accepts tokens issued by ${config.issuer}.`;
    if (error.claim === 'aud')
      return `The token's aud claim is not accepted: this service accepts tokens for the audience ${config.audience}.`;
    const why =
      error.reason === 'missing'
        ? 'is missing'
        : error.reason === 'invalid'
          ? 'has the wrong type'
          : 'is not accepted';
    return `The token's ${error.claim} claim ${why}.`;
  }
  if (
    error instanceof errors.JWSSignatureVerificationFailed ||
    error instanceof errors.JWKSNoMatchingKey
  ) {
    return 'The token is not signed by a key this service trusts.';
  }
  if (error instanceof errors.JOSEAlgNotAllowed || error instanceof errors.JOSENotSupported) {
    return 'The token uses an algorithm this service does not accept.';
  }
  if (error instanceof errors.JWKSTimeout || error instanceof errors.JWKSInvalid) {
    return 'The identity provider\u2019s keys could not be read.';
  }
  return 'The token is malformed.';
}

/** A token from refdata's own key, for the embedded set-up (admin command, tests). */
export async function mintToken(
  key: SigningKey,
  config: RefdataSettings['tokens'],
  input: { subject: string; roles: readonly Role[]; lifetimeSeconds: number; now?: number },
): Promise<string> {
  const now = Math.floor((input.now ?? Date.now()) / 1000);
  return new SignJWT({ [config.rolesClaim]: [...input.roles] })
    .setProtectedHeader({ alg: SIGNING_ALGORITHM, kid: key.kid, typ: 'at+jwt' })
    .setSubject(input.subject)
    .setIssuer(config.issuer)
    .setAudience(config.audience)
    .setIssuedAt(now)
    .setExpirationTime(now + input.lifetimeSeconds)
    .sign(key.privateKey);
}
