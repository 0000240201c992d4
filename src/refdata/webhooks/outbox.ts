import { type Kysely, type Selectable, sql } from 'kysely';
import { claimUnderLease, type QueueTable } from '../../platform/background/lease-claim.js';
import type { RetryPolicy } from '../../platform/background/retry-policy.js';
import { isPostgres } from '../../platform/db/schema.js';
import { memberIri } from '../changes/feed-graph.js';
import type {
  ChangeEventsTable,
  RefdataTables,
  WebhookDeliveriesTable,
  WebhooksTable,
} from '../db/tables.js';
import type { Outcome } from './sender.js';

type EventRow = Selectable<ChangeEventsTable>;
type WebhookRow = Selectable<WebhooksTable>;

/** Events made into deliveries at once. */
const FAN_OUT_BATCH = 500;
/** Deliveries inserted per statement. */
const INSERT_BATCH = 200;
/**
 * With no subscription, events older than this are marked done unread: a
 * subscription takes its time just before its insert commits.
 */
const SETTLED_MS = 5000;
/** The advisory lock that keeps fan-out to one instance at a time on PostgreSQL. */
const FAN_OUT_LOCK = 7_361_021;

export type Next = 'delivered' | 'retry' | 'failed';

interface DeliveryRow {
  id: number;
  webhook_id: number;
  event_id: number;
  payload: string;
}

/**
 * The deliveries as the kernel's claim sees them: pending ones whose time has
 * come and sending ones whose lease lapsed (their instance died), of active
 * subscriptions; keyed by subscription (one attempt out per receiver, so a
 * slow one holds one slot), in event order per resource (a delivery waits for
 * an earlier event of the same resource to the same subscription).
 */
const DELIVERIES: QueueTable = {
  table: 'webhook_deliveries',
  due: 'next_attempt_at',
  lease: 'lease_until',
  attempts: 'attempts',
  key: 'webhook_id',
  orderWithin: 'resource_id',
  order: 'event_id',
  onClaim: { state: 'sending' },
  pending: (alias) => sql<boolean>`${sql.ref(`${alias}.state`)} in ('pending', 'sending')`,
  eligible: (alias) =>
    sql<boolean>`exists (select 1 from webhooks where webhooks.id = ${sql.ref(`${alias}.webhook_id`)} and webhooks.state = 'active')`,
};

/** A delivery claimed for sending, with what sending it needs. */
export interface ClaimedDelivery {
  id: number;
  webhookId: number;
  eventId: number;
  attempts: number;
  payload: string;
  url: string;
  secretSalt: string;
  /** The claim's own mark: its lease's end, which a later claim of the same delivery changes. */
  leaseUntil: number;
}

function listOf(text: string): string[] {
  const value: unknown = JSON.parse(text);
  return Array.isArray(value)
    ? value.filter((item): item is string => typeof item === 'string')
    : [];
}

/** Text a receiver sent, as a database column takes it (PostgreSQL refuses NUL). */
function storable(text: string): string {
  return text.replaceAll('\u0000', '\uFFFD');
}

/**
 * Whether a subscription wants an event: one made since it was, whose values
 * each list it names holds.
 */
export function wants(
  webhook: Pick<WebhookRow, 'events' | 'libraries' | 'families' | 'created_at'>,
  event: EventRow,
): boolean {
  if (Number(event.at) < Number(webhook.created_at)) return false;
  const events = listOf(webhook.events);
  const libraries = listOf(webhook.libraries);
  const families = listOf(webhook.families);
  return (
    (events.length === 0 || events.includes(event.event)) &&
    (libraries.length === 0 || libraries.includes(event.library_key)) &&
    (families.length === 0 || families.includes(event.family))
  );
}

/** The JSON a receiver gets: Standard Webhooks' `type`, `timestamp` and `data`. */
export function payloadOf(
  event: EventRow,
  publicUrl: string,
  person: { name: string; username: string | null } | undefined,
): string {
  const at = new Date(Number(event.at)).toISOString();
  return JSON.stringify({
    type: `resource.${event.event}`,
    timestamp: at,
    data: {
      event: event.event,
      iri: event.iri,
      family: event.family,
      library: event.library_key === '' ? null : event.library_key,
      status: event.status,
      version: event.version,
      at,
      actor: {
        subject: event.actor,
        name: person?.name ?? null,
        username: person?.username ?? null,
      },
      member: memberIri(publicUrl, Number(event.id)),
    },
  });
}

/**
 * The webhooks' outbox, in the database: events (written with the changes
 * they describe) become one delivery per subscription that wants them, and
 * deliveries are claimed for sending under a lease, so that an instance that
 * dies mid-way has its deliveries sent again by another (at least once) and
 * two instances never send the same one at once.
 */
