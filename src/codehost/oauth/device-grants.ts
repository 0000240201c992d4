import { randomInt } from 'node:crypto';
import { type Kysely, type Selectable, sql } from 'kysely';
import { ConstraintViolationError } from '../../platform/db/errors.js';
import { newSecret, secretHash } from '../../platform/security/secrets.js';
import type { CodehostTables, OauthDeviceGrantsTable } from '../db/tables.js';
import { scopesOf } from './applications.js';
import { formatScopes } from './scopes.js';
import { type IssuedToken, TokenStore } from './tokens.js';

/** doorkeeper-device_authorization_grant's defaults, which GitLab keeps. */
export const DEVICE_CODE_LIFETIME_SECONDS = 300;
export const DEVICE_POLLING_INTERVAL_SECONDS = 5;
/** RFC 8628 section 3.5: each slow_down adds this to every later poll's interval. */
const SLOW_DOWN_STEP_SECONDS = 5;

/**
 * RFC 8628 section 6.1's example: twenty consonants, so a code spells no word and
 * holds no 0/O or 1/I to confuse; eight of them are about 34.5 bits, which the
 * guessing limit on the verification page makes out of reach.
 */
const USER_CODE_ALPHABET = 'BCDFGHJKLMNPQRSTVWXZ';
const USER_CODE_LENGTH = 8;
/** The longest text read as a user code: a pasted paragraph is not one. */
export const MAX_USER_CODE_INPUT = 32;

export type DeviceGrantRow = Selectable<OauthDeviceGrantsTable>;

/** What polling with a device code finds (RFC 8628 section 3.5). */
export type PollOutcome =
  | { kind: 'unknown' }
  | { kind: 'used' }
  | { kind: 'expired' }
  | { kind: 'denied' }
  | { kind: 'pending' }
  | { kind: 'slow-down'; intervalSeconds: number }
  | { kind: 'approved'; grant: DeviceGrantRow & { resource_owner_id: number } };

/** A new user code, as stored: eight letters of the alphabet, no separator. */
export function newUserCode(): string {
  let code = '';
  for (let index = 0; index < USER_CODE_LENGTH; index += 1) {
    code += USER_CODE_ALPHABET[randomInt(USER_CODE_ALPHABET.length)];
  }
  return code;
}

/** As people read it: `WDJB-MJHT`. */
export function displayedUserCode(code: string): string {
  return `${code.slice(0, 4)}-${code.slice(4)}`;
}

/**
 * What a person typed, as a stored code, or undefined when it cannot be one.
 * RFC 8628 section 6.1: case, spaces and dashes do not matter.
 */
export function normalizedUserCode(typed: string): string | undefined {
  if (typed.length > MAX_USER_CODE_INPUT) return undefined;
  // Any dash a phone or a word processor puts in (hyphen, en and em dash) counts as one.
  const letters = typed.toUpperCase().replace(/[\s\-\u2010-\u2015\u2212]/g, '');
  if (letters.length !== USER_CODE_LENGTH) return undefined;
  return [...letters].every((letter) => USER_CODE_ALPHABET.includes(letter)) ? letters : undefined;
}

/**
 * Device authorization requests (RFC 8628): issued to a client, approved or
 * denied by a signed-in user who types the user code, polled by the device
 * until its token is issued, once. Only hashes of both codes are stored.
 */
export class DeviceGrantStore {
  constructor(
    private readonly db: Kysely<CodehostTables>,
    private readonly now: () => number = Date.now,
    /** Issues the device's token (its lifetimes); one over this database by default. */
    private readonly tokens: TokenStore = new TokenStore(db, { now }),
  ) {}

  async request(input: {
    applicationId: number;
    scopes: readonly string[];
    /** RFC 8707: the resource server the token will be for. */
    resource?: string | undefined;
  }): Promise<{ deviceCode: string; userCode: string; row: DeviceGrantRow }> {
    const deviceCode = newSecret();
    // A user code is short, so two live ones may meet; the unique index says so.
    for (let attempt = 0; ; attempt += 1) {
      const userCode = newUserCode();
      const now = this.now();
      try {
        const row = await this.db
          .insertInto('oauth_device_grants')
          .values({
            device_code_hash: secretHash(deviceCode),
            user_code_hash: secretHash(userCode),
            application_id: input.applicationId,
            scopes: formatScopes(input.scopes),
            resource: input.resource ?? null,
            interval_seconds: DEVICE_POLLING_INTERVAL_SECONDS,
            expires_at: now + DEVICE_CODE_LIFETIME_SECONDS * 1000,
            created_at: now,
          })
          .returningAll()
          .executeTakeFirstOrThrow();
        return { deviceCode, userCode, row };
      } catch (error) {
        if (attempt < 3 && error instanceof ConstraintViolationError && error.kind === 'unique')
          continue;
        throw error;
      }
    }
  }

  /**
   * The request a user code names, and whether it still waits for a decision:
   * a code answered a moment ago (a reload, a second tab) is not a guess.
   */
  async findByUserCode(
    userCode: string,
  ): Promise<
    { grant: DeviceGrantRow; state: 'waiting' | 'approved' | 'denied' | 'expired' } | undefined
  > {
    const grant = await this.db
      .selectFrom('oauth_device_grants')
      .selectAll()
      .where('user_code_hash', '=', secretHash(userCode))
      .executeTakeFirst();
    if (!grant) return undefined;
    const state =
      grant.approved_at !== null
        ? 'approved'
        : grant.denied_at !== null
          ? 'denied'
          : Number(grant.expires_at) <= this.now()
            ? 'expired'
            : 'waiting';
    return { grant, state };
  }

