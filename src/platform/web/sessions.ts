import type {} from '@fastify/cookie';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Kysely } from 'kysely';
import { newSecret, secretHash } from '../security/secrets.js';

/** What every service's session data holds: the synchronizer token forms post back. */
export interface SessionBase {
  csrf: string;
}

/** Who a session is signed in as: a service's user ID (a number, or a provider's subject). */
export type SessionUser = number | string;

export interface Session<Data extends SessionBase> {
  idHash: string;
  data: Data;
  /**
   * The cookie's ID itself, known only while handling this browser's request
   * (the table holds its hash): the key of what this session seals for itself.
   */
  id: string;
}

/** The table each service that has pages keeps (created by its own migration). */
export interface SessionsTable {
  id_hash: string;
  user_id: SessionUser | null;
  data: string;
  expires_at: number;
  user_agent: string;
  ip_address: string;
  created_at: number;
  last_used_at: number;
}

/** A signed-in session as its owner sees it on the active-sessions page. */
export interface ActiveSession {
  idHash: string;
  userAgent: string;
  ipAddress: string;
  createdAt: number;
  lastUsedAt: number;
}

/** Last use is written at most this often, so reading pages does not write each time. */
const LAST_USE_PRECISION_MS = 60 * 1000;

export interface SessionStoreOptions<Data extends SessionBase> {
  /** The cookie's name, distinct per service: cookies are shared by every port of a host. */
  cookieName: string;
  /** How long a signed-in session lives. */
  lifetimeMs: number;
  /** `Secure` cookies (the service is reached over https). */
  secureCookie: boolean;
  /** Who the session is signed in as, if anyone. */
  userOf: (data: Data) => SessionUser | undefined;
}

/** Sessions of signed-out visitors (a sign-in form, a pending code) live briefly. */
const ANONYMOUS_LIFETIME_MS = 2 * 60 * 60 * 1000;

/**
 * Browser sessions stored in the database, so every instance sees them. The
 * cookie holds a 256-bit random ID; the table holds only its SHA-256, so a copy
 * of the table cannot be replayed as cookies. Signing in issues a new ID.
 */
export class SessionStore<Data extends SessionBase> {
  private readonly db: Kysely<{ sessions: SessionsTable }>;

  constructor(
    db: Kysely<never>,
    private readonly options: SessionStoreOptions<Data>,
    private readonly now: () => number = Date.now,
  ) {
    // Any service database with a `sessions` table of this shape.
    this.db = db as unknown as Kysely<{ sessions: SessionsTable }>;
  }

  async load(request: FastifyRequest): Promise<Session<Data> | undefined> {
    const id = request.cookies[this.options.cookieName];
    if (!id || !/^[0-9a-f]{64}$/.test(id)) return undefined;
    const idHash = secretHash(id);
    const row = await this.db
      .selectFrom('sessions')
      .select(['data', 'expires_at', 'last_used_at'])
      .where('id_hash', '=', idHash)
      .executeTakeFirst();
    const now = this.now();
    if (!row || Number(row.expires_at) <= now) return undefined;
    let data: Data;
    try {
      data = JSON.parse(row.data) as Data;
    } catch {
      return undefined;
    }
    if (now - Number(row.last_used_at) >= LAST_USE_PRECISION_MS) {
      await this.db
        .updateTable('sessions')
        .set({ last_used_at: now, ...this.client(request) })
        .where('id_hash', '=', idHash)
        .execute();
    }
    return { idHash, data, id };
  }

  /** A new session (new ID and cookie), dropping the one the request came with. */
  async start(
    reply: FastifyReply,
    data: Omit<Data, 'csrf'>,
    previous?: Session<Data>,
    options: { until?: number } = {},
  ): Promise<Session<Data>> {
    if (previous) await this.remove(previous);
    const id = newSecret();
    const session: Session<Data> = {
      idHash: secretHash(id),
      data: { ...data, csrf: newSecret() } as Data,
      id,
    };
    const now = this.now();
    // A session may end sooner than usual: one made from a token ends with it.
    const lifetime = Math.max(
      0,
      Math.min(this.lifetimeOf(session.data), (options.until ?? Number.POSITIVE_INFINITY) - now),
    );
    await this.db
      .insertInto('sessions')
      .values({
        id_hash: session.idHash,
        user_id: this.options.userOf(session.data) ?? null,
        data: JSON.stringify(session.data),
        expires_at: now + lifetime,
        created_at: now,
        last_used_at: now,
        ...this.client(reply.request),
      })
      .execute();
    reply.setCookie(this.options.cookieName, id, {
      path: '/',
      httpOnly: true,
      sameSite: 'lax',
      secure: this.options.secureCookie,
      maxAge: Math.floor(lifetime / 1000),
    });
    return session;
  }

