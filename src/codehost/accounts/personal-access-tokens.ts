import type { Kysely, Selectable } from 'kysely';
import { newSecret, secretHash } from '../../platform/security/secrets.js';
import type { CodehostTables, PersonalAccessTokensTable } from '../db/tables.js';
import { formatScopes, type Scope } from '../oauth/scopes.js';

export type PersonalAccessTokenRow = Selectable<PersonalAccessTokensTable>;

export class PersonalAccessTokenError extends Error {
  override readonly name = 'PersonalAccessTokenError';
  constructor(
    readonly field: 'name' | 'scopes' | 'expires_at',
    message: string,
  ) {
    super(message);
  }
}

const DAY_MS = 24 * 60 * 60 * 1000;
/** `last_used_at` is written at most this often, so API calls rarely write. */
const LAST_USED_GRANULARITY_MS = 60_000;

/**
 * Parses an expiry date (`YYYY-MM-DD`). As in GitLab, a token works through the
 * day before and stops at midnight UTC starting that date; the date must be in the future.
 */
export function parseExpiryDate(text: string, now: number): number {
  const match = /^(\d{4})-(\d{2})-(\d{2})$/.exec(text.trim());
  const time = match ? Date.UTC(Number(match[1]), Number(match[2]) - 1, Number(match[3])) : NaN;
  const date = new Date(time);
  if (
    !match ||
    Number.isNaN(time) ||
    date.getUTCDate() !== Number(match[3]) ||
    date.getUTCMonth() !== Number(match[2]) - 1
  ) {
    throw new PersonalAccessTokenError('expires_at', 'Expires at must be a date (YYYY-MM-DD)');
  }
  if (time <= now)
    throw new PersonalAccessTokenError('expires_at', 'Expires at must be in the future');
  if (time > now + 3660 * DAY_MS) {
    throw new PersonalAccessTokenError('expires_at', 'Expires at must be within ten years');
  }
  return time;
}

/** Personal access tokens: made on the profile page, sent as `PRIVATE-TOKEN`. */
export class PersonalAccessTokenStore {
  constructor(
    private readonly db: Kysely<CodehostTables>,
    private readonly now: () => number = Date.now,
  ) {}

  async create(
    userId: number,
    input: { name: string; scopes: readonly Scope[]; expiresAt: number | null },
  ): Promise<{ row: PersonalAccessTokenRow; token: string }> {
    const name = input.name.trim();
    if (name.length === 0 || name.length > 255) {
      throw new PersonalAccessTokenError('name', 'Name must be 1 to 255 characters');
    }
    if (input.scopes.length === 0) {
      throw new PersonalAccessTokenError('scopes', 'Choose at least one scope');
    }
    const token = newSecret();
    const row = await this.db
      .insertInto('personal_access_tokens')
      .values({
        user_id: userId,
        name,
        token_hash: secretHash(token),
        scopes: formatScopes(input.scopes),
        expires_at: input.expiresAt,
        created_at: this.now(),
      })
      .returningAll()
      .executeTakeFirstOrThrow();
    return { row, token };
  }

  async listFor(userId: number): Promise<PersonalAccessTokenRow[]> {
    return this.db
      .selectFrom('personal_access_tokens')
      .selectAll()
      .where('user_id', '=', userId)
      .orderBy('id', 'desc')
      .execute();
  }

  async revoke(userId: number, id: number): Promise<boolean> {
    const result = await this.db
      .updateTable('personal_access_tokens')
      .set({ revoked_at: this.now() })
      .where('id', '=', id)
      .where('user_id', '=', userId)
      .where('revoked_at', 'is', null)
      .executeTakeFirst();
    return result.numUpdatedRows > 0n;
  }

  isActive(row: PersonalAccessTokenRow): boolean {
    return (
      row.revoked_at === null && (row.expires_at === null || Number(row.expires_at) > this.now())
    );
  }

  /** The token's row when it is one of ours and still in force; notes its use. */
  async findActive(token: string): Promise<PersonalAccessTokenRow | undefined> {
    if (!/^[0-9a-f]{64}$/.test(token)) return undefined;
    const row = await this.db
      .selectFrom('personal_access_tokens')
      .selectAll()
      .where('token_hash', '=', secretHash(token))
      .executeTakeFirst();
    if (!row || !this.isActive(row)) return undefined;
    const now = this.now();
    if (row.last_used_at === null || Number(row.last_used_at) < now - LAST_USED_GRANULARITY_MS) {
      await this.db
        .updateTable('personal_access_tokens')
        .set({ last_used_at: now })
        .where('id', '=', row.id)
        .execute();
    }
    return row;
  }
}
