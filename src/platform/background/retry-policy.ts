import { ConfigError, type Reader } from '../config.js';

const UNITS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 };

/**
 * How work done after the answer is tried again (a webhook delivery, a logout
 * token, a mail): the waits before the second, third, ... attempt; after the
 * last wait's attempt fails, the work is given up. One value, written one way
 * in every setting (`5s,5m,2h`), for every queue.
 */
export class RetryPolicy {
  constructor(readonly waits: readonly number[]) {}

  /** `5s,5m,2h`: one to twenty waits, each a whole number with its unit (ms, s, m, h). */
  static parse(text: string): RetryPolicy | undefined {
    const waits: number[] = [];
    for (const part of text.split(',')) {
      const match = /^\s*(\d{1,9})(ms|s|m|h)\s*$/.exec(part);
      if (!match?.[1] || !match[2]) return undefined;
      waits.push(Number(match[1]) * (UNITS[match[2]] ?? 1));
    }
    return waits.length > 0 && waits.length <= 20 ? new RetryPolicy(waits) : undefined;
  }

  /** A setting holding a policy, or `fallback` when it is unset. */
  static read(read: Reader, name: string, fallback: string): RetryPolicy {
    const raw = read(name) ?? fallback;
    const policy = RetryPolicy.parse(raw);
    if (!policy) {
      throw new ConfigError(
        name,
        raw,
        'one to twenty waits separated by commas, each a whole number with ms, s, m or h (5s,5m,2h)',
      );
    }
    return policy;
  }

  /** The most attempts: the first, and one after each wait. */
  get attempts(): number {
    return this.waits.length + 1;
  }

  /** The wait after attempt number `attempts` failed; undefined when it was the last. */
  waitAfter(attempts: number): number | undefined {
    return attempts >= 1 ? this.waits[attempts - 1] : undefined;
  }
}
