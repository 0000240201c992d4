import type { Kysely, Selectable } from 'kysely';
import type { OutboundPolicy } from '../../platform/http/outbound.js';
import type { FieldError } from '../../platform/http/problem.js';
import {
  CHANGE_EVENTS,
  type ChangeEvent,
  type RefdataTables,
  type WebhooksTable,
} from '../db/tables.js';
import { LIBRARY_FAMILY } from '../families/family.js';
import type { FamilyRegistry } from '../families/registry.js';

export type WebhookRow = Selectable<WebhooksTable>;

/** What an owner sets on a subscription; lists left empty mean "all". */
export interface SubscriptionInput {
  url: string;
  description: string;
  events: ChangeEvent[];
  libraries: string[];
  families: string[];
}

/** At most this many libraries or families are named on one subscription. */
export const MAX_LISTED = 100;
/** The longest description. */
export const MAX_DESCRIPTION = 255;

/** A subscription as the API shows it (never its secret). */
export function subscriptionJson(row: WebhookRow, publicUrl: string) {
  return {
    id: row.id,
    url: row.url,
    description: row.description,
    events: JSON.parse(row.events) as string[],
    libraries: JSON.parse(row.libraries) as string[],
    families: JSON.parse(row.families) as string[],
    state: row.state,
    disabledReason: row.disabled_reason,
    disabledAt: row.disabled_at === null ? null : new Date(Number(row.disabled_at)).toISOString(),
    createdAt: new Date(Number(row.created_at)).toISOString(),
    updatedAt: new Date(Number(row.updated_at)).toISOString(),
    links: {
      self: `${publicUrl}/webhooks/${row.id}`,
      deliveries: `${publicUrl}/webhooks/${row.id}/deliveries`,
    },
  };
}

function duplicates(values: readonly string[]): string[] {
  return values.filter((value, index) => values.indexOf(value) !== index);
}

/**
 * The rules a subscription's settings meet, the same for the API and the
 * pages: an allowed target, known events and families, stored libraries, and
 * nothing named twice. Answers every field that breaks one.
 */
export async function checkSubscription(
  input: SubscriptionInput,
  context: { db: Kysely<RefdataTables>; families: FamilyRegistry; policy: OutboundPolicy },
  /** The settings saved before: what is unchanged is not looked up again (a host down, say). */
  previous?: SubscriptionInput,
): Promise<FieldError[]> {
  const errors: FieldError[] = [];
  const refuse = (field: string, detail: string) => errors.push({ in: 'body', field, detail });
  const form = context.policy.formProblem(input.url);
  if (form) refuse('/url', form);
  else if (input.url !== previous?.url) {
    const host = await context.policy.hostProblem(input.url);
    if (host) refuse('/url', host);
  }
  if (input.description.length > MAX_DESCRIPTION)
    refuse('/description', `is longer than ${MAX_DESCRIPTION} characters`);
  for (const [name, list] of [
    ['events', input.events],
    ['libraries', input.libraries],
    ['families', input.families],
  ] as const) {
    if (list.length > MAX_LISTED) refuse(`/${name}`, `names more than ${MAX_LISTED}`);
  }
  if (errors.length > 0) return errors;
  for (const [index, event] of input.events.entries())
    if (!CHANGE_EVENTS.includes(event))
      refuse(`/events/${index}`, `is not one of ${CHANGE_EVENTS.join(', ')}`);
  for (const value of duplicates(input.events)) refuse('/events', `names ${value} twice`);
  for (const [index, family] of input.families.entries())
    if (!context.families.byKey(family))
      refuse(
        `/families/${index}`,
        `is not a family (${context.families.all.map((known) => known.key).join(', ')})`,
      );
  for (const value of duplicates(input.families)) refuse('/families', `names ${value} twice`);
  for (const value of duplicates(input.libraries)) refuse('/libraries', `names ${value} twice`);
  const sameLibraries =
    previous !== undefined &&
    JSON.stringify(previous.libraries) === JSON.stringify(input.libraries);
  if (input.libraries.length > 0 && !sameLibraries) {
    const stored = new Set(
      (
        await context.db
          .selectFrom('resources')
          .select('iri')
          .where('family', '=', LIBRARY_FAMILY)
          .where('iri', 'in', input.libraries)
          .execute()
      ).map((row) => row.iri),
    );
    for (const [index, library] of input.libraries.entries())
      if (!stored.has(library)) refuse(`/libraries/${index}`, 'is not a library stored here');
  }
  return errors;
}

/** Subscriptions, each seen and changed by its owner only. */
export class Subscriptions {
  constructor(
    private readonly db: Kysely<RefdataTables>,
    private readonly now: () => number = Date.now,
  ) {}

  async list(owner: string): Promise<WebhookRow[]> {
    return this.db
      .selectFrom('webhooks')
      .selectAll()
      .where('owner', '=', owner)
      .orderBy('id')
      .execute();
  }

