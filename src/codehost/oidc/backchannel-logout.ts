import { randomBytes } from 'node:crypto';
import { SignJWT } from 'jose';
import { type Kysely, sql } from 'kysely';
import type { QueueTable } from '../../platform/background/lease-claim.js';
import { type AttemptOutcome, LeasedQueue } from '../../platform/background/leased-queue.js';
import type { RetryPolicy } from '../../platform/background/retry-policy.js';
import { WorkLoop } from '../../platform/background/work-loop.js';
import type { OutboundPolicy } from '../../platform/http/outbound.js';
import { PACKAGE_VERSION } from '../../platform/version.js';
import type { CodehostTables } from '../db/tables.js';
import type { SigningKeyStore } from './signing-keys.js';

/** OpenID Connect Back-Channel Logout 1.0, section 2.4: the event a logout token carries. */
export const BACKCHANNEL_LOGOUT_EVENT = 'http://schemas.openid.net/event/backchannel-logout';
/** How long a logout token is good for: long enough for its trip, no longer. */
const LOGOUT_TOKEN_LIFETIME_SECONDS = 120;
/** How often every instance looks for ended sessions and due deliveries. */
const TICK_MS = 1000;
/** Each attempt waits this long for the relying party's answer. */
const ATTEMPT_TIMEOUT_MS = 5000;
/** How long a claimed delivery is held by the instance sending it. */
const CLAIM_MS = ATTEMPT_TIMEOUT_MS * 4;
/** Ended sessions and finished deliveries are kept this long, then swept. */
const KEPT_MS = 7 * 24 * 60 * 60 * 1000;
const SWEEP_EVERY_MS = 10 * 60 * 1000;
const BATCH = 50;
/** Logout tokens posted at once by one instance (one per relying party at a time). */
const CONCURRENCY = 16;

interface DeliveryRow {
  id: number;
  application_id: number;
  user_id: number;
  sid: string;
  jti: string;
}

/**
 * The deliveries as the kernel's queue sees them: due at `next_attempt_at`,
 * keyed by relying party, so that one slow or failing relying party holds
 * one slot and never the others' turns.
 */
const DELIVERIES: QueueTable = {
  table: 'backchannel_logout_deliveries',
  due: 'next_attempt_at',
  lease: 'lease_until',
  attempts: 'attempts',
  key: 'application_id',
  pending: (alias) =>
    sql<boolean>`${sql.ref(`${alias}.delivered_at`)} is null and ${sql.ref(`${alias}.failed_at`)} is null`,
};

/** A new OpenID Connect session ID: 256 random bits, base64url. */
export function newSessionId(): string {
  return randomBytes(32).toString('base64url');
}

interface Log {
  warn(object: object, message: string): void;
}

/**
 * Tells relying parties when a codehost session ends (OpenID Connect
 * Back-Channel Logout 1.0). Every signed-in session has a `sid`; an ID token
 * naming it records its relying party. A session is noticed to have ended
 * when its row is gone, whichever way it went (sign-out, ended from the
 * active-sessions page, a password change, a block, a command, expiry), so no
 * path can forget to tell. Each relying party with a back-channel logout URI
 * then gets a signed logout token, posted from here, retried with growing
 * waits, never in the user's request. Every instance runs this; claims in the
 * database keep two from sending the same token.
 */
export class BackchannelLogout {
  /** Notices ended sessions and turns them into deliveries. */
  private readonly loop: WorkLoop;
  /** Posts the deliveries, one at a time per relying party. */
  private readonly deliveries: LeasedQueue<DeliveryRow>;
  private log: Log | undefined;
  private sweptAt = 0;

  constructor(
    private readonly db: Kysely<CodehostTables>,
    private readonly signingKeys: SigningKeyStore,
    private readonly issuer: string,
    /** The one policy for addresses users give: checked again at each connection. */
    private readonly outbound: OutboundPolicy,
    /** The waits before each retry; after the last, the delivery is given up. */
    retry: RetryPolicy,
    private readonly now: () => number = Date.now,
  ) {
    this.loop = new WorkLoop({
      pollMilliseconds: TICK_MS,
      turn: () => this.noticeEndedSessions(),
      failed: (error) => this.log?.warn({ err: error }, 'back-channel logout failed'),
    });
    this.deliveries = new LeasedQueue<DeliveryRow>(db, {
      table: DELIVERIES,
      settle: {
        done: (now) => ({ delivered_at: now, last_error: null }),
        retry: (error) => ({ last_error: error.slice(0, 500) }),
        failed: (now, error) => ({ failed_at: now, last_error: error.slice(0, 500) }),
      },
      attempt: (delivery) => this.deliver(delivery),
      retry,
      leaseMs: CLAIM_MS,
      concurrency: CONCURRENCY,
      pollMilliseconds: TICK_MS,
      failed: (error) => this.log?.warn({ err: error }, 'back-channel logout failed'),
      now,
    });
  }

  /** A new session signed in: its `sid`, kept with the browser session it belongs to. */
  async sessionStarted(sid: string, userId: number, sessionIdHash: string): Promise<void> {
    await this.db
      .insertInto('oidc_sessions')
      .values({ sid, user_id: userId, session_id_hash: sessionIdHash, created_at: this.now() })
      .execute();
  }

  /** An ID token naming `sid` went to this application: it will hear when the session ends. */
  async tokenIssued(sid: string, applicationId: number): Promise<void> {
    await this.db
      .insertInto('oidc_session_clients')
      .values({ sid, application_id: applicationId, created_at: this.now() })
      .onConflict((conflict) => conflict.columns(['sid', 'application_id']).doNothing())
      .execute();
  }

