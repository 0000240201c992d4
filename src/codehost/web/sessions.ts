import type {} from '@fastify/cookie';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Kysely } from 'kysely';
import { newSecret, secretHash } from '../../platform/security/secrets.js';
import type { CodehostTables } from '../db/tables.js';

export const SESSION_COOKIE = '_codehost_session';

/** What a browser session remembers between requests. */
export interface SessionData {
  /** The signed-in user. */
  userId?: number;
  /** Password accepted, two-factor code still due (and since when). */
  pendingUserId?: number;
  pendingSince?: number;
  /** Where to go once signed in (a path on this service). */
  returnTo?: string;
  /** A relying party's guess at the login (OpenID Connect `login_hint`), to fill in. */
  loginHint?: string;
  /** The synchronizer token every form posts back. */
  csrf: string;
  /** A TOTP secret offered on the set-up page, until the user confirms it. */
  otpSetupSecret?: string;
  /**
   * A new secret (token, application secret) on its way to the page that shows
   * it once, after a redirect: sealed with a key only the browser's cookie
   * gives, so the stored row never holds it readable.
   */
  sealedSecret?: string;
}

export interface Session {
  idHash: string;
  data: SessionData;
  /**
   * The cookie's ID itself, known only while handling this browser's request
   * (the table holds its hash): the key of what this session seals for itself.
   */
  id: string;
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

/** Sessions of signed-out visitors (a sign-in form, a pending code) live briefly. */
const ANONYMOUS_LIFETIME_MS = 2 * 60 * 60 * 1000;

/**
 * Browser sessions stored in the database, so every instance sees them. The
 * cookie holds a 256-bit random ID; the table holds only its SHA-256, so a copy
 * of the table cannot be replayed as cookies. Signing in issues a new ID.
 */
export class SessionStore {
  constructor(
    private readonly db: Kysely<CodehostTables>,
    private readonly options: { lifetimeMs: number; secureCookie: boolean },
    private readonly now: () => number = Date.now,
  ) {}

  async load(request: FastifyRequest): Promise<Session | undefined> {
    const id = request.cookies[SESSION_COOKIE];
    if (!id || !/^[0-9a-f]{64}$/.test(id)) return undefined;
    const idHash = secretHash(id);
    const row = await this.db
      .selectFrom('sessions')
      .select(['data', 'expires_at', 'last_used_at'])
      .where('id_hash', '=', idHash)
      .executeTakeFirst();
    const now = this.now();
    if (!row || Number(row.expires_at) <= now) return undefined;
    let data: SessionData;
    try {
      data = JSON.parse(row.data) as SessionData;
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
    data: Omit<SessionData, 'csrf'>,
    previous?: Session,
  ): Promise<Session> {
    if (previous) await this.remove(previous);
    const id = newSecret();
    const session: Session = {
      idHash: secretHash(id),
      data: { ...data, csrf: newSecret() },
      id,
    };
    const lifetime = this.lifetimeOf(session.data);
    const now = this.now();
    await this.db
      .insertInto('sessions')
      .values({
        id_hash: session.idHash,
        user_id: session.data.userId ?? null,
        data: JSON.stringify(session.data),
        expires_at: now + lifetime,
        created_at: now,
        last_used_at: now,
        ...this.client(reply.request),
      })
      .execute();
    reply.setCookie(SESSION_COOKIE, id, {
      path: '/',
      httpOnly: true,
      sameSite: 'lax',
      secure: this.options.secureCookie,
      maxAge: Math.floor(lifetime / 1000),
    });
    return session;
  }

  async save(session: Session): Promise<void> {
    await this.db
      .updateTable('sessions')
      .set({ data: JSON.stringify(session.data), user_id: session.data.userId ?? null })
      .where('id_hash', '=', session.idHash)
      .execute();
  }

  async end(reply: FastifyReply, session: Session | undefined): Promise<void> {
    if (session) await this.remove(session);
    reply.clearCookie(SESSION_COOKIE, { path: '/' });
  }

  /** The user's signed-in sessions that have not expired, most recently used first. */
  async activeFor(userId: number): Promise<ActiveSession[]> {
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
  async revoke(userId: number, idHash: string): Promise<boolean> {
    const result = await this.db
      .deleteFrom('sessions')
      .where('user_id', '=', userId)
      .where('id_hash', '=', idHash)
      .executeTakeFirst();
    return Number(result.numDeletedRows) > 0;
  }

  /** Ends every session of the user except `keep`. */
  async revokeOthers(userId: number, keep: Session): Promise<void> {
    await this.db
      .deleteFrom('sessions')
      .where('user_id', '=', userId)
      .where('id_hash', '!=', keep.idHash)
      .execute();
  }

  async purgeExpired(): Promise<void> {
    await this.db.deleteFrom('sessions').where('expires_at', '<=', this.now()).execute();
  }

  private async remove(session: Session): Promise<void> {
    await this.db.deleteFrom('sessions').where('id_hash', '=', session.idHash).execute();
  }

  /** What identifies the browser to its owner (bounded: the header is the client's). */
  private client(request: FastifyRequest): { user_agent: string; ip_address: string } {
    return {
      user_agent: (request.headers['user-agent'] ?? '').slice(0, 512),
      ip_address: request.ip.slice(0, 512),
    };
  }

  private lifetimeOf(data: SessionData): number {
    return data.userId === undefined ? ANONYMOUS_LIFETIME_MS : this.options.lifetimeMs;
  }
}
