import { createHash } from 'node:crypto';
import { SignJWT } from 'jose';
import type { UserRow } from '../accounts/users.js';
import type { Codehost } from '../context.js';
import { issuerOf } from '../oauth/issuer.js';
import { claimsFor, userFacts } from './claims.js';

/** How long an ID token is valid: GitLab's (doorkeeper-openid_connect's) 120 s. */
export const ID_TOKEN_LIFETIME_SECONDS = 120;

/**
 * `at_hash` (OpenID Connect Core 3.1.3.6): the left half of the access token's
 * SHA-256 digest, base64url. Both algorithms offered (RS256, ES256) use SHA-256.
 */
export function accessTokenHash(accessToken: string): string {
  const digest = createHash('sha256').update(accessToken, 'ascii').digest();
  return digest.subarray(0, digest.length / 2).toString('base64url');
}

export interface IdTokenInput {
  user: UserRow;
  clientId: string;
  scopes: readonly string[];
  accessToken: string;
  /** When the user signed in (seconds); the original sign-in on a refresh. */
  authTime: number | undefined;
  /** The authorization request's nonce, on the code exchange only. */
  nonce: string | undefined;
  /** How the user signed in (RFC 8176), when known. */
  amr?: readonly string[] | undefined;
  /** The OpenID Connect session (Back-Channel Logout 1.0, section 2.1), when known. */
  sid?: string | undefined;
}

/** The `acr` values codehost gives, from the weakest; discovery lists them. */
export const ACR_VALUES = ['pwd', 'mfa', 'phr'] as const;

/**
 * The assurance of a sign-in, from how it was made: `phr` (OpenID EAP ACR
 * Values: phishing-resistant) when a passkey took part, `mfa` for two factors,
 * `pwd` for a password alone.
 */
export function acrOf(amr: readonly string[]): (typeof ACR_VALUES)[number] {
  if (amr.includes('hwk') || amr.includes('swk')) return 'phr';
  return amr.includes('mfa') ? 'mfa' : 'pwd';
}

/** An ID token signed with the provider's current key. */
export async function signIdToken(codehost: Codehost, input: IdTokenInput): Promise<string> {
  const key = await codehost.signingKeys.signingKey();
  const now = Math.floor(Date.now() / 1000);
  const claims = claimsFor(
    input.user,
    await userFacts(codehost, input.user),
    input.scopes,
    'idToken',
  );
  return new SignJWT({
    ...claims,
    ...(input.authTime === undefined ? {} : { auth_time: input.authTime }),
    ...(input.nonce === undefined ? {} : { nonce: input.nonce }),
    ...(input.amr === undefined ? {} : { amr: [...input.amr], acr: acrOf(input.amr) }),
    ...(input.sid === undefined ? {} : { sid: input.sid }),
    at_hash: accessTokenHash(input.accessToken),
  })
    .setProtectedHeader({ alg: key.alg, kid: key.kid, typ: 'JWT' })
    .setIssuer(issuerOf(codehost))
    .setSubject(String(input.user.id))
    .setAudience(input.clientId)
    .setIssuedAt(now)
    .setExpirationTime(now + ID_TOKEN_LIFETIME_SECONDS)
    .sign(await codehost.signingKeys.privateKey(key));
}
