import { createHash } from 'node:crypto';
import { decodeJwt } from 'jose';
import { type ExpressionBuilder, type Kysely, type Selectable, sql } from 'kysely';
import { allColumns, prefixedColumns, splitPrefixed } from '../../platform/db/joined-rows.js';
import { reusableQuery } from '../../platform/db/reusable-query.js';
import { isPostgres } from '../../platform/db/schema.js';
import { constantTimeEqual, newSecret, secretHash } from '../../platform/security/secrets.js';
import type { UserRow } from '../accounts/users.js';
import { DEFAULT_RESOURCE_TOKEN_LIFETIME_SECONDS } from '../config.js';
import type {
  ApplicationRegistration,
  CodehostTables,
  OauthAccessGrantsTable,
  OauthAccessTokensTable,
} from '../db/tables.js';
import { scopesOf } from './applications.js';
import { formatScopes } from './scopes.js';

/** The spec's `expires_in`. */
export const ACCESS_TOKEN_LIFETIME_SECONDS = 7200;
/** RFC 6749 section 4.1.2 suggests at most ten minutes. */
export const CODE_LIFETIME_SECONDS = 600;

export type GrantRow = Selectable<OauthAccessGrantsTable>;
export type AccessTokenRow = Selectable<OauthAccessTokensTable>;

/** A token with its owner's row, read in one statement: the API and the refresh grant need both. */
export interface OwnedToken {
  token: AccessTokenRow;
  owner: UserRow;
}

const TOKEN_COLUMNS = allColumns<OauthAccessTokensTable>()([
  'id',
  'token_hash',
  'refresh_token_hash',
  'resource_owner_id',
  'application_id',
  'grant_id',
  'scopes',
  'expires_at',
  'revoked_at',
  'rotated_at',
  'retried_at',
  'resource',
  'created_at',
]);
const TOKEN_PREFIX = 'token__';

export interface IssuedToken {
  row: AccessTokenRow;
  accessToken: string;
  refreshToken?: string;
}

/** Why a code or refresh token is refused; all of them are invalid_grant on the wire. */
export class GrantRefused extends Error {
  override readonly name = 'GrantRefused';
}

/** RFC 7636: BASE64URL(SHA256(verifier)); verifiers are 43 to 128 unreserved characters. */
export function pkceChallenge(verifier: string): string {
  return createHash('sha256').update(verifier, 'ascii').digest('base64url');
}
export const PKCE_VERIFIER = /^[A-Za-z0-9\-._~]{43,128}$/;
export const PKCE_CHALLENGE = /^[A-Za-z0-9\-_]{43}$/;

/** Default grace for retrying a rotated refresh token (OAUTH_REFRESH_REUSE_GRACE_SECONDS). */
const DEFAULT_REFRESH_REUSE_GRACE_MS = 10_000;

/**
 * The stored hash of an access token. A token for a resource server is a JWT
 * whose `jti` is the random secret; its hash is taken with a prefix, so the
 * `jti` alone is never an access token to codehost's own API.
 */
export function accessTokenHash(secret: string, forResource: boolean): string {
  return secretHash(forResource ? `at+jwt:${secret}` : secret);
}

/** A JWT's `jti`, read without checking its signature (only to find its row), or undefined. */
function jwtId(token: string): string | undefined {
  if (!/^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/.test(token) || token.length > 16_384) {
    return undefined;
  }
  try {
    const { jti } = decodeJwt(token);
    return typeof jti === 'string' && /^[0-9a-f]{64}$/.test(jti) ? jti : undefined;
  } catch {
    return undefined;
  }
}

/** Authorization codes, access tokens and refresh tokens. Only their hashes are stored. */
export class TokenStore {
  private readonly now: () => number;
  private readonly refreshReuseGraceMs: number;
  private readonly resourceTokenLifetimeMs: number;
  private readonly postgres: boolean;

