import { request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { isIP } from 'node:net';
import { Webhook } from 'standardwebhooks';
import { PACKAGE_VERSION } from '../../platform/version.js';
import type { TargetPolicy } from './targets.js';

/** What is kept of an answer's body for the delivery log. */
const EXCERPT_BYTES = 2048;
/** An answer longer than this is not read to its end: the status has said what counts. */
const MAX_ANSWER_BYTES = 64 * 1024;

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
 * `id.timestamp.body`). A 2xx answer is success; anything else, a redirect
 * (never followed), a refused address, a time-out or a broken connection is a
 * failure, with the reason for the log.
 */
export async function send(
  delivery: Delivery,
  policy: TargetPolicy,
  timeoutMs: number,
  now: () => Date = () => new Date(),
): Promise<Outcome> {
  const started = performance.now();
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
  const done = (result: Omit<Outcome, 'durationMs' | 'requestHeaders'>): Outcome => ({
    ...result,
    durationMs: Math.round(performance.now() - started),
    requestHeaders: headers,
  });
  const url = new URL(delivery.url);
  const host = url.hostname.replace(/^\[|\]$/g, '');
  // An address written in the URL is connected to without a lookup: checked here.
  if (isIP(host) && !policy.addressAllowed(host)) {
    return done({
      ok: false,
      status: null,
      error: `${host} is an address deliveries may not go to`,
      excerpt: '',
    });
  }
  return new Promise<Outcome>((resolve) => {
    const request = (url.protocol === 'https:' ? httpsRequest : httpRequest)(
      url,
      {
        method: 'POST',
        headers: { ...headers, 'content-length': String(Buffer.byteLength(delivery.payload)) },
        lookup: policy.lookup as never,
        timeout: timeoutMs,
      },
      (response: IncomingMessage) => {
        const status = response.statusCode ?? 0;
        const chunks: Buffer[] = [];
        let size = 0;
        const finish = (error: string | null) => {
          const excerpt = Buffer.concat(chunks).subarray(0, EXCERPT_BYTES).toString('utf8');
          const ok = error === null && status >= 200 && status < 300;
          resolve(
            done({
              ok,
              status,
              error:
                error ??
                (ok
                  ? null
                  : status >= 300 && status < 400
                    ? `answered ${status}; redirects are not followed`
                    : `answered ${status}`),
              excerpt,
            }),
          );
        };
        response.on('data', (chunk: Buffer) => {
          size += chunk.length;
          if (size <= EXCERPT_BYTES + chunk.length) chunks.push(chunk);
          if (size > MAX_ANSWER_BYTES) {
            response.destroy();
            finish(null);
          }
        });
        response.on('end', () => finish(null));
        response.on('error', (error) => finish(error.message));
      },
    );
    const deadline = setTimeout(() => {
      request.destroy(new Error(`no answer within ${timeoutMs} ms`));
    }, timeoutMs);
    request.on('timeout', () => request.destroy(new Error(`no answer within ${timeoutMs} ms`)));
    request.on('error', (error) => {
      clearTimeout(deadline);
      resolve(done({ ok: false, status: null, error: error.message, excerpt: '' }));
    });
    request.on('close', () => clearTimeout(deadline));
    request.end(delivery.payload);
  });
}
