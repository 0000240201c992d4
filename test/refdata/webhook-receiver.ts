import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** The setting that lets deliveries reach a receiver on loopback (refused by default). */
export const LOOPBACK_ALLOWED = { REFDATA_WEBHOOK_ALLOWED_NETWORKS: '127.0.0.0/8,::1/128' };

/** A request a receiver got: when, its headers and its body. */
export interface Received {
  at: number;
  headers: IncomingHttpHeaders;
  body: string;
}

/** What the receiver does with the next request: answer with a status (and a body), or never answer. */
export type Behaviour = number | { status: number; body: string } | 'hang';

/**
 * A real HTTP server on loopback that records every request it gets and
 * answers as told (200 unless `answer` says otherwise), for webhook tests.
 */
export class Receiver {
  readonly received: Received[] = [];
  answer: (request: Received) => Behaviour = () => 200;
  private readonly hanging = new Set<() => void>();

  private constructor(
    private readonly server: Server,
    readonly url: string,
  ) {}

  static async start(path = '/hooks'): Promise<Receiver> {
    let receiver: Receiver | undefined;
    const server = createServer((request, response) => {
      const chunks: Buffer[] = [];
      request.on('data', (chunk: Buffer) => chunks.push(chunk));
      request.on('end', () => {
        const got = {
          at: Date.now(),
          headers: request.headers,
          body: Buffer.concat(chunks).toString(),
        };
        receiver?.received.push(got);
        const behaviour = receiver?.answer(got) ?? 200;
        if (behaviour === 'hang') {
          receiver?.hanging.add(() => response.destroy());
          return;
        }
        const { status, body } =
          typeof behaviour === 'number'
            ? { status: behaviour, body: `answered ${behaviour}` }
            : behaviour;
        response.writeHead(status, { 'content-type': 'text/plain' }).end(body);
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    receiver = new Receiver(server, `http://127.0.0.1:${port}${path}`);
    return receiver;
  }

  /** The requests with this `webhook-id`. */
  withId(id: string): Received[] {
    return this.received.filter((request) => request.headers['webhook-id'] === id);
  }

  /** Waits until `done` holds of what was received (or fails after `timeoutMs`). */
  async until(done: (received: Received[]) => boolean, timeoutMs = 20_000): Promise<void> {
    const started = Date.now();
    while (!done(this.received)) {
      if (Date.now() - started > timeoutMs)
        throw new Error(`the receiver got ${this.received.length} requests, not what was awaited`);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  }

  async close(): Promise<void> {
    for (const drop of this.hanging) drop();
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}
