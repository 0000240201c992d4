import type { SecurityConfig } from '../../platform/config.js';
import type { CounterStore } from '../../platform/security/counters.js';
import type { PasswordHasher } from './passwords.js';
import type { UserRow, UserStore } from './users.js';

export type PasswordCheck =
  | { outcome: 'ok'; user: UserRow }
  /** Wrong login or wrong password: never say which. */
  | { outcome: 'invalid' }
  /** Too many failures for this login; try again after `retryAfterSeconds`. */
  | { outcome: 'locked'; retryAfterSeconds: number }
  /** Right password, blocked account (said only once the password is proven). */
  | { outcome: 'blocked' };

/**
 * Checks a login and password for the sign-in form and the password grant alike,
 * counting failures per login in the shared counter table so that guessing one
 * account's password is slowed however many addresses the guesses come from.
 */
export class PasswordSignIn {
  constructor(
    private readonly users: UserStore,
    private readonly hasher: PasswordHasher,
    private readonly counters: CounterStore,
    private readonly limits: Pick<
      SecurityConfig,
      'signInFailuresPerAccount' | 'signInFailureWindowSeconds'
    >,
  ) {}

  async check(login: string, password: string): Promise<PasswordCheck> {
    // Keyed by what was typed, so an unknown login locks just like a real one.
    const key = `signin-failures:${login.trim().toLowerCase().slice(0, 255)}`;
    const windowMs = this.limits.signInFailureWindowSeconds * 1000;
    const failures = await this.counters.peek(key, windowMs);
    if (failures.count >= this.limits.signInFailuresPerAccount) {
      return { outcome: 'locked', retryAfterSeconds: Math.ceil(failures.resetsInMs / 1000) };
    }
    const user = await this.users.findByLogin(login);
    const valid = user
      ? await this.users.checkPassword(user, password)
      : await this.hasher.verifyNothing(password);
    if (!user || !valid) {
      await this.counters.hit(key, windowMs);
      return { outcome: 'invalid' };
    }
    // Most sign-ins follow no failure: nothing to clear then, and no statement sent.
    if (failures.count > 0) await this.counters.reset(key);
    if (user.state !== 'active') return { outcome: 'blocked' };
    await this.users.upgradeHash(user, password);
    return { outcome: 'ok', user };
  }
}