export class Outbox {
  private readonly postgres: boolean;

  constructor(
    private readonly db: Kysely<RefdataTables>,
    private readonly publicUrl: string,
    private readonly now: () => number = Date.now,
  ) {
    this.postgres = isPostgres(db);
  }

  /**
   * Makes the deliveries of events not yet fanned out; answers how many events
   * it took (0: none left, or another instance is at it) and how many active
   * subscriptions there are (-1: not known, another instance is at it). One
   * instance at a time, so a resource's deliveries are made in its events' order.
   */
  async fanOut(): Promise<{ events: number; subscriptions: number }> {
    return this.db.transaction().execute(async (trx) => {
      if (this.postgres) {
        const { rows } = await sql<{
          locked: boolean;
        }>`select pg_try_advisory_xact_lock(${FAN_OUT_LOCK}) as locked`.execute(trx);
        if (!rows[0]?.locked) return { events: 0, subscriptions: -1 };
      }
      const events = await trx
        .selectFrom('change_events')
        .selectAll()
        .where('fanned_out', '=', 0)
        .orderBy('id')
        .limit(FAN_OUT_BATCH)
        .execute();
      if (events.length === 0) {
        const active = await trx
          .selectFrom('webhooks')
          .select('id')
          .where('state', '=', 'active')
          .limit(1)
          .execute();
        return { events: 0, subscriptions: active.length };
      }
      const now = this.now();
      const webhooks = await trx
        .selectFrom('webhooks')
        .selectAll()
        .where('state', '=', 'active')
        .execute();
      if (webhooks.length === 0) {
        // Nobody listens: every event settled long enough (a subscription made
        // meanwhile wants only events from its own time on) is done with, in one statement.
        const marked = await trx
          .updateTable('change_events')
          .set({ fanned_out: 1 })
          .where('fanned_out', '=', 0)
          .where('at', '<', now - SETTLED_MS)
          .executeTakeFirst();
        return { events: Number(marked.numUpdatedRows), subscriptions: 0 };
      }
      const actors = [...new Set(events.map((event) => event.actor))];
      const people = new Map(
        (
          await trx
            .selectFrom('people')
            .select(['subject', 'name', 'username'])
            .where('subject', 'in', actors)
            .execute()
        ).map((person) => [person.subject, person]),
      );

      const deliveries: Omit<Selectable<WebhookDeliveriesTable>, 'id'>[] = [];
      for (const event of events) {
        const wanting = webhooks.filter((webhook) => wants(webhook, event));
        if (wanting.length === 0) continue;
        const payload = payloadOf(event, this.publicUrl, people.get(event.actor));
        for (const webhook of wanting) {
          deliveries.push({
            webhook_id: webhook.id,
            event_id: Number(event.id),
            resource_id: event.resource_id,
            payload,
            state: 'pending',
            attempts: 0,
            next_attempt_at: now,
            lease_until: 0,
            created_at: now,
            finished_at: null,
          });
        }
      }
      for (let start = 0; start < deliveries.length; start += INSERT_BATCH) {
        await trx
          .insertInto('webhook_deliveries')
          .values(deliveries.slice(start, start + INSERT_BATCH))
          .onConflict((conflict) => conflict.columns(['webhook_id', 'event_id']).doNothing())
          .execute();
      }
      await trx
        .updateTable('change_events')
        .set({ fanned_out: 1 })
        .where(
          'id',
          'in',
          events.map((event) => Number(event.id)),
        )
        .execute();
      return { events: events.length, subscriptions: webhooks.length };
    });
  }

  /** Hands claimed deliveries back unsent (an instance closing): due again at once. */
  async release(claims: readonly ClaimedDelivery[]): Promise<void> {
    for (const claim of claims) {
      await this.db
        .updateTable('webhook_deliveries')
        .set({ state: 'pending', lease_until: 0, attempts: sql`attempts - 1` })
        .where('id', '=', claim.id)
        .where('state', '=', 'sending')
        .where('lease_until', '=', claim.leaseUntil)
        .execute();
    }
  }