  constructor(
    private readonly db: Kysely<CodehostTables>,
    private readonly options: {
      refreshReuseGraceMs?: number;
      /** How long a JWT access token for a resource server lives. */
      resourceTokenLifetimeSeconds?: number;
      now?: () => number;
    } = {},
  ) {
    this.now = options.now ?? Date.now;
    this.postgres = isPostgres(db);
    this.refreshReuseGraceMs = options.refreshReuseGraceMs ?? DEFAULT_REFRESH_REUSE_GRACE_MS;
    this.resourceTokenLifetimeMs =
      (options.resourceTokenLifetimeSeconds ?? DEFAULT_RESOURCE_TOKEN_LIFETIME_SECONDS) * 1000;
  }

  /** The same store over a transaction. */
  within(trx: Kysely<CodehostTables>): TokenStore {
    return new TokenStore(trx, { ...this.options, now: this.now });
  }

  /** An access token's lifetime: GitLab's two hours, or the resource servers' short one. */
  private lifetimeMs(resource: string | null): number {
    return resource === null ? ACCESS_TOKEN_LIFETIME_SECONDS * 1000 : this.resourceTokenLifetimeMs;
  }

  async issueCode(input: {
    userId: number;
    applicationId: number;
    redirectUri: string;
    scopes: readonly string[];
    codeChallenge: string | undefined;
    nonce?: string | undefined;
    authTime?: number | null | undefined;
    /** How the user signed in (RFC 8176), for the ID token. */
    amr?: readonly string[] | undefined;
    /** The OpenID Connect session it was approved in. */
    sid?: string | undefined;
    /** RFC 8707: the resource server the token will be for. */
    resource?: string | undefined;
  }): Promise<string> {
    const code = newSecret();
    const now = this.now();
    await this.db
      .insertInto('oauth_access_grants')
      .values({
        token_hash: secretHash(code),
        resource_owner_id: input.userId,
        application_id: input.applicationId,
        redirect_uri: input.redirectUri,
        scopes: formatScopes(input.scopes),
        code_challenge: input.codeChallenge ?? null,
        nonce: input.nonce ?? null,
        auth_time: input.authTime ?? null,
        amr: input.amr?.join(' ') ?? null,
        sid: input.sid ?? null,
        resource: input.resource ?? null,
        expires_at: now + CODE_LIFETIME_SECONDS * 1000,
        created_at: now,
      })
      .execute();
    return code;
  }

  /**
   * Exchanges an authorization code for a token: the code is checked (its
   * client, expiry, redirect URI and PKCE verifier), then spent and the token
   * issued in one transaction, so neither happens without the other. `accept`
   * runs in between with the code's row (the user may no longer sign in, say)
   * and may refuse by throwing; nothing is stored then. A code used twice is a
   * replay: the tokens it gave are revoked (RFC 6749 section 4.1.2).
   */
  async exchangeCode<Accepted extends { userId: number }>(
    input: {
      code: string;
      applicationId: number;
      redirectUri: string;
      codeVerifier: string | undefined;
    },
    accept: (grant: GrantRow) => Promise<Accepted>,
  ): Promise<{ grant: GrantRow; issued: IssuedToken; accepted: Accepted }> {
    const grant = await this.db
      .selectFrom('oauth_access_grants')
      .selectAll()
      .where('token_hash', '=', secretHash(input.code))
      .executeTakeFirst();
    if (!grant || grant.application_id !== input.applicationId) {
      throw new GrantRefused('The authorization code is invalid.');
    }
    if (grant.used_at !== null) {
      await this.revokeChain(grant.id);
      throw new GrantRefused('The authorization code has already been used.');
    }
    if (Number(grant.expires_at) <= this.now()) {
      throw new GrantRefused('The authorization code has expired.');
    }
    if (grant.redirect_uri !== input.redirectUri) {
      throw new GrantRefused(
        'The redirect URI does not match the one used in the authorization request.',
      );
    }
    if (grant.code_challenge === null) {
      // A verifier for a request that had no challenge is a downgrade attempt (RFC 9700 2.1.1).
      if (input.codeVerifier !== undefined) {
        throw new GrantRefused('A code_verifier was sent but the request had no code_challenge.');
      }
    } else if (
      input.codeVerifier === undefined ||
      !PKCE_VERIFIER.test(input.codeVerifier) ||
      !constantTimeEqual(pkceChallenge(input.codeVerifier), grant.code_challenge)
    ) {
      throw new GrantRefused('The code_verifier does not match the code_challenge.');
    }
    const accepted = await accept(grant);
    const issued = await this.db.transaction().execute(async (trx) => {
      const spent = await trx
        .updateTable('oauth_access_grants')
        .set({ used_at: this.now() })
        .where('id', '=', grant.id)
        .where('used_at', 'is', null)
        .executeTakeFirst();
      // Another request spent it a moment ago: the same replay, handled below.
      if (spent.numUpdatedRows === 0n) return undefined;
      return this.within(trx).issueToken({
        userId: accepted.userId,
        applicationId: grant.application_id,
        grantId: grant.id,
        scopes: scopesOf(grant),
        withRefreshToken: true,
        resource: grant.resource,
      });
    });
    if (!issued) {
      await this.revokeChain(grant.id);
      throw new GrantRefused('The authorization code has already been used.');
    }
    return { grant, issued, accepted };
  }

