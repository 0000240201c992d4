import type { Kysely } from 'kysely';
import type { Config } from '../../platform/config.js';
import { OutboundPolicy } from '../../platform/http/outbound.js';
import type { RefdataTables } from '../db/tables.js';
import type { ReplicaLog } from '../replicas/replica.js';
import { Outbox } from './outbox.js';
import type { WebhookSecrets } from './secrets.js';
import type { WebhookSettings } from './settings.js';
import { Subscriptions } from './subscriptions.js';
import { DeliveryWorker } from './worker.js';

/** Webhook subscriptions and their deliveries, as the routes and pages use them. */
export class Webhooks {
  readonly subscriptions: Subscriptions;
  readonly policy: OutboundPolicy;
  private readonly worker: DeliveryWorker | undefined;

  constructor(
    db: Kysely<RefdataTables>,
    readonly secrets: WebhookSecrets,
    readonly settings: WebhookSettings,
    publicUrl: string,
    log: ReplicaLog,
    /** The operator's outbound policy (`OUTBOUND_ALLOWED_NETWORKS`, `OUTBOUND_CA_FILE`). */
    outbound: Pick<Config, 'outboundAllowedNetworks' | 'outboundTrustedCertificates'>,
  ) {
    this.subscriptions = new Subscriptions(db);
    this.policy = OutboundPolicy.of(outbound, settings.allowedNetworks);
    this.worker = settings.deliver
      ? new DeliveryWorker(new Outbox(db, publicUrl), secrets, this.policy, settings, log)
      : undefined;
  }

  start(): void {
    this.worker?.start();
    this.worker?.nudge();
  }

  /** A change was committed here: sent without waiting for the timer, if anyone listens. */
  committed(): void {
    this.worker?.committed();
  }

  /** A subscription was made or resumed, or a delivery asked for: look at once. */
  nudge(): void {
    this.worker?.nudge();
  }

  async close(): Promise<void> {
    await this.worker?.close();
  }
}