  /**
   * Records the user's decision, if the request still waits for one (another
   * tab may have answered it, or it expired while the page was open).
   */
  async decide(
    id: number,
    decision: {
      userId: number;
      approve: boolean;
      authTime: number | null;
      amr: readonly string[] | undefined;
      sid: string | undefined;
    },
  ): Promise<boolean> {
    const now = this.now();
    const result = await this.db
      .updateTable('oauth_device_grants')
      .set({
        resource_owner_id: decision.userId,
        ...(decision.approve
          ? {
              approved_at: now,
              auth_time: decision.authTime,
              amr: decision.amr?.join(' ') ?? null,
              sid: decision.sid ?? null,
            }
          : {}),
        ...(decision.approve ? {} : { denied_at: now }),
      })
      .where('id', '=', id)
      .where('approved_at', 'is', null)
      .where('denied_at', 'is', null)
      .where('expires_at', '>', now)
      .executeTakeFirst();
    return result.numUpdatedRows > 0n;
  }

  /**
   * One poll of the token endpoint. A request still waiting remembers when it
   * was polled; a poll before the interval has passed is answered slow_down and
   * lengthens the interval (one statement each, so two instances agree).
   */
  async poll(deviceCode: string, applicationId: number): Promise<PollOutcome> {
    if (!/^[0-9a-f]{64}$/.test(deviceCode)) return { kind: 'unknown' };
    const grant = await this.db
      .selectFrom('oauth_device_grants')
      .selectAll()
      .where('device_code_hash', '=', secretHash(deviceCode))
      .executeTakeFirst();
    if (!grant || grant.application_id !== applicationId) return { kind: 'unknown' };
    const now = this.now();
    if (grant.used_at !== null) return { kind: 'used' };
    if (Number(grant.expires_at) <= now) return { kind: 'expired' };
    if (grant.denied_at !== null) return { kind: 'denied' };
    if (grant.approved_at !== null && grant.resource_owner_id !== null) {
      return { kind: 'approved', grant: { ...grant, resource_owner_id: grant.resource_owner_id } };
    }
    const onTime = await this.db
      .updateTable('oauth_device_grants')
      .set({ last_polled_at: now })
      .where('id', '=', grant.id)
      .where((eb) =>
        eb.or([
          eb('last_polled_at', 'is', null),
          eb(sql`last_polled_at + interval_seconds * 1000`, '<=', now),
        ]),
      )
      .executeTakeFirst();
    if (onTime.numUpdatedRows > 0n) return { kind: 'pending' };
    const slowed = await this.db
      .updateTable('oauth_device_grants')
      .set({
        last_polled_at: now,
        interval_seconds: sql`interval_seconds + ${SLOW_DOWN_STEP_SECONDS}`,
      })
      .where('id', '=', grant.id)
      .returning('interval_seconds')
      .executeTakeFirst();
    return {
      kind: 'slow-down',
      intervalSeconds: Number(slowed?.interval_seconds ?? grant.interval_seconds),
    };
  }

  /**
   * Issues the device's token for an approved request, spending it in the same
   * transaction. The approval becomes an authorization record like a code's,
   * already used, so the token's refreshes form a chain that replay detection
   * revokes whole, and a refreshed ID token repeats the original auth_time.
   */
  async exchange(
    grant: DeviceGrantRow & { resource_owner_id: number },
  ): Promise<IssuedToken | undefined> {
    return this.db.transaction().execute(async (trx) => {
      const now = this.now();
      const spent = await trx
        .updateTable('oauth_device_grants')
        .set({ used_at: now })
        .where('id', '=', grant.id)
        .where('used_at', 'is', null)
        .executeTakeFirst();
      // Two polls at once: the other one took the token.
      if (spent.numUpdatedRows === 0n) return undefined;
      const authorization = await trx
        .insertInto('oauth_access_grants')
        .values({
          // No code is ever handed out for it: the hash is of a secret nobody holds.
          token_hash: secretHash(newSecret()),
          resource_owner_id: grant.resource_owner_id,
          application_id: grant.application_id,
          redirect_uri: '',
          scopes: grant.scopes,
          code_challenge: null,
          nonce: null,
          auth_time: grant.auth_time,
          amr: grant.amr,
          sid: grant.sid,
          resource: grant.resource,
          expires_at: now,
          used_at: now,
          created_at: now,
        })
        .returning('id')
        .executeTakeFirstOrThrow();
      return this.tokens.within(trx).issueToken({
        userId: grant.resource_owner_id,
        applicationId: grant.application_id,
        grantId: authorization.id,
        scopes: scopesOf(grant),
        withRefreshToken: true,
        resource: grant.resource,
      });
    });
  }

  /** Requests that ended long enough ago that no device will poll them again. */
  async purgeExpired(olderThanMs: number): Promise<void> {
    await this.db
      .deleteFrom('oauth_device_grants')
      .where('expires_at', '<', this.now() - olderThanMs)
      .execute();
  }
}