  /** The authorization a token chain started from (its code), for what the ID token repeats. */
  async findGrantById(id: number): Promise<GrantRow | undefined> {
    return this.db
      .selectFrom('oauth_access_grants')
      .selectAll()
      .where('id', '=', id)
      .executeTakeFirst();
  }

  async issueToken(input: {
    userId: number;
    applicationId: number | null;
    grantId: number | null;
    scopes: readonly string[];
    withRefreshToken: boolean;
    /** RFC 8707: the resource server it is for (its access token is then a JWT's `jti`). */
    resource?: string | null;
  }): Promise<IssuedToken> {
    const accessToken = newSecret();
    const refreshToken = input.withRefreshToken ? newSecret() : undefined;
    const now = this.now();
    const resource = input.resource ?? null;
    const row = await this.db
      .insertInto('oauth_access_tokens')
      .values({
        token_hash: accessTokenHash(accessToken, resource !== null),
        refresh_token_hash: refreshToken ? secretHash(refreshToken) : null,
        resource_owner_id: input.userId,
        application_id: input.applicationId,
        grant_id: input.grantId,
        scopes: formatScopes(input.scopes),
        resource,
        expires_at: now + this.lifetimeMs(resource),
        created_at: now,
      })
      .returningAll()
      .executeTakeFirstOrThrow();
    return { row, accessToken, ...(refreshToken ? { refreshToken } : {}) };
  }

  /**
   * The token row a refresh token belongs to, if this client may refresh it. A
   * refresh token presented again after its rotation is taken as stolen and
   * revokes its whole chain (RFC 9700 section 4.14.2), unless it is a retry
   * within the grace window (see `withinGrace`).
   */
  async refreshable(refreshToken: string, applicationId: number): Promise<OwnedToken> {
    const found = /^[0-9a-f]{64}$/.test(refreshToken)
      ? await this.withOwner('refresh_token_hash', secretHash(refreshToken))
      : undefined;
    if (!found || found.token.application_id !== applicationId) {
      throw new GrantRefused('The refresh token is invalid.');
    }
    if (found.token.revoked_at !== null && !(await this.withinGrace(found.token))) {
      await this.revokeReused(found.token);
      throw new GrantRefused('The refresh token has been revoked.');
    }
    return found;
  }

