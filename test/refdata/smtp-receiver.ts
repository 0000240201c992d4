import type { AddressInfo } from 'node:net';
import { type ParsedMail, simpleParser } from 'mailparser';
import { SMTPServer } from 'smtp-server';

/** A mail as the SMTP server received it: the envelope and the parsed message. */
export interface ReceivedMail {
  from: string;
  to: string[];
  subject: string;
  text: string;
  parsed: ParsedMail;
}

/**
 * A real SMTP server on loopback (the registry's smtp-server), keeping what it
 * receives: what a mail relay does with refdata's notifications.
 */
export class SmtpReceiver {
  readonly received: ReceivedMail[] = [];

  private constructor(
    private readonly server: SMTPServer,
    readonly port: number,
  ) {}

  static async start(): Promise<SmtpReceiver> {
    let receiver: SmtpReceiver | undefined;
    const server = new SMTPServer({
      authOptional: true,
      disabledCommands: ['STARTTLS'],
      logger: false,
      onData(stream, session, callback) {
        simpleParser(stream)
          .then((parsed) => {
            receiver?.received.push({
              from: session.envelope.mailFrom ? session.envelope.mailFrom.address : '',
              to: session.envelope.rcptTo.map((address) => address.address),
              subject: parsed.subject ?? '',
              text: parsed.text ?? '',
              parsed,
            });
            callback();
          })
          .catch((error: Error) => callback(error));
      },
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const port = (server.server.address() as AddressInfo).port;
    receiver = new SmtpReceiver(server, port);
    return receiver;
  }

  get url(): string {
    return `smtp://127.0.0.1:${this.port}`;
  }

  /** Waits until `done` holds of what was received (or five seconds pass). */
  async until(done: (received: readonly ReceivedMail[]) => boolean): Promise<void> {
    const end = Date.now() + 5000;
    while (!done(this.received)) {
      if (Date.now() > end)
        throw new Error(
          `mail did not arrive: ${this.received.map((mail) => `${mail.to.join()} ${mail.subject}`).join('; ')}`,
        );
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }

  async close(): Promise<void> {
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}
