import { type Kysely, sql } from 'kysely';
import type { QueueTable } from '../../platform/background/lease-claim.js';
import { type AttemptOutcome, LeasedQueue } from '../../platform/background/leased-queue.js';
import type { RetryPolicy } from '../../platform/background/retry-policy.js';
import { type MailSettings, MailTransport } from '../../platform/mail/mail-transport.js';
import type { RefdataTables } from '../db/tables.js';
import type { ReplicaLog } from '../replicas/replica.js';

/** How often the outbox is looked at when nothing wakes the sender. */
const POLL_MS = 2000;
/** How long a claimed mail is this instance's to send before another may try. */
const LEASE_MS = 60_000;
/** Mails sent at once by one instance. */
const CONCURRENCY = 4;

interface MailRow {
  id: number;
  recipient: string;
  subject: string;
  text: string;
}

/** The outbox as the kernel's queue sees it: pending mails, due at `due_at`. */
const OUTBOX: QueueTable = {
  table: 'mail_outbox',
  due: 'due_at',
  lease: 'lease_until',
  attempts: 'attempts',
  pending: (alias) => sql<boolean>`${sql.ref(`${alias}.state`)} = 'pending'`,
};

/**
 * Sends the mails notifications queue (mail_outbox), from any instance, on the
 * kernel's leased queue: each mail is claimed under a lease, sent, then marked
 * sent; a failure is tried again after the retry policy's next wait, then given
 * up on with its error kept. Without an SMTP server each mail is written to the
 * mail folder as an .eml file, which is what the embedded default does.
 */
export class MailSender {
  private readonly transport: MailTransport;
  private readonly queue: LeasedQueue<MailRow>;

  constructor(
    db: Kysely<RefdataTables>,
    settings: MailSettings,
    /** The waits between attempts; after the last, a mail is given up on, its error kept. */
    retry: RetryPolicy,
    private readonly log: ReplicaLog,
  ) {
    this.transport = new MailTransport(settings);
    this.queue = new LeasedQueue<MailRow>(db, {
      table: OUTBOX,
      settle: {
        done: (now) => ({ state: 'sent', sent_at: now, error: null }),
        retry: (error) => ({ error: error.slice(0, 1000) }),
        failed: (_now, error) => ({ state: 'failed', error: error.slice(0, 1000) }),
      },
      attempt: (mail, claim) => this.send(mail, claim.attempts),
      retry,
      leaseMs: LEASE_MS,
      concurrency: CONCURRENCY,
      pollMilliseconds: POLL_MS,
      failed: (error) => this.log.error({ err: error }, 'mail: the outbox could not be read'),
    });
  }

  start(): void {
    this.queue.start();
  }

  /** Looks at the outbox now (a notification was just committed). */
  wake(): void {
    this.queue.wake();
  }

  async close(): Promise<void> {
    await this.queue.close();
    this.transport.close();
  }

  private async send(mail: MailRow, attempts: number): Promise<AttemptOutcome> {
    try {
      await this.transport.send({
        id: String(mail.id),
        to: mail.recipient,
        subject: mail.subject,
        text: mail.text,
      });
      return { ok: true };
    } catch (error) {
      const failure = error instanceof Error ? error.message : String(error);
      // Not the address or the text: a mail's recipient is personal data.
      this.log.warn({ mail: mail.id, attempts, err: failure }, 'mail: not sent');
      return { ok: false, error: failure };
    }
  }
}