  /**
   * Up to `limit` deliveries due now, marked `sending` until `leaseMs` from now:
   * pending ones whose time has come, and sending ones whose lease lapsed (their
   * instance died). A delivery waits while an earlier event of the same resource
   * is still to be delivered to the same subscription, so each receiver gets a
   * resource's events in order; and at most one is claimed, or in flight, per
   * subscription, so each receiver has one attempt at a time.
   */
  async claim(limit: number, leaseMs: number): Promise<ClaimedDelivery[]> {
    const claimed = await claimUnderLease<DeliveryRow>(this.db, DELIVERIES, {
      limit,
      leaseMs,
      now: this.now(),
    });
    if (claimed.length === 0) return [];
    const webhooks = new Map(
      (
        await this.db
          .selectFrom('webhooks')
          .select(['id', 'url', 'secret_salt'])
          .where('id', 'in', [...new Set(claimed.map((row) => row.webhook_id))])
          .execute()
      ).map((webhook) => [webhook.id, webhook]),
    );
    return claimed
      .sort((a, b) => a.event_id - b.event_id)
      .flatMap((row) => {
        const webhook = webhooks.get(row.webhook_id);
        return webhook
          ? [
              {
                id: row.id,
                webhookId: row.webhook_id,
                eventId: row.event_id,
                attempts: row.claim.attempts,
                payload: row.payload,
                url: webhook.url,
                secretSalt: webhook.secret_salt,
                leaseUntil: row.claim.leaseUntil,
              },
            ]
          : [];
      });
  }

  /**
   * Records attempts and what follows each: delivered; another attempt after
   * the schedule's next wait; or, after the last, failed, with the
   * subscription disabled and the reason kept for its owner (a 410 Gone
   * disables at once). Several in one transaction: a worker records what
   * ended while the last record was being written, together.
   */
  async record(
    results: readonly { delivery: ClaimedDelivery; outcome: Outcome }[],
    retry: RetryPolicy,
  ): Promise<Next[]> {
    const now = this.now();
    const nexts = results.map(({ delivery, outcome }): Next => {
      if (outcome.ok) return 'delivered';
      const wait = retry.waitAfter(delivery.attempts);
      return outcome.status === 410 || wait === undefined ? 'failed' : 'retry';
    });
    await this.db.transaction().execute(async (trx) => {
      // Only claims still held: a delivery deleted with its subscription, or
      // claimed again by another instance after this one's lease lapsed, is
      // theirs to record now.
      const held = new Set(
        (
          await trx
            .selectFrom('webhook_deliveries')
            .select(['id', 'lease_until'])
            .where(
              'id',
              'in',
              results.map(({ delivery }) => delivery.id),
            )
            .where('state', '=', 'sending')
            .execute()
        )
          .filter((row) =>
            results.some(
              ({ delivery }) =>
                delivery.id === row.id && delivery.leaseUntil === Number(row.lease_until),
            ),
          )
          .map((row) => row.id),
      );
      const kept = results.filter(({ delivery }) => held.has(delivery.id));
      if (kept.length === 0) return;
      await trx
        .insertInto('webhook_attempts')
        .values(
          kept.map(({ delivery, outcome }) => ({
            delivery_id: delivery.id,
            attempted_at: now - outcome.durationMs,
            duration_ms: outcome.durationMs,
            status_code: outcome.status,
            error: outcome.error === null ? null : storable(outcome.error),
            request_headers: JSON.stringify(outcome.requestHeaders),
            response_excerpt: storable(outcome.excerpt),
          })),
        )
        .execute();
      const delivered = results.filter(
        ({ delivery }, index) => nexts[index] === 'delivered' && held.has(delivery.id),
      );
      if (delivered.length > 0) {
        await trx
          .updateTable('webhook_deliveries')
          .set({ state: 'delivered', finished_at: now, lease_until: 0 })
          .where(
            'id',
            'in',
            delivered.map(({ delivery }) => delivery.id),
          )
          .where('state', '=', 'sending')
          .execute();
      }
      for (const [index, { delivery, outcome }] of results.entries()) {
        if (!held.has(delivery.id)) continue;
        const next = nexts[index];
        if (next === 'retry') {
          await trx
            .updateTable('webhook_deliveries')
            .set({
              state: 'pending',
              next_attempt_at: now + (retry.waitAfter(delivery.attempts) ?? 0),
              lease_until: 0,
            })
            .where('id', '=', delivery.id)
            .where('state', '=', 'sending')
            .execute();
        } else if (next === 'failed') {
          await trx
            .updateTable('webhook_deliveries')
            .set({ state: 'failed', finished_at: now, lease_until: 0 })
            .where('id', '=', delivery.id)
            .where('state', '=', 'sending')
            .execute();
          await trx
            .updateTable('webhooks')
            .set({
              state: 'disabled',
              disabled_at: now,
              updated_at: now,
              disabled_reason:
                outcome.status === 410
                  ? `The receiver answered 410 Gone to delivery ${delivery.id}.`
                  : `Delivery ${delivery.id} failed ${delivery.attempts} times; the last: ${outcome.error ?? 'no reason given'}.`,
            })
            .where('id', '=', delivery.webhookId)
            .where('state', '=', 'active')
            .execute();
        }
      }
    });
    return nexts;
  }
}
