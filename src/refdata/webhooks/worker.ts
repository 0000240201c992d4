import { WorkLoop } from '../../platform/background/work-loop.js';
import type { OutboundPolicy } from '../../platform/http/outbound.js';
import type { ReplicaLog } from '../replicas/replica.js';
import type { ClaimedDelivery, Outbox } from './outbox.js';
import type { WebhookSecrets } from './secrets.js';
import { type Outcome, send } from './sender.js';
import type { WebhookSettings } from './settings.js';

/** Attempts written in one transaction at most. */
const RECORD_BATCH = 100;
/** Deliveries claimed ahead of those in flight, as a multiple of the concurrency. */
const AHEAD = 3;

/**
 * Sends the webhooks' deliveries, in every instance. On a timer it turns new
 * events into deliveries (the outbox's fan-out); after a commit here it does
 * so at once, when anyone listens. It claims deliveries a batch at a time and
 * keeps up to `concurrency` in flight, starting the next as each ends, so one
 * slow receiver does not hold the others back.
 */
export class DeliveryWorker {
  private readonly loop: WorkLoop;
  /** Whether the next turn turns new events into deliveries first. */
  private fanOutWanted = true;
  private fannedOutAt = 0;
  private closed = false;
  /** Whether any subscription was active at the last fan-out (so a commit is worth a look). */
  private listening = true;
  private readonly queue: ClaimedDelivery[] = [];
  private readonly inFlight = new Set<Promise<void>>();
  private readonly toRecord: { delivery: ClaimedDelivery; outcome: Outcome; done: () => void }[] =
    [];
  private recording: Promise<void> | undefined;

  constructor(
    private readonly outbox: Outbox,
    private readonly secrets: WebhookSecrets,
    private readonly policy: OutboundPolicy,
    private readonly settings: WebhookSettings,
    private readonly log: ReplicaLog,
  ) {
    this.loop = new WorkLoop({
      pollMilliseconds: settings.pollMilliseconds,
      turn: () => {
        // A turn on the timer fans out too (for what other instances committed).
        const fanOut =
          this.fanOutWanted || Date.now() - this.fannedOutAt >= settings.pollMilliseconds;
        this.fanOutWanted = false;
        return this.pump(fanOut);
      },
      failed: (error) =>
        this.log.error({ err: error }, 'webhook deliveries could not be read or claimed'),
    });
  }

  /** A claimed delivery's lease: its wait in line and its attempt, then another instance may take it. */
  private get leaseMs(): number {
    return this.settings.timeoutMilliseconds * (AHEAD + 1) + 5000;
  }

  start(): void {
    this.loop.start();
  }

  /** A change was committed here: look now, if anyone listens, rather than at the next tick. */
  committed(): void {
    if (this.listening) this.nudge(true);
  }

  /** A subscription was made or resumed, or a delivery asked for: look now. */
  nudge(fanOut = true): void {
    if (this.closed) return;
    if (fanOut) {
      this.listening = true;
      this.fanOutWanted = true;
    }
    this.loop.wake();
  }

  /** Stops claiming, hands back what waits in line, and waits for the deliveries in flight. */
  async close(): Promise<void> {
    this.closed = true;
    await this.loop.close();
    const unsent = this.queue.splice(0);
    await this.outbox.release(unsent).catch((error: unknown) => {
      this.log.error({ err: error }, 'claimed webhook deliveries could not be handed back');
    });
    await Promise.allSettled([...this.inFlight]);
  }

  private async pump(fanOut: boolean): Promise<void> {
    if (fanOut) {
      this.fannedOutAt = Date.now();
      for (;;) {
        const made = await this.outbox.fanOut();
        if (made.subscriptions >= 0) this.listening = made.subscriptions > 0;
        if (made.events === 0 || this.closed) break;
      }
    }
    while (!this.closed) {
      this.startWaiting();
      const wanted =
        this.settings.concurrency * (AHEAD + 1) - this.inFlight.size - this.queue.length;
      if (this.queue.length > 0 || wanted <= 0) return;
      const claimed = await this.outbox.claim(wanted, this.leaseMs);
      if (claimed.length === 0) return;
      this.queue.push(...claimed);
    }
  }

  /** Starts deliveries from the line while there is room. */
  private startWaiting(): void {
    while (this.inFlight.size < this.settings.concurrency && !this.closed) {
      const delivery = this.queue.shift();
      if (!delivery) return;
      const sending = this.deliver(delivery).finally(() => {
        this.inFlight.delete(sending);
        this.startWaiting();
        // The line runs short: claim more (no fan-out needed for that).
        if (this.queue.length < this.settings.concurrency) this.nudge(false);
      });
      this.inFlight.add(sending);
    }
  }

  private async deliver(delivery: ClaimedDelivery): Promise<void> {
    let outcome: Outcome;
    try {
      outcome = await send(
        {
          messageId: `msg_${delivery.eventId}`,
          url: delivery.url,
          secret: this.secrets.secretFor(delivery.secretSalt),
          payload: delivery.payload,
        },
        this.policy,
        this.settings.timeoutMilliseconds,
      );
    } catch (error) {
      outcome = {
        ok: false,
        status: null,
        error: error instanceof Error ? error.message : String(error),
        durationMs: 0,
        requestHeaders: {},
        excerpt: '',
      };
    }
    await new Promise<void>((done) => {
      this.toRecord.push({ delivery, outcome, done });
      if (!this.recording) this.recording = this.recordAll();
    });
  }

  /**
   * Writes the attempts that ended, all those waiting in one transaction, until
   * none waits: under load, many deliveries share one commit.
   */
  private async recordAll(): Promise<void> {
    while (this.toRecord.length > 0) {
      const batch = this.toRecord.splice(0, RECORD_BATCH);
      try {
        const nexts = await this.outbox.record(batch, this.settings.retry);
        for (const [index, next] of nexts.entries()) {
          const { delivery, outcome } = batch[index] ?? {};
          if (next === 'failed') {
            this.log.warn(
              { webhook: delivery?.webhookId, delivery: delivery?.id, error: outcome?.error },
              'a webhook delivery failed for the last time; its subscription is disabled',
            );
          }
        }
      } catch (error) {
        // Left `sending`: when their leases lapse they are claimed and sent again.
        this.log.error({ err: error }, 'webhook deliveries could not be recorded');
      }
      for (const item of batch) item.done();
    }
    this.recording = undefined;
  }
}
