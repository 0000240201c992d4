import type { ReplicaLog } from '../replicas/replica.js';
import type { ClaimedDelivery, Outbox } from './outbox.js';
import type { WebhookSecrets } from './secrets.js';
import { send } from './sender.js';
import type { WebhookSettings } from './settings.js';
import type { TargetPolicy } from './targets.js';

/**
 * Sends the webhooks' deliveries, in every instance: on a timer, and at once
 * after this instance commits a change. It turns new events into deliveries,
 * then keeps up to `concurrency` deliveries in flight, claiming more as each
 * ends, so one slow receiver does not hold the others back.
 */
export class DeliveryWorker {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;
  private again = false;
  private closed = false;
  private readonly inFlight = new Set<Promise<void>>();

  constructor(
    private readonly outbox: Outbox,
    private readonly secrets: WebhookSecrets,
    private readonly policy: TargetPolicy,
    private readonly settings: WebhookSettings,
    private readonly log: ReplicaLog,
  ) {}

  /** A claimed delivery's lease: long enough for its attempt, then another instance may take it. */
  private get leaseMs(): number {
    return this.settings.timeoutMilliseconds * 2 + 5000;
  }

  start(): void {
    this.schedule();
  }

  /** Something may be waiting: look now rather than at the next tick. */
  nudge(): void {
    if (this.closed) return;
    if (this.running) {
      this.again = true;
      return;
    }
    this.running = this.pump().finally(() => {
      this.running = undefined;
      if (this.again) {
        this.again = false;
        this.nudge();
      }
    });
  }

  /** Stops claiming; waits for the deliveries in flight to be recorded. */
  async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.timer);
    await this.running;
    await Promise.allSettled([...this.inFlight]);
  }

  private schedule(): void {
    if (this.closed) return;
    this.timer = setTimeout(() => {
      this.nudge();
      this.schedule();
    }, this.settings.pollMilliseconds);
    this.timer.unref();
  }

  private async pump(): Promise<void> {
    try {
      while (!this.closed && (await this.outbox.fanOut()) > 0);
      while (!this.closed) {
        const room = this.settings.concurrency - this.inFlight.size;
        if (room <= 0) return;
        const claimed = await this.outbox.claim(room, this.leaseMs);
        if (claimed.length === 0) return;
        for (const delivery of claimed) this.startSending(delivery);
      }
    } catch (error) {
      this.log.error({ err: error }, 'webhook deliveries could not be read or claimed');
    }
  }

  private startSending(delivery: ClaimedDelivery): void {
    const sending = this.deliver(delivery).finally(() => {
      this.inFlight.delete(sending);
      // A slot is free: whatever waits may go.
      this.nudge();
    });
    this.inFlight.add(sending);
  }

  private async deliver(delivery: ClaimedDelivery): Promise<void> {
    try {
      const outcome = await send(
        {
          messageId: `msg_${delivery.eventId}`,
          url: delivery.url,
          secret: this.secrets.secretFor(delivery.secretSalt),
          payload: delivery.payload,
        },
        this.policy,
        this.settings.timeoutMilliseconds,
      );
      const next = await this.outbox.record(delivery, outcome, this.settings.retrySchedule);
      if (next === 'failed') {
        this.log.warn(
          { webhook: delivery.webhookId, delivery: delivery.id, error: outcome.error },
          'a webhook delivery failed for the last time; its subscription is disabled',
        );
      }
    } catch (error) {
      // Left `sending`: when its lease lapses it is claimed and sent again.
      this.log.error(
        { err: error, delivery: delivery.id },
        'a webhook delivery could not be recorded',
      );
    }
  }
}
