import type { Kysely, Selectable } from 'kysely';
import { newSecret, secretHash } from '../../platform/security/secrets.js';
import type { PersonalAccessTokensTable, RefdataTables } from '../db/tables.js';
import { type Role, rolesFrom } from './roles.js';
import { type Principal, TokenRefused } from './tokens.js';

export type PersonalTokenRow = Selectable<PersonalAccessTokensTable>;

/** GitLab's prefix is `glpat-`; refdata's says whose token it is at a glance (and to secret scanners). */
export const PERSONAL_TOKEN_PREFIX = 'rdpat-';
/** GitLab's longest lifetime for a personal access token. */
export const MAX_PERSONAL_TOKEN_DAYS = 365;
/** Last use is written at most this often per token: a busy script is not a write per call. */
const LAST_USED_RESOLUTION_MS = 60_000;
const MAX_NAME_LENGTH = 255;

/** Why a token cannot be made, said on the page. */
export class PersonalTokenRefused extends Error {
  override readonly name = 'PersonalTokenRefused';
  constructor(
    readonly field: 'name' | 'roles' | 'expires_at',
    message: string,
  ) {
    super(message);
  }
}

/**
 * Personal access tokens for refdata's API, made by a signed-in person on
 * their account page: a name, roles no wider than the person's, an expiry
 * within a year; shown once, stored as a hash, revocable, their last use kept.
 * A token's roles are also never wider than the person's as refdata last saw
 * them (their last sign-in), so losing a role takes it from their tokens too.
 */
export class PersonalTokens {
  constructor(
    private readonly db: Kysely<RefdataTables>,
    private readonly now: () => number = Date.now,
  ) {}

  async create(input: {
    subject: string;
    /** The person's roles now: the token carries at most these. */
    held: readonly Role[];
    name: string;
    roles: readonly string[];
    /** The last day it works (YYYY-MM-DD), in UTC. */
    expiresOn: string;
  }): Promise<{ token: string; row: PersonalTokenRow }> {
    const name = input.name.trim();
    if (name === '' || name.length > MAX_NAME_LENGTH) {
      throw new PersonalTokenRefused(
        'name',
        `Give the token a name of 1 to ${MAX_NAME_LENGTH} characters.`,
      );
    }
    const roles = rolesFrom([...input.roles]);
    if (roles.length === 0 || roles.length !== new Set(input.roles).size) {
      throw new PersonalTokenRefused('roles', 'Choose at least one of your roles for the token.');
    }
    const wider = roles.find((role) => !input.held.includes(role));
    if (wider) {
      throw new PersonalTokenRefused(
        'roles',
        `You do not hold the role ${wider}, so a token of yours cannot.`,
      );
    }
    const match = /^(\d{4})-(\d{2})-(\d{2})$/.exec(input.expiresOn);
    const endOfDay = match
      ? Date.UTC(Number(match[1]), Number(match[2]) - 1, Number(match[3]), 23, 59, 59)
      : Number.NaN;
    const now = this.now();
    if (
      !match ||
      Number.isNaN(endOfDay) ||
      new Date(endOfDay).toISOString().slice(0, 10) !== input.expiresOn
    ) {
      throw new PersonalTokenRefused(
        'expires_at',
        'Give the expiry date as a day, such as 2027-01-31.',
      );
    }
    if (endOfDay <= now || endOfDay > now + MAX_PERSONAL_TOKEN_DAYS * 86_400_000) {
      throw new PersonalTokenRefused(
        'expires_at',
        `The expiry date must be after today and at most ${MAX_PERSONAL_TOKEN_DAYS} days ahead.`,
      );
    }
    const token = `${PERSONAL_TOKEN_PREFIX}${newSecret()}`;
    const row = await this.db
      .insertInto('personal_access_tokens')
      .values({
        token_hash: secretHash(token),
        subject: input.subject,
        name,
        roles: roles.join(' '),
        expires_at: endOfDay,
        created_at: now,
      })
      .returningAll()
      .executeTakeFirstOrThrow();
    return { token, row };
  }

  /** A person's tokens, newest first, revoked ones included (as GitLab lists them). */
  async of(subject: string): Promise<PersonalTokenRow[]> {
    return this.db
      .selectFrom('personal_access_tokens')
      .selectAll()
      .where('subject', '=', subject)
      .orderBy('id', 'desc')
      .execute();
  }

  /** Revokes one of the person's tokens; false when it is not theirs or was revoked already. */
  async revoke(subject: string, id: number): Promise<boolean> {
    const result = await this.db
      .updateTable('personal_access_tokens')
      .set({ revoked_at: this.now() })
      .where('id', '=', id)
      .where('subject', '=', subject)
      .where('revoked_at', 'is', null)
      .executeTakeFirst();
    return result.numUpdatedRows > 0n;
  }

  /** Whether a bearer token is one of these (by its prefix), not a JWT. */
  owns(token: string): boolean {
    return token.startsWith(PERSONAL_TOKEN_PREFIX);
  }

  /** The caller a personal access token stands for, checked at every request (revocation is at once). */
  async verify(token: string): Promise<Principal> {
    if (!/^rdpat-[0-9a-f]{64}$/.test(token)) throw new TokenRefused('The token is malformed.');
    const row = await this.db
      .selectFrom('personal_access_tokens')
      .leftJoin('people', 'people.subject', 'personal_access_tokens.subject')
      .select([
        'personal_access_tokens.id as id',
        'personal_access_tokens.subject as subject',
        'personal_access_tokens.roles as roles',
        'personal_access_tokens.expires_at as expiresAt',
        'personal_access_tokens.revoked_at as revokedAt',
        'personal_access_tokens.last_used_at as lastUsedAt',
        'people.roles as heldRoles',
      ])
      .where('token_hash', '=', secretHash(token))
      .executeTakeFirst();
    const now = this.now();
    if (!row || row.revokedAt !== null)
      throw new TokenRefused('The token has been revoked, or is not known.');
    if (Number(row.expiresAt) <= now) throw new TokenRefused('The token has expired.');
    if (row.lastUsedAt === null || now - Number(row.lastUsedAt) > LAST_USED_RESOLUTION_MS) {
      await this.db
        .updateTable('personal_access_tokens')
        .set({ last_used_at: now })
        .where('id', '=', row.id)
        .execute();
    }
    const held = row.heldRoles === null ? undefined : rolesFrom(row.heldRoles);
    return {
      subject: row.subject,
      roles: rolesFrom(row.roles).filter((role) => held === undefined || held.includes(role)),
      expiresAt: Number(row.expiresAt),
    };
  }
}