  /**
   * Rotates a refresh token: revokes the old pair and issues the new one in one
   * transaction, so a failure between the two never leaves the client holding a
   * spent token whose retry would look like theft. A second use of the same
   * token (a retry after a lost response, or the loser of two concurrent
   * refreshes) within the grace window gets a pair of its own, once; a second
   * reuse, or one after the window, revokes the whole chain.
   */
  async rotate(previous: AccessTokenRow, scopes: readonly string[]): Promise<IssuedToken> {
    if (this.postgres) {
      const rotated = await this.rotateInOneStatement(previous, scopes);
      if (rotated) return rotated;
      // Revoked already: a retry, or a replay; the transaction below tells which.
    }
    const issued = await this.db.transaction().execute(async (trx) => {
      const now = this.now();
      const revoked = await trx
        .updateTable('oauth_access_tokens')
        .set({ revoked_at: now, rotated_at: now })
        .where('id', '=', previous.id)
        .where('revoked_at', 'is', null)
        .executeTakeFirst();
      if (revoked.numUpdatedRows === 0n) {
        const current = await trx
          .selectFrom('oauth_access_tokens')
          .selectAll()
          .where('id', '=', previous.id)
          .executeTakeFirst();
        if (!current || !(await this.withinGrace(current, trx))) return undefined;
        // One retry only, marked atomically: a second reuse (a thief's, or a third
        // concurrent refresh) finds the mark and is treated as theft.
        const marked = await trx
          .updateTable('oauth_access_tokens')
          .set({ retried_at: now })
          .where('id', '=', previous.id)
          .where('retried_at', 'is', null)
          .executeTakeFirst();
        if (marked.numUpdatedRows === 0n) return undefined;
      }
      return this.within(trx).issueToken({
        userId: previous.resource_owner_id,
        applicationId: previous.application_id,
        grantId: previous.grant_id,
        scopes,
        withRefreshToken: true,
        resource: previous.resource,
      });
    });
    if (!issued) {
      await this.revokeReused(previous);
      throw new GrantRefused('The refresh token has been revoked.');
    }
    return issued;
  }

  /**
   * The usual rotation as one statement on PostgreSQL, where an UPDATE may feed
   * an INSERT: the old token is revoked and the new one issued atomically, in
   * one round trip instead of four (BEGIN, UPDATE, INSERT, COMMIT). Nothing is
   * issued when the old token was revoked already.
   */
  private async rotateInOneStatement(
    previous: AccessTokenRow,
    scopes: readonly string[],
  ): Promise<IssuedToken | undefined> {
    const accessToken = newSecret();
    const refreshToken = newSecret();
    const now = this.now();
    const { rows } = await this.db.executeQuery(
      this.rotation(
        now,
        previous.id,
        accessTokenHash(accessToken, previous.resource !== null),
        secretHash(refreshToken),
        formatScopes(scopes),
        now + this.lifetimeMs(previous.resource),
      ),
    );
    const row = rows[0];
    return row ? { row, accessToken, refreshToken } : undefined;
  }

  private readonly rotation = reusableQuery(
    (
      now: string,
      previousId: string,
      tokenHash: string,
      refreshHash: string,
      scopes: string,
      expiresAt: string,
    ) =>
      this.db
        .with('revoked', (db) =>
          db
            .updateTable('oauth_access_tokens')
            // A stand-in where a number goes (`reusableQuery`).
            .set({ revoked_at: now as unknown as number, rotated_at: now as unknown as number })
            .where('id', '=', previousId as unknown as number)
            .where('revoked_at', 'is', null)
            .returning(['resource_owner_id', 'application_id', 'grant_id', 'resource']),
        )
        .insertInto('oauth_access_tokens')
        .columns([
          'token_hash',
          'refresh_token_hash',
          'resource_owner_id',
          'application_id',
          'grant_id',
          'scopes',
          'resource',
          'expires_at',
          'created_at',
        ])
        .expression((eb) =>
          eb.selectFrom('revoked').select([
            sql<string>`${tokenHash}::text`.as('token_hash'),
            sql<string>`${refreshHash}::text`.as('refresh_token_hash'),
            'resource_owner_id',
            'application_id',
            'grant_id',
            sql<string>`${scopes}::text`.as('scopes'),
            'resource',
            // A bare parameter in a select list would be taken for text.
            sql<number>`${expiresAt}::bigint`.as('expires_at'),
            sql<number>`${now}::bigint`.as('created_at'),
          ]),
        )
        .returningAll(),
  );

