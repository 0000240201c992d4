import type { Kysely } from 'kysely';
import type { Role } from '../auth/roles.js';
import type { RefdataTables } from '../db/tables.js';

/**
 * What a person can be told of, each with its own preference, in the spirit of
 * codehost's notification levels: authors hear what becomes of their work,
 * reviewers what waits for them (docs/review.md).
 */
export const NOTIFICATION_EVENTS = [
  'submitted',
  'decided',
  'changes-requested',
  'commented',
] as const;
export type NotificationEvent = (typeof NOTIFICATION_EVENTS)[number];

/** Each event as its preference is labelled. */
export const EVENT_LABELS: Readonly<Record<NotificationEvent, string>> = {
  submitted: 'Something was submitted for review (to Reviewers)',
  decided: 'Your submission was approved or rejected',
  'changes-requested': 'A Reviewer asked for changes to your submission',
  commented: 'Someone commented on your work or on a discussion you took part in',
};

export interface Preference {
  inbox: boolean;
  email: boolean;
}

/** Everything on, until a person says otherwise. */
const DEFAULT_PREFERENCE: Preference = { inbox: true, email: true };

/** One thing to tell people about, with where to look. */
export interface Notice {
  event: NotificationEvent;
  actor: string;
  iri?: string | undefined;
  packageId?: number | undefined;
  /** One line: the inbox entry and the mail's subject. */
  title: string;
  /** A few lines more, plain text. */
  text: string;
  /** The page to open, absolute. */
  link: string;
}

/** How many inbox entries a page of it shows at most. */
export const INBOX_PAGE = 100;

/**
 * Each person's inbox and mail, and what they asked to be told. A person is
 * told only when refdata knows them to hold a role (they signed in, or acted
 * with a token): every role reads every resource, so nobody who may not read
 * one hears of it. Someone the provider took every role from, or never seen,
 * is told nothing.
 */
export class Notifications {
  constructor(private readonly db: Kysely<RefdataTables>) {}

  /** The roles a person acted with, remembered for whom to tell what. */
  async noteRoles(subject: string, roles: readonly Role[]): Promise<void> {
    const joined = [...roles].sort().join(' ');
    await this.db
      .insertInto('people')
      .values({
        subject,
        name: subject.slice(0, 255),
        username: null,
        roles: joined,
        updated_at: Date.now(),
      })
      .onConflict((conflict) => conflict.column('subject').doUpdateSet({ roles: joined }))
      .execute();
  }

  /** The people known to hold `role`. */
  async holding(role: Role): Promise<string[]> {
    const rows = await this.db
      .selectFrom('people')
      .select(['subject', 'roles'])
      .where('roles', 'like', `%${role}%`)
      .execute();
    return rows.filter((row) => row.roles.split(' ').includes(role)).map((row) => row.subject);
  }

  /**
   * Tells `recipients` (but never the actor) of `notice`, in their inbox and by
   * mail as each prefers, through `db` (a transaction: told only if it commits).
   * Answers how many mails were queued.
   */
  async tell(
    db: Kysely<RefdataTables>,
    recipients: Iterable<string>,
    notice: Notice,
  ): Promise<number> {
    const wanted = [...new Set(recipients)].filter((subject) => subject !== notice.actor);
    if (wanted.length === 0) return 0;
    const people = await db
      .selectFrom('people')
      .select(['subject', 'email', 'roles'])
      .where('subject', 'in', wanted)
      .execute();
    const preferences = await db
      .selectFrom('notification_settings')
      .selectAll()
      .where('subject', 'in', wanted)
      .where('event', '=', notice.event)
      .execute();
    const preferenceOf = new Map(
      preferences.map((row) => [row.subject, { inbox: row.inbox === 1, email: row.email === 1 }]),
    );
    const now = Date.now();
    const inbox = [];
    const mails = [];
    for (const person of people) {
      if (person.roles.trim() === '') continue;
      const preference = preferenceOf.get(person.subject) ?? DEFAULT_PREFERENCE;
      if (preference.inbox) {
        inbox.push({
          recipient: person.subject,
          event: notice.event,
          actor: notice.actor,
          iri: notice.iri ?? null,
          package_id: notice.packageId ?? null,
          title: notice.title.slice(0, 1000),
          text: notice.text,
          created_at: now,
        });
      }
      if (preference.email && person.email) {
        mails.push({
          recipient: person.email,
          subject: `[refdata] ${notice.title}`.slice(0, 1000),
          text: `${notice.text}\n\n${notice.link}\n\nYou are told of this because of your notification settings: ${new URL('/account/notifications/settings', notice.link).href}\n`,
          state: 'pending' as const,
          due_at: now,
          created_at: now,
        });
      }
    }
    if (inbox.length > 0) await db.insertInto('notifications').values(inbox).execute();
    if (mails.length > 0) await db.insertInto('mail_outbox').values(mails).execute();
    return mails.length;
  }