  /** Whether one of the owner's subscriptions was disabled (what every page of theirs says). */
  async anyDisabled(owner: string): Promise<boolean> {
    const row = await this.db
      .selectFrom('webhooks')
      .select('id')
      .where('owner', '=', owner)
      .where('state', '=', 'disabled')
      .limit(1)
      .executeTakeFirst();
    return row !== undefined;
  }

  async count(owner: string): Promise<number> {
    const row = await this.db
      .selectFrom('webhooks')
      .select((eb) => eb.fn.countAll<number | string>().as('n'))
      .where('owner', '=', owner)
      .executeTakeFirstOrThrow();
    return Number(row.n);
  }

  async find(owner: string, id: number): Promise<WebhookRow | undefined> {
    return this.db
      .selectFrom('webhooks')
      .selectAll()
      .where('owner', '=', owner)
      .where('id', '=', id)
      .executeTakeFirst();
  }

  /**
   * Makes a subscription. Its time is taken again once the insert has
   * committed: it wants events from then on, and every write that starts
   * after the commit sees it and leaves its event in the outbox.
   */
  async create(owner: string, input: SubscriptionInput, salt: string): Promise<WebhookRow> {
    const now = this.now();
    const made = await this.db
      .insertInto('webhooks')
      .values({
        owner,
        url: input.url,
        description: input.description,
        events: JSON.stringify(input.events),
        libraries: JSON.stringify(input.libraries),
        families: JSON.stringify(input.families),
        secret_salt: salt,
        state: 'active',
        disabled_reason: null,
        disabled_at: null,
        created_at: now,
        updated_at: now,
      })
      .returning('id')
      .executeTakeFirstOrThrow();
    const committed = Math.max(this.now(), now);
    return this.db
      .updateTable('webhooks')
      .set({ created_at: committed, updated_at: committed })
      .where('id', '=', made.id)
      .returningAll()
      .executeTakeFirstOrThrow();
  }

  /** Saves new settings and, when given, a new state; enabling clears why it was disabled. */
  async update(
    row: WebhookRow,
    input: SubscriptionInput,
    state: 'active' | 'paused' | undefined,
  ): Promise<WebhookRow> {
    const enabling = state !== undefined && state !== row.state;
    return this.db
      .updateTable('webhooks')
      .set({
        url: input.url,
        description: input.description,
        events: JSON.stringify(input.events),
        libraries: JSON.stringify(input.libraries),
        families: JSON.stringify(input.families),
        updated_at: this.now(),
        ...(enabling ? { state, disabled_reason: null, disabled_at: null } : {}),
      })
      .where('id', '=', row.id)
      .returningAll()
      .executeTakeFirstOrThrow();
  }

  async rotateSecret(row: WebhookRow, salt: string): Promise<void> {
    await this.db
      .updateTable('webhooks')
      .set({ secret_salt: salt, updated_at: this.now() })
      .where('id', '=', row.id)
      .execute();
  }

  async remove(row: WebhookRow): Promise<void> {
    await this.db.deleteFrom('webhooks').where('id', '=', row.id).execute();
  }

  /** A page of a subscription's deliveries, newest first, each with its attempts. */
  async deliveries(webhookId: number, page: number, perPage: number) {
    const rows = await this.db
      .selectFrom('webhook_deliveries')
      .select([
        'id',
        'event_id',
        'payload',
        'state',
        'attempts',
        'next_attempt_at',
        'created_at',
        'finished_at',
      ])
      .where('webhook_id', '=', webhookId)
      .orderBy('id', 'desc')
      .limit(perPage + 1)
      .offset((page - 1) * perPage)
      .execute();
    const shown = rows.slice(0, perPage);
    const attempts =
      shown.length === 0
        ? []
        : await this.db
            .selectFrom('webhook_attempts')
            .selectAll()
            .where(
              'delivery_id',
              'in',
              shown.map((row) => row.id),
            )
            .orderBy('id')
            .execute();
    return {
      more: rows.length > perPage,
      deliveries: shown.map((row) => ({
        ...row,
        log: attempts.filter((attempt) => attempt.delivery_id === row.id),
      })),
    };
  }

  /** Sends a delivery again now, with a fresh schedule; false when it is on its way already. */
  async redeliver(
    webhookId: number,
    deliveryId: number,
  ): Promise<'queued' | 'sending' | 'missing'> {
    const row = await this.db
      .selectFrom('webhook_deliveries')
      .select('state')
      .where('webhook_id', '=', webhookId)
      .where('id', '=', deliveryId)
      .executeTakeFirst();
    if (!row) return 'missing';
    if (row.state === 'sending') return 'sending';
    await this.db
      .updateTable('webhook_deliveries')
      .set({ state: 'pending', attempts: 0, next_attempt_at: this.now(), finished_at: null })
      .where('id', '=', deliveryId)
      .where('state', '!=', 'sending')
      .execute();
    return 'queued';
  }
}