  start(log: Log): void {
    this.log = log;
    this.loop.start();
    this.deliveries.start();
  }

  /** A session was just ended here: look now rather than at the next tick. */
  nudge(): void {
    this.loop.wake();
  }

  async close(): Promise<void> {
    await this.loop.close();
    await this.deliveries.close();
  }

  /**
   * Sessions whose browser session is gone are marked ended, one statement
   * each so that one instance takes each, and every relying party told of it
   * that has a back-channel logout URI gets a delivery.
   */
  private async noticeEndedSessions(): Promise<void> {
    const ended = await this.db
      .selectFrom('oidc_sessions')
      .leftJoin('sessions', 'sessions.id_hash', 'oidc_sessions.session_id_hash')
      .select(['oidc_sessions.sid', 'oidc_sessions.user_id'])
      .where('oidc_sessions.ended_at', 'is', null)
      .where('sessions.id_hash', 'is', null)
      .limit(BATCH)
      .execute();
    for (const session of ended) {
      await this.db.transaction().execute(async (trx) => {
        const now = this.now();
        const marked = await trx
          .updateTable('oidc_sessions')
          .set({ ended_at: now })
          .where('sid', '=', session.sid)
          .where('ended_at', 'is', null)
          .executeTakeFirst();
        if (marked.numUpdatedRows === 0n) return;
        const clients = await trx
          .selectFrom('oidc_session_clients')
          .innerJoin(
            'oauth_applications',
            'oauth_applications.id',
            'oidc_session_clients.application_id',
          )
          .select('oauth_applications.id')
          .where('oidc_session_clients.sid', '=', session.sid)
          .where('oauth_applications.backchannel_logout_uri', '!=', '')
          .execute();
        if (clients.length === 0) return;
        await trx
          .insertInto('backchannel_logout_deliveries')
          .values(
            clients.map((client) => ({
              application_id: client.id,
              user_id: session.user_id,
              sid: session.sid,
              jti: randomBytes(16).toString('base64url'),
              next_attempt_at: now,
              created_at: now,
            })),
          )
          .execute();
      });
    }
    // What was just queued is posted now, not at the queue's next look.
    if (ended.length > 0) this.deliveries.wake();
    if (ended.length === 0 && this.now() - this.sweptAt > SWEEP_EVERY_MS) await this.sweep();
  }

  /**
   * One claimed delivery: its relying party's address read now (a changed or
   * removed URI counts, not the one at sign-out), then the logout token posted.
   */
  private async deliver(delivery: DeliveryRow): Promise<AttemptOutcome> {
    const application = await this.db
      .selectFrom('oauth_applications')
      .select(['uid', 'backchannel_logout_uri', 'configured_by_operator'])
      .where('id', '=', delivery.application_id)
      .executeTakeFirst();
    if (!application?.backchannel_logout_uri)
      return {
        ok: false,
        error: 'the application no longer has a back-channel logout URI',
        final: true,
      };
    const policy =
      application.configured_by_operator === 1
        ? this.outbound.forOperatorAddresses()
        : this.outbound;
    const error = await this.post(policy, application.backchannel_logout_uri, {
      clientId: application.uid,
      userId: delivery.user_id,
      sid: delivery.sid,
      jti: delivery.jti,
    });
    return error === undefined ? { ok: true } : { ok: false, error };
  }

  /**
   * Posts one logout token; the reason it was not taken, or undefined. A
   * redirect is not an answer (section 2.5: a relying party answers itself),
   * and the policy follows none.
   */
  private async post(
    policy: OutboundPolicy,
    uri: string,
    token: { clientId: string; userId: number; sid: string; jti: string },
  ): Promise<string | undefined> {
    const answer = await policy.post(uri, {
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        'user-agent': `codehost-backchannel-logout/${PACKAGE_VERSION}`,
      },
      body: new URLSearchParams({ logout_token: await this.logoutToken(token) }).toString(),
      timeoutMs: ATTEMPT_TIMEOUT_MS,
    });
    return answer.ok ? undefined : (answer.error ?? `answered ${answer.status}`);
  }

  /**
   * Section 2.4: signed as ID tokens are, typed `logout+jwt`, naming the user
   * and the session, with the logout event and no nonce. Made at each attempt,
   * so a retry is not sent an expired token; its `jti` stays the same.
   */
  async logoutToken(token: {
    clientId: string;
    userId: number;
    sid: string;
    jti: string;
  }): Promise<string> {
    const key = await this.signingKeys.signingKey();
    const now = Math.floor(this.now() / 1000);
    return new SignJWT({ sid: token.sid, events: { [BACKCHANNEL_LOGOUT_EVENT]: {} } })
      .setProtectedHeader({ alg: key.alg, kid: key.kid, typ: 'logout+jwt' })
      .setIssuer(this.issuer)
      .setSubject(String(token.userId))
      .setAudience(token.clientId)
      .setIssuedAt(now)
      .setExpirationTime(now + LOGOUT_TOKEN_LIFETIME_SECONDS)
      .setJti(token.jti)
      .sign(await this.signingKeys.privateKey(key));
  }

  /** What no one needs any more: sessions ended and deliveries finished a week ago. */
  private async sweep(): Promise<void> {
    this.sweptAt = this.now();
    const before = this.now() - KEPT_MS;
    await this.db.deleteFrom('oidc_sessions').where('ended_at', '<', before).execute();
    await this.db
      .deleteFrom('backchannel_logout_deliveries')
      .where((eb) => eb.or([eb('delivered_at', '<', before), eb('failed_at', '<', before)]))
      .execute();
  }
}
