import { Webhook } from 'standardwebhooks';
import type { OutboundPolicy } from '../../platform/http/outbound.js';
import { PACKAGE_VERSION } from '../../platform/version.js';

export interface Delivery {
  /** `webhook-id`: the same on every attempt, so a receiver can drop repeats. */
  messageId: string;
  url: string;
  secret: string;
  payload: string;
}

export interface Outcome {
  ok: boolean;
  status: number | null;
  error: string | null;
  durationMs: number;
  requestHeaders: Record<string, string>;
  excerpt: string;
}

/**
 * Sends one delivery as Standard Webhooks describes it: a JSON `POST` with
 * `webhook-id`, `webhook-timestamp` and `webhook-signature` (HMAC-SHA256 of
 * `id.timestamp.body`), through the outbound policy every address a user
 * gives goes through.
 */
export async function send(
  delivery: Delivery,
  policy: OutboundPolicy,
  timeoutMs: number,
  now: () => Date = () => new Date(),
): Promise<Outcome> {
  const at = now();
  const headers: Record<string, string> = {
    'content-type': 'application/json',
    'user-agent': `refdata-webhooks/${PACKAGE_VERSION}`,
    'webhook-id': delivery.messageId,
    'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
    'webhook-signature': new Webhook(delivery.secret).sign(
      delivery.messageId,
      at,
      delivery.payload,
    ),
  };
  const answer = await policy.post(delivery.url, {
    headers,
    body: delivery.payload,
    timeoutMs,
  });
  return { ...answer, requestHeaders: headers };
}
