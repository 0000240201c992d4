import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

/**
 * A new random secret: 32 bytes (256 bits) as 64 hex characters, the form
 * Doorkeeper gives GitLab's tokens.
 */
export function newSecret(): string {
  return randomBytes(32).toString('hex');
}

/**
 * How tokens, codes and client secrets are stored. They are 256-bit random values,
 * so a fast hash is enough to make a stolen table useless (no dictionary to try);
 * argon2 is for passwords, which people choose.
 */
export function secretHash(secret: string): string {
  return createHash('sha256').update(secret, 'utf8').digest('hex');
}

/** Compares two strings without leaking, through timing, where they first differ. */
export function constantTimeEqual(a: string, b: string): boolean {
  const left = createHash('sha256').update(a, 'utf8').digest();
  const right = createHash('sha256').update(b, 'utf8').digest();
  // Hashing first gives equal lengths, so the length is not leaked either.
  return timingSafeEqual(left, right) && a.length === b.length;
}

/** True when `secret` hashes to the stored hash; constant time. */
export function matchesSecretHash(secret: string, storedHash: string): boolean {
  return constantTimeEqual(secretHash(secret), storedHash);
}
