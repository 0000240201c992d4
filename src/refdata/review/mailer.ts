import type { Kysely } from 'kysely';
import type { RetryPolicy } from '../../platform/background/retry-policy.js';
import { WorkLoop } from '../../platform/background/work-loop.js';
import { type MailSettings, MailTransport } from '../../platform/mail/mail-transport.js';
import type { RefdataTables } from '../db/tables.js';
import type { ReplicaLog } from '../replicas/replica.js';

/** How often the outbox is looked at when nothing wakes the sender. */
const POLL_MS = 2000;
/** How long a claimed mail is this instance's to send before another may try. */
const LEASE_MS = 60_000;
/** Mails one look at the outbox sends at most. */
const BATCH = 20;

/**
 * Sends the mails notifications queue (mail_outbox), from any instance: each
 * is claimed under a lease by a conditional update, sent, then marked sent;
 * a failure is tried again later, waiting longer each time, then given up on
 * with its error kept. Without an SMTP server each mail is written to the
 * mail folder as an .eml file, which is what the embedded default does.
 */
export class MailSender {
  private readonly transport: MailTransport;
  private readonly loop: WorkLoop;
  private closed = false;

  constructor(
    private readonly db: Kysely<RefdataTables>,
    settings: MailSettings,
    /** The waits between attempts; after the last, a mail is given up on, its error kept. */
    private readonly retry: RetryPolicy,
    private readonly log: ReplicaLog,
  ) {
    this.transport = new MailTransport(settings);
    this.loop = new WorkLoop({
      pollMilliseconds: POLL_MS,
      turn: () => this.sendDue(),
      failed: (error) => this.log.error({ err: error }, 'mail: the outbox could not be read'),
    });
  }

  start(): void {
    this.loop.start();
  }

  /** Looks at the outbox now (a notification was just committed). */
  wake(): void {
    this.loop.wake();
  }

  async close(): Promise<void> {
    this.closed = true;
    await this.loop.close();
    this.transport.close();
  }

  private async sendDue(): Promise<void> {
    const now = Date.now();
    const due = await this.db
      .selectFrom('mail_outbox')
      .select(['id'])
      .where('state', '=', 'pending')
      .where('due_at', '<=', now)
      .where('lease_until', '<', now)
      .orderBy('id')
      .limit(BATCH)
      .execute();
    for (const { id } of due) {
      if (this.closed) return;
      // Each claim's own time: earlier sends in the batch may have taken long.
      const claimedAt = Date.now();
      const lease = claimedAt + LEASE_MS;
      const claimed = await this.db
        .updateTable('mail_outbox')
        .set((eb) => ({ lease_until: lease, attempts: eb('attempts', '+', 1) }))
        .where('id', '=', id)
        .where('state', '=', 'pending')
        .where('lease_until', '<', claimedAt)
        .returningAll()
        .executeTakeFirst();
      if (!claimed) continue;
      // The outcome is recorded only while the lease is still this claim's.
      const ours = this.db
        .updateTable('mail_outbox')
        .where('id', '=', id)
        .where('lease_until', '=', lease);
      let failure: string | undefined;
      try {
        await this.deliver(claimed);
      } catch (error) {
        failure = error instanceof Error ? error.message : String(error);
      }
      if (failure === undefined) {
        await ours
          .set({ state: 'sent', sent_at: Date.now(), lease_until: 0, error: null })
          .execute();
        continue;
      }
      const attempts = Number(claimed.attempts);
      const wait = this.retry.waitAfter(attempts);
      // Not the address or the text: a mail's recipient is personal data.
      this.log.warn({ mail: id, attempts, err: failure }, 'mail: not sent');
      await ours
        .set({
          state: wait === undefined ? 'failed' : 'pending',
          due_at: Date.now() + (wait ?? 0),
          lease_until: 0,
          error: failure.slice(0, 1000),
        })
        .execute();
    }
  }

  private async deliver(mail: { id: number; recipient: string; subject: string; text: string }) {
    await this.transport.send({
      id: String(mail.id),
      to: mail.recipient,
      subject: mail.subject,
      text: mail.text,
    });
  }
}
