import { hash, verify } from '@node-rs/argon2';
import type { SecurityConfig } from '../../platform/config.js';

export const PASSWORD_MIN_LENGTH = 8;
/** Longer inputs only cost hashing time; GitLab caps passwords at 128 characters. */
export const PASSWORD_MAX_LENGTH = 128;

/** argon2id hashing at the configured cost. */
export class PasswordHasher {
  private readonly options: {
    algorithm: 2;
    memoryCost: number;
    timeCost: number;
    parallelism: number;
  };
  private dummyHash: Promise<string> | undefined;

  constructor(cost: SecurityConfig['passwordHash']) {
    this.options = {
      algorithm: 2, // argon2id; the package's enum is a const enum, unusable across modules.
      memoryCost: cost.memoryKib,
      timeCost: cost.iterations,
      parallelism: cost.parallelism,
    };
  }

  hash(password: string): Promise<string> {
    return hash(password, this.options);
  }

  /**
   * Whether a stored hash was made at another cost than the configured one, so
   * that a sign-in with the right password should hash it again.
   */
  needsRehash(storedHash: string): boolean {
    const match = /^\$argon2id\$v=19\$m=(\d+),t=(\d+),p=(\d+)\$/.exec(storedHash);
    if (!match) return true;
    return (
      Number(match[1]) !== this.options.memoryCost ||
      Number(match[2]) !== this.options.timeCost ||
      Number(match[3]) !== this.options.parallelism
    );
  }

  async verify(storedHash: string, password: string): Promise<boolean> {
    try {
      return await verify(storedHash, password);
    } catch {
      return false; // A malformed stored hash matches nothing.
    }
  }

  /**
   * Spends the time of one verification without an account to check, so that a
   * sign-in for a login nobody has takes as long as one with a wrong password.
   */
  async verifyNothing(password: string): Promise<false> {
    this.dummyHash ??= this.hash('not a password anyone has');
    await this.verify(await this.dummyHash, password);
    return false;
  }
}

/** Why a new password is refused, or undefined when it is acceptable. */
export function passwordProblem(password: string): string | undefined {
  if (password.length < PASSWORD_MIN_LENGTH) {
    return `is too short (minimum is ${PASSWORD_MIN_LENGTH} characters)`;
  }
  if (password.length > PASSWORD_MAX_LENGTH) {
    return `is too long (maximum is ${PASSWORD_MAX_LENGTH} characters)`;
  }
  return undefined;
}
