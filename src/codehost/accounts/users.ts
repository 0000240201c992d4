import type { Kysely, Selectable } from 'kysely';
import { ConstraintViolationError } from '../../platform/db/errors.js';
import { controlCharacterIn } from '../../platform/one-line-text.js';
import type { CodehostTables, UsersTable } from '../db/tables.js';
import { type PasswordHasher, passwordProblem } from './passwords.js';

export type UserRow = Selectable<UsersTable>;

/** A rule a new or changed account broke; `field` names the form field. */
export class AccountError extends Error {
  override readonly name = 'AccountError';
  constructor(
    readonly field: 'username' | 'email' | 'password' | 'name' | 'user',
    message: string,
  ) {
    super(message);
  }
}

/** GitLab's namespace rule: letters, digits, `_`, `-` and `.`, not starting with `-` or `.`. */
const USERNAME = /^[a-zA-Z0-9_][a-zA-Z0-9_.-]{0,254}$/;
const RESERVED_SUFFIX = /\.(git|atom)$/i;
/**
 * An address people can read as it is: a local part of RFC 5322's unquoted
 * characters (and letters and digits of any script), a domain of labels. No
 * quoted forms, no spaces, controls or invisible characters, so an address
 * shown on a page cannot pass for another one.
 */
const EMAIL =
  /^[\p{L}\p{N}!#$%&'*+/=?^_`{|}~-]+(\.[\p{L}\p{N}!#$%&'*+/=?^_`{|}~-]+)*@[\p{L}\p{N}](?:[\p{L}\p{N}-]*[\p{L}\p{N}])?(\.[\p{L}\p{N}](?:[\p{L}\p{N}-]*[\p{L}\p{N}])?)+$/u;

export function normalizeEmail(email: string): string {
  return email.trim().toLowerCase();
}

export function validEmail(email: string): boolean {
  const local = email.split('@')[0] ?? '';
  return email.length <= 255 && local.length <= 64 && EMAIL.test(email);
}

export interface NewUser {
  username: string;
  name: string;
  email: string;
  password: string;
  isAdmin?: boolean;
  /** The password was chosen for the user (the first root password): ask for their own. */
  mustChangePassword?: boolean;
}

/** Users, their e-mail addresses and their passwords. */
export class UserStore {
  constructor(
    private readonly db: Kysely<CodehostTables>,
    private readonly hasher: PasswordHasher,
    private readonly now: () => number = Date.now,
  ) {}

  async create(input: NewUser): Promise<UserRow> {
    const username = input.username.trim();
    const email = input.email.trim();
    const name = input.name.trim();
    if (!USERNAME.test(username) || RESERVED_SUFFIX.test(username)) {
      throw new AccountError(
        'username',
        'Username may contain only letters, digits, "_", "-" and ".", and cannot start with "-" or "." or end in ".git" or ".atom"',
      );
    }
    if (name.length === 0 || name.length > 255) {
      throw new AccountError('name', 'Name must be 1 to 255 characters');
    }
    const control = controlCharacterIn(name);
    if (control) {
      throw new AccountError(
        'name',
        `Name may not hold control characters (${control}, a line break or a tab among them)`,
      );
    }
    if (!validEmail(email)) throw new AccountError('email', 'Email is invalid');
    const weak = passwordProblem(input.password);
    if (weak) throw new AccountError('password', `Password ${weak}`);

    const passwordHash = await this.hasher.hash(input.password);
    const now = this.now();
    try {
      return await this.db.transaction().execute(async (trx) => {
        const user = await trx
          .insertInto('users')
          .values({
            username,
            username_normalized: username.toLowerCase(),
            name,
            email,
            password_hash: passwordHash,
            is_admin: input.isAdmin ? 1 : 0,
            password_change_required: input.mustChangePassword ? 1 : 0,
            created_at: now,
            updated_at: now,
            // No mail is sent by this service, so addresses count as confirmed.
            confirmed_at: now,
          })
          .returningAll()
          .executeTakeFirstOrThrow();
        await trx
          .insertInto('emails')
          .values({
            user_id: user.id,
            email,
            email_normalized: normalizeEmail(email),
            created_at: now,
          })
          .execute();
        // The user's own namespace; its path shares a unique index with group paths.
        await trx
          .insertInto('namespaces')
          .values({
            kind: 'user',
            name: username,
            path: username,
            full_path: username,
            full_path_normalized: username.toLowerCase(),
            full_name: name,
            owner_id: user.id,
            created_at: now,
            updated_at: now,
          })
          .execute();
        return user;
      });
    } catch (error) {
      throw takenError(error);
    }
  }

  async findById(id: number): Promise<UserRow | undefined> {
    return this.db.selectFrom('users').selectAll().where('id', '=', id).executeTakeFirst();
  }

  async findByIds(ids: readonly number[]): Promise<UserRow[]> {
    if (ids.length === 0) return [];
    return this.db.selectFrom('users').selectAll().where('id', 'in', ids).execute();
  }

  async findByUsername(username: string): Promise<UserRow | undefined> {
    return this.db
      .selectFrom('users')
      .selectAll()
      .where('username_normalized', '=', username.trim().toLowerCase())
      .executeTakeFirst();
  }

  /** A login is a username or any of a user's e-mail addresses, in any letter case. */
  async findByLogin(login: string): Promise<UserRow | undefined> {
    const normalized = login.trim().toLowerCase();
    if (normalized.length === 0 || normalized.length > 255) return undefined;
    if (normalized.includes('@')) {
      return this.db
        .selectFrom('users')
        .innerJoin('emails', 'emails.user_id', 'users.id')
        .selectAll('users')
        .where('emails.email_normalized', '=', normalized)
        .executeTakeFirst();
    }
    return this.findByUsername(normalized);
  }

  async count(): Promise<number> {
    const row = await this.db
      .selectFrom('users')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .executeTakeFirstOrThrow();
    return Number(row.n);
  }

  /** The user's addresses, primary first. */
  async emailsOf(user: UserRow): Promise<string[]> {
    const rows = await this.db
      .selectFrom('emails')
      .select('email')
      .where('user_id', '=', user.id)
      .orderBy('id')
      .execute();
    const others = rows.map((row) => row.email).filter((email) => email !== user.email);
    return [user.email, ...others];
  }

  /** The user's addresses besides the primary one, oldest first, with their row IDs. */
  async secondaryEmails(user: UserRow): Promise<{ id: number; email: string }[]> {
    return this.db
      .selectFrom('emails')
      .select(['id', 'email'])
      .where('user_id', '=', user.id)
      .where('email_normalized', '!=', normalizeEmail(user.email))
      .orderBy('id')
      .execute();
  }

  async addEmail(userId: number, email: string): Promise<void> {
    const address = email.trim();
    if (!validEmail(address)) throw new AccountError('email', 'Email is invalid');
    try {
      await this.db
        .insertInto('emails')
        .values({
          user_id: userId,
          email: address,
          email_normalized: normalizeEmail(address),
          created_at: this.now(),
        })
        .execute();
    } catch (error) {
      throw takenError(error);
    }
  }

  /**
   * Removes one of the user's secondary addresses. The primary address cannot go,
   * nor the one notifications are sent to (the user chooses another first); an
   * address shown on the profile stops being shown.
   */
  async removeEmail(
    user: UserRow,
    email: string,
  ): Promise<'removed' | 'primary' | 'notification' | 'unknown'> {
    const normalized = normalizeEmail(email);
    if (normalized === normalizeEmail(user.email)) return 'primary';
    if (user.notification_email && normalized === normalizeEmail(user.notification_email)) {
      return 'notification';
    }
    return this.db.transaction().execute(async (trx) => {
      const result = await trx
        .deleteFrom('emails')
        .where('user_id', '=', user.id)
        .where('email_normalized', '=', normalized)
        .executeTakeFirst();
      if (Number(result.numDeletedRows) === 0) return 'unknown';
      if (user.public_email && normalizeEmail(user.public_email) === normalized) {
        await trx
          .updateTable('users')
          .set({ public_email: null, updated_at: this.now() })
          .where('id', '=', user.id)
          .execute();
      }
      return 'removed';
    });
  }

  async setState(userId: number, state: 'active' | 'blocked'): Promise<void> {
    await this.db.transaction().execute(async (trx) => {
      await trx
        .updateTable('users')
        .set({ state, updated_at: this.now() })
        .where('id', '=', userId)
        .execute();
      // A blocked user is signed out everywhere at once.
      if (state === 'blocked')
        await trx.deleteFrom('sessions').where('user_id', '=', userId).execute();
    });
  }

  /**
   * Sets a new password and signs the user out of every browser session. With
   * `mustChange` (an administrator's reset) the owner is asked for their own.
   */
  async setPassword(
    userId: number,
    password: string,
    options: { mustChange?: boolean } = {},
  ): Promise<void> {
    const weak = passwordProblem(password);
    if (weak) throw new AccountError('password', `Password ${weak}`);
    const passwordHash = await this.hasher.hash(password);
    await this.db.transaction().execute(async (trx) => {
      await trx
        .updateTable('users')
        .set({
          password_hash: passwordHash,
          password_change_required: options.mustChange ? 1 : 0,
          updated_at: this.now(),
        })
        .where('id', '=', userId)
        .execute();
      await trx.deleteFrom('sessions').where('user_id', '=', userId).execute();
    });
  }

  async checkPassword(user: UserRow, password: string): Promise<boolean> {
    return this.hasher.verify(user.password_hash, password);
  }

  /**
   * After a successful check: a hash made at an older cost is made again at the
   * configured one, so raising the cost reaches every account that signs in.
   */
  async upgradeHash(user: UserRow, password: string): Promise<void> {
    if (!this.hasher.needsRehash(user.password_hash)) return;
    await this.db
      .updateTable('users')
      .set({ password_hash: await this.hasher.hash(password) })
      .where('id', '=', user.id)
      .where('password_hash', '=', user.password_hash)
      .execute();
  }

  /** GitLab's pair: the previous sign-in moves to `last_sign_in_at`. Answers when this one was. */
  async recordSignIn(user: UserRow): Promise<number> {
    const now = this.now();
    await this.db
      .updateTable('users')
      .set({ last_sign_in_at: user.current_sign_in_at, current_sign_in_at: now })
      .where('id', '=', user.id)
      .execute();
    return now;
  }
}

function takenError(error: unknown): unknown {
  if (error instanceof ConstraintViolationError && error.kind === 'unique') {
    if (error.columns.some((column) => column.startsWith('email'))) {
      return new AccountError('email', 'Email has already been taken');
    }
    return new AccountError('username', 'Username has already been taken');
  }
  return error;
}

/** Whether a password alone no longer signs the user in: a TOTP app or a passkey is set up. */
export function isTwoFactorEnabled(user: UserRow): boolean {
  return user.otp_secret !== null || user.passkey_count > 0;
}

/** Whether the user has a TOTP app set up (one of the second factors). */
export function hasTotp(user: UserRow): boolean {
  return user.otp_secret !== null;
}
