import { join, resolve } from 'node:path';
import { RetryPolicy } from '../../platform/background/retry-policy.js';
import { integer, networks, type Reader } from '../../platform/config.js';

/** Webhook deliveries and the change feed's pages; see docs/changes.md. */
export interface WebhookSettings {
  /** The key the subscriptions' signing secrets are derived from, made on first start. */
  keyFile: string;
  /** Whether this instance sends deliveries (every instance does unless told otherwise). */
  deliver: boolean;
  /** How often the outbox and the due deliveries are looked at when nothing wakes the worker. */
  pollMilliseconds: number;
  /** Longest a delivery may take, connection to answer. */
  timeoutMilliseconds: number;
  /** The waits before the second, third, ... attempt; after the last, the subscription is disabled. */
  retry: RetryPolicy;
  /**
   * Ranges refused by default (private, loopback, link-local) that webhook
   * targets may be in anyway, beside those `OUTBOUND_ALLOWED_NETWORKS` allows
   * every outbound address.
   */
  allowedNetworks: readonly string[];
  /** Subscriptions one person may have. */
  maxPerOwner: number;
  /** Deliveries one instance sends at once. */
  concurrency: number;
}

/** Standard Webhooks' own schedule, cut after about a day: 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h. */
export const DEFAULT_RETRY_SCHEDULE = '5s,5m,30m,2h,5h,10h,10h';

export function readWebhookSettings(
  read: Reader,
  dataDir: string,
  cwd: string,
  deliver: boolean,
): WebhookSettings {
  const keyFile = read('REFDATA_WEBHOOK_KEY_FILE');
  return {
    keyFile: keyFile ? resolve(cwd, keyFile) : join(dataDir, 'refdata-webhook-key'),
    deliver,
    pollMilliseconds: integer(read, 'REFDATA_WEBHOOK_POLL_MS', 1000, 10, 60_000),
    timeoutMilliseconds: integer(read, 'REFDATA_WEBHOOK_TIMEOUT_MS', 10_000, 100, 60_000),
    retry: RetryPolicy.read(read, 'REFDATA_WEBHOOK_RETRY_SCHEDULE', DEFAULT_RETRY_SCHEDULE),
    allowedNetworks: networks(read, 'REFDATA_WEBHOOK_ALLOWED_NETWORKS'),
    maxPerOwner: integer(read, 'REFDATA_WEBHOOK_MAX_PER_OWNER', 25, 1, 1000),
    concurrency: integer(read, 'REFDATA_WEBHOOK_CONCURRENCY', 64, 1, 1000),
  };
}
