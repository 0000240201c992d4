import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { refdataUnderTest } from '../error-shapes.js';
import { baseUrl, DATABASE_KINDS, startTestService, type TestService } from '../harness.js';

const LIMIT_MS = 1500;

/**
 * What a client that stops sending gets, and when: the documented limit
 * (`HTTP_REQUEST_TIMEOUT_MS`), for headers and for the body alike. Node by
 * default checks only every 30 s and gives headers 60 s of their own.
 */
describe.each(DATABASE_KINDS)('slow clients on %s', (kind) => {
  let service: TestService;
  beforeAll(async () => {
    service = await startTestService(refdataUnderTest.definition, kind, {
      listen: true,
      env: { HTTP_REQUEST_TIMEOUT_MS: String(LIMIT_MS) },
    });
  });
  afterAll(async () => service?.close());

  /** Sends `text` and waits for the server to answer or close; the time it took and what it said. */
  function stall(text: string): Promise<{ ms: number; answer: string }> {
    const { port } = new URL(baseUrl(service));
    return new Promise((resolve, reject) => {
      const started = Date.now();
      let answer = '';
      const socket = connect(Number(port), '127.0.0.1', () => socket.write(text));
      socket.on('data', (chunk) => {
        answer += chunk.toString();
      });
      socket.on('error', reject);
      socket.on('close', () => resolve({ ms: Date.now() - started, answer }));
      // A server that never cuts the client would keep this test waiting; stop at 15 s.
      setTimeout(() => socket.destroy(), 15_000).unref();
    });
  }

  it('cuts a client whose headers never end at the limit, with 408', async () => {
    const { ms, answer } = await stall('GET /-/health HTTP/1.1\r\nHost: localhost\r\nX-Slow: ');
    expect(answer).toMatch(/^HTTP\/1\.1 408/);
    expect(ms).toBeGreaterThanOrEqual(LIMIT_MS - 100);
    // The limit plus the one-second deadline check, never the 30 s or 60 s of Node's defaults.
    expect(ms).toBeLessThan(LIMIT_MS + 2000);
  });

  it('cuts a client whose body never ends at the limit, with 408', async () => {
    const { ms, answer } = await stall(
      'POST /no/such/route HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"name":',
    );
    expect(answer).toMatch(/^HTTP\/1\.1 408/);
    expect(ms).toBeGreaterThanOrEqual(LIMIT_MS - 100);
    expect(ms).toBeLessThan(LIMIT_MS + 2000);
  });
});