  async save(session: Session<Data>): Promise<void> {
    await this.db
      .updateTable('sessions')
      .set({
        data: JSON.stringify(session.data),
        user_id: this.options.userOf(session.data) ?? null,
      })
      .where('id_hash', '=', session.idHash)
      .execute();
  }

  async end(reply: FastifyReply, session: Session<Data> | undefined): Promise<void> {
    if (session) await this.remove(session);
    reply.clearCookie(this.options.cookieName, { path: '/' });
  }

  /** The user's signed-in sessions that have not expired, most recently used first. */
  async activeFor(userId: SessionUser): Promise<ActiveSession[]> {
    const rows = await this.db
      .selectFrom('sessions')
      .select(['id_hash', 'user_agent', 'ip_address', 'created_at', 'last_used_at'])
      .where('user_id', '=', userId)
      .where('expires_at', '>', this.now())
      .orderBy('last_used_at', 'desc')
      .orderBy('id_hash')
      .execute();
    return rows.map((row) => ({
      idHash: row.id_hash,
      userAgent: row.user_agent,
      ipAddress: row.ip_address,
      createdAt: Number(row.created_at),
      lastUsedAt: Number(row.last_used_at),
    }));
  }

  /** Ends one of the user's sessions; false when it is not theirs or already gone. */
  async revoke(userId: SessionUser, idHash: string): Promise<boolean> {
    const result = await this.db
      .deleteFrom('sessions')
      .where('user_id', '=', userId)
      .where('id_hash', '=', idHash)
      .executeTakeFirst();
    return Number(result.numDeletedRows) > 0;
  }

  /** Ends every session of the user except `keep`. */
  async revokeOthers(userId: SessionUser, keep: Session<Data>): Promise<void> {
    await this.db
      .deleteFrom('sessions')
      .where('user_id', '=', userId)
      .where('id_hash', '!=', keep.idHash)
      .execute();
  }

  /**
   * Ends the signed-in sessions of `userId` (or of anyone, with `'anyone'`)
   * whose data `matches`; how many ended. A sign-out told by another party
   * (OpenID Connect back-channel logout) names sessions this way.
   */
  async endMatching(
    userId: SessionUser | 'anyone',
    matches: (data: Data) => boolean,
  ): Promise<number> {
    const rows = await this.db
      .selectFrom('sessions')
      .select(['id_hash', 'data'])
      .$if(userId === 'anyone', (query) => query.where('user_id', 'is not', null))
      .$if(userId !== 'anyone', (query) => query.where('user_id', '=', userId as SessionUser))
      .execute();
    const ending = rows
      .filter((row) => matches(JSON.parse(row.data) as Data))
      .map((row) => row.id_hash);
    if (ending.length === 0) return 0;
    const result = await this.db.deleteFrom('sessions').where('id_hash', 'in', ending).execute();
    return result.reduce((total, part) => total + Number(part.numDeletedRows), 0);
  }

  async purgeExpired(): Promise<void> {
    await this.db.deleteFrom('sessions').where('expires_at', '<=', this.now()).execute();
  }

  private async remove(session: Session<Data>): Promise<void> {
    await this.db.deleteFrom('sessions').where('id_hash', '=', session.idHash).execute();
  }

  /** What identifies the browser to its owner (bounded: the header is the client's). */
  private client(request: FastifyRequest): { user_agent: string; ip_address: string } {
    return {
      user_agent: (request.headers['user-agent'] ?? '').slice(0, 512),
      ip_address: request.ip.slice(0, 512),
    };
  }

  private lifetimeOf(data: Data): number {
    return this.options.userOf(data) === undefined
      ? ANONYMOUS_LIFETIME_MS
      : this.options.lifetimeMs;
  }
}