  async inbox(subject: string, unreadOnly: boolean, limit = INBOX_PAGE) {
    return this.db
      .selectFrom('notifications')
      .selectAll()
      .where('recipient', '=', subject)
      .$if(unreadOnly, (select) => select.where('read_at', 'is', null))
      .orderBy('id', 'desc')
      .limit(limit)
      .execute();
  }

  async unreadCount(subject: string): Promise<number> {
    const row = await this.db
      .selectFrom('notifications')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('recipient', '=', subject)
      .where('read_at', 'is', null)
      .executeTakeFirstOrThrow();
    return Number(row.n);
  }

  /** Marks entries of the person's own inbox read (all of them when `ids` is undefined). */
  async markRead(subject: string, ids: readonly number[] | undefined): Promise<number> {
    if (ids !== undefined && ids.length === 0) return 0;
    const result = await this.db
      .updateTable('notifications')
      .set({ read_at: Date.now() })
      .where('recipient', '=', subject)
      .where('read_at', 'is', null)
      .$if(ids !== undefined, (update) => update.where('id', 'in', ids as number[]))
      .executeTakeFirst();
    return Number(result.numUpdatedRows);
  }

  async preferences(subject: string): Promise<Record<NotificationEvent, Preference>> {
    const rows = await this.db
      .selectFrom('notification_settings')
      .selectAll()
      .where('subject', '=', subject)
      .execute();
    const chosen = new Map(
      rows.map((row) => [row.event, { inbox: row.inbox === 1, email: row.email === 1 }]),
    );
    return Object.fromEntries(
      NOTIFICATION_EVENTS.map((event) => [event, chosen.get(event) ?? DEFAULT_PREFERENCE]),
    ) as Record<NotificationEvent, Preference>;
  }

  async setPreferences(
    subject: string,
    changes: Partial<Record<NotificationEvent, Preference>>,
  ): Promise<void> {
    await this.db.transaction().execute(async (trx) => {
      for (const [event, preference] of Object.entries(changes)) {
        const values = { inbox: preference.inbox ? 1 : 0, email: preference.email ? 1 : 0 };
        await trx
          .insertInto('notification_settings')
          .values({ subject, event, ...values })
          .onConflict((conflict) => conflict.columns(['subject', 'event']).doUpdateSet(values))
          .execute();
      }
    });
  }

  /** How a person is named in a notice: their name as last seen, else their subject. */
  async nameOf(subject: string): Promise<string> {
    const row = await this.db
      .selectFrom('people')
      .select('name')
      .where('subject', '=', subject)
      .executeTakeFirst();
    return row?.name ?? subject;
  }

  /** The address mail reaches a person at, if known. */
  async emailOf(subject: string): Promise<string | null> {
    const row = await this.db
      .selectFrom('people')
      .select('email')
      .where('subject', '=', subject)
      .executeTakeFirst();
    return row?.email ?? null;
  }
}