  /**
   * A spent refresh token may be used again once, for a short while: it was
   * rotated (not revoked by its owner or as stolen) within the grace window, it
   * was not retried before, and its chain still has a live token. The client
   * then gets a fresh pair; whichever pair it keeps works, and the other simply
   * expires. So at most two branches live, and a thief's use of a stolen token
   * either is that one retry (and the owner's next retry exposes it) or revokes
   * everything.
   */
  private async withinGrace(
    row: AccessTokenRow,
    db: Kysely<CodehostTables> = this.db,
  ): Promise<boolean> {
    if (
      row.rotated_at === null ||
      row.retried_at !== null ||
      Number(row.revoked_at) !== Number(row.rotated_at) ||
      row.grant_id === null
    )
      return false;
    if (this.now() - Number(row.rotated_at) > this.refreshReuseGraceMs) return false;
    const live = await db
      .selectFrom('oauth_access_tokens')
      .select('id')
      .where('grant_id', '=', row.grant_id)
      .where('revoked_at', 'is', null)
      .limit(1)
      .executeTakeFirst();
    return live !== undefined;
  }

  /** The reused token itself is already revoked; what it led to goes with it. */
  private async revokeReused(row: AccessTokenRow): Promise<void> {
    if (row.grant_id !== null) await this.revokeChain(row.grant_id);
  }

  /**
   * An access token of codehost's own API and its owner, by the token (every API
   * request asks). A token for another resource server is never one of these.
   */
  async findAccessTokenWithOwner(token: string): Promise<OwnedToken | undefined> {
    if (!/^[0-9a-f]{64}$/.test(token)) return undefined;
    return this.withOwner('token_hash', secretHash(token));
  }

  private selectWithOwner() {
    return this.db
      .selectFrom('oauth_access_tokens')
      .innerJoin('users', 'users.id', 'oauth_access_tokens.resource_owner_id')
      .selectAll('users')
      .select(prefixedColumns('oauth_access_tokens', TOKEN_COLUMNS, TOKEN_PREFIX));
  }

  /** Every API request and every refresh reads one of these: each is built once. */
  private readonly withOwnerByHash = {
    token_hash: reusableQuery((hash: string) =>
      this.selectWithOwner()
        .where('oauth_access_tokens.token_hash', '=', hash)
        .where('oauth_access_tokens.resource', 'is', null),
    ),
    refresh_token_hash: reusableQuery((hash: string) =>
      this.selectWithOwner().where('oauth_access_tokens.refresh_token_hash', '=', hash),
    ),
  };

  private async withOwner(
    column: 'token_hash' | 'refresh_token_hash',
    hash: string,
  ): Promise<OwnedToken | undefined> {
    const [row] = (await this.db.executeQuery(this.withOwnerByHash[column](hash))).rows;
    if (!row) return undefined;
    const { prefixed, rest } = splitPrefixed<AccessTokenRow, UserRow>(row, TOKEN_PREFIX);
    return { token: prefixed, owner: rest };
  }

  /** An access token's row, by the opaque token or by a JWT access token's `jti`. */
  async findByAccessToken(token: string): Promise<AccessTokenRow | undefined> {
    const jti = /^[0-9a-f]{64}$/.test(token) ? undefined : jwtId(token);
    if (jti === undefined && !/^[0-9a-f]{64}$/.test(token)) return undefined;
    const row = await this.db
      .selectFrom('oauth_access_tokens')
      .selectAll()
      .where('token_hash', '=', jti === undefined ? secretHash(token) : accessTokenHash(jti, true))
      .executeTakeFirst();
    return row;
  }

  async findByRefreshToken(token: string): Promise<AccessTokenRow | undefined> {
    if (!/^[0-9a-f]{64}$/.test(token)) return undefined;
    return this.db
      .selectFrom('oauth_access_tokens')
      .selectAll()
      .where('refresh_token_hash', '=', secretHash(token))
      .executeTakeFirst();
  }

  isActive(row: AccessTokenRow): boolean {
    return row.revoked_at === null && Number(row.expires_at) > this.now();
  }

