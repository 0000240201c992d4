import { connect } from 'node:net';
import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SERVICES_UNDER_TEST } from '../error-shapes.js';
import { baseUrl, DATABASE_KINDS, startTestService, type TestService } from '../harness.js';

const LIMIT_MS = 1500;

/** Sends `text` on a fresh connection; what came back before the server closed it. */
function exchange(service: TestService, text: string): Promise<string> {
  const { port } = new URL(baseUrl(service));
  return new Promise((resolve, reject) => {
    let answer = '';
    const socket = connect(Number(port), '127.0.0.1', () => socket.write(text));
    socket.on('data', (chunk) => {
      answer += chunk.toString();
    });
    socket.on('error', reject);
    socket.on('close', () => resolve(answer));
    setTimeout(() => socket.destroy(), 15_000).unref();
  });
}

/** The raw answer read as the shape checks expect it. */
function parsed(answer: string): LightMyRequestResponse {
  const [head = '', body = ''] = answer.split('\r\n\r\n');
  const [statusLine = '', ...lines] = head.split('\r\n');
  const headers: Record<string, string> = {};
  for (const line of lines) {
    const colon = line.indexOf(':');
    headers[line.slice(0, colon).toLowerCase()] = line.slice(colon + 1).trim();
  }
  return {
    statusCode: Number(statusLine.split(' ')[1]),
    headers,
    body,
    json: () => JSON.parse(body),
  } as unknown as LightMyRequestResponse;
}

/**
 * What Node's parser refuses before a request exists: too slow, headers too
 * large, not HTTP at all. Each is answered in the service's own error shape with
 * a request ID, and says `Connection: close`, so a keep-alive client does not
 * send its next request on a connection the server is closing.
 */
describe.each(
  DATABASE_KINDS.flatMap((kind) => SERVICES_UNDER_TEST.map((under) => ({ kind, under }))),
)('refusals before a request exists ($under.definition.name on $kind)', ({ kind, under }) => {
  let service: TestService;
  beforeAll(async () => {
    service = await startTestService(under.definition, kind, {
      listen: true,
      env: { HTTP_REQUEST_TIMEOUT_MS: String(LIMIT_MS) },
    });
  });
  afterAll(async () => service?.close());

  it('answers headers over the limit with 431 and Connection: close', async () => {
    const answer = parsed(
      await exchange(
        service,
        `GET /-/health HTTP/1.1\r\nHost: localhost\r\nConnection: keep-alive\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`,
      ),
    );
    under.expectError(answer, 431, { beforeRequest: true });
    expect(answer.headers.connection).toBe('close');
  });

  it('answers a client too slow to send its request with 408 and Connection: close', async () => {
    const answer = parsed(
      await exchange(service, 'GET /-/health HTTP/1.1\r\nHost: localhost\r\nX-Slow: '),
    );
    under.expectError(answer, 408, { beforeRequest: true });
    expect(answer.headers.connection).toBe('close');
  });

  it('answers what is not HTTP with 400 and Connection: close', async () => {
    const answer = parsed(await exchange(service, 'HELLO\r\n\r\n'));
    under.expectError(answer, 400, { beforeRequest: true });
    expect(answer.headers.connection).toBe('close');
  });

  it('keeps serving a keep-alive client whose requests are well-formed', async () => {
    const answer = await exchange(
      service,
      'GET /-/health HTTP/1.1\r\nHost: localhost\r\n\r\nGET /-/health HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n',
    );
    expect(answer.match(/HTTP\/1\.1 200/g)).toHaveLength(2);
  });
});