  async revoke(rowId: number): Promise<void> {
    await this.db
      .updateTable('oauth_access_tokens')
      .set({ revoked_at: this.now() })
      .where('id', '=', rowId)
      .where('revoked_at', 'is', null)
      .execute();
  }

  /** Everything issued from one authorization code, refreshes included. */
  async revokeChain(grantId: number): Promise<void> {
    await this.db
      .updateTable('oauth_access_tokens')
      .set({ revoked_at: this.now() })
      .where('grant_id', '=', grantId)
      .where('revoked_at', 'is', null)
      .execute();
  }

  /** "Revoke access": every token and unused code the user gave an application. */
  async revokeAuthorization(userId: number, applicationId: number): Promise<void> {
    const now = this.now();
    await this.db.transaction().execute(async (trx) => {
      await trx
        .updateTable('oauth_access_tokens')
        .set({ revoked_at: now })
        .where('resource_owner_id', '=', userId)
        .where('application_id', '=', applicationId)
        .where('revoked_at', 'is', null)
        .execute();
      await trx
        .updateTable('oauth_access_grants')
        .set({ used_at: now })
        .where('resource_owner_id', '=', userId)
        .where('application_id', '=', applicationId)
        .where('used_at', 'is', null)
        .execute();
    });
  }

  /** A token that is not revoked and either still valid or refreshable. */
  private inForce() {
    const now = this.now();
    return (eb: ExpressionBuilder<CodehostTables, 'oauth_access_tokens'>) =>
      eb.and([
        eb('oauth_access_tokens.revoked_at', 'is', null),
        eb.or([
          eb('oauth_access_tokens.expires_at', '>', now),
          eb('oauth_access_tokens.refresh_token_hash', 'is not', null),
        ]),
      ]);
  }

  /** Applications holding a token of the user that still works or can be refreshed. */
  async authorizedApplications(userId: number): Promise<
    {
      id: number;
      name: string;
      scopes: string;
      authorizedAt: number;
      registration: ApplicationRegistration;
    }[]
  > {
    const rows = await this.db
      .selectFrom('oauth_access_tokens')
      .innerJoin(
        'oauth_applications',
        'oauth_applications.id',
        'oauth_access_tokens.application_id',
      )
      .select((eb) => [
        'oauth_applications.id as id',
        'oauth_applications.name as name',
        'oauth_applications.registration as registration',
        eb.fn.max('oauth_access_tokens.scopes').as('scopes'),
        eb.fn.min('oauth_access_tokens.created_at').as('authorizedAt'),
      ])
      .where('oauth_access_tokens.resource_owner_id', '=', userId)
      .where(this.inForce())
      .groupBy([
        'oauth_applications.id',
        'oauth_applications.name',
        'oauth_applications.registration',
      ])
      .orderBy('oauth_applications.name')
      .execute();
    return rows.map((row) => ({
      id: row.id,
      name: row.name,
      scopes: String(row.scopes),
      authorizedAt: Number(row.authorizedAt),
      registration: row.registration,
    }));
  }

  /**
   * Whether the user already gave this application these scopes, with a token
   * still in force, so consent need not be asked again (as Doorkeeper does).
   */
  async hasAuthorized(
    userId: number,
    applicationId: number,
    scopes: readonly string[],
    resource: string | undefined = undefined,
  ) {
    const rows = await this.db
      .selectFrom('oauth_access_tokens')
      .select('oauth_access_tokens.scopes')
      .where('oauth_access_tokens.resource_owner_id', '=', userId)
      .where('oauth_access_tokens.application_id', '=', applicationId)
      // Access to one API is not access to another: each is asked for once.
      .where('oauth_access_tokens.resource', resource === undefined ? 'is' : '=', resource ?? null)
      .where(this.inForce())
      .execute();
    // Doorkeeper's rule: only the same set of scopes is approved without asking;
    // fewer or other scopes are a new question for the user.
    const wanted = [...new Set(scopes)].sort().join(' ');
    return rows.some((row) => [...new Set(row.scopes.split(' '))].sort().join(' ') === wanted);
  }
}
