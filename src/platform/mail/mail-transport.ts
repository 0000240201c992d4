import { mkdir, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { createTransport, type Transporter } from 'nodemailer';
import { ConfigError, type Reader } from '../config.js';

/** Where a service's mail goes; see docs/configuration.md. */
export interface MailSettings {
  /** `smtp://` or `smtps://`, with credentials in the URL if the server asks for them. */
  smtpUrl: string | undefined;
  /** The From of every mail. */
  from: string;
  /** Where mails are written as files when no SMTP server is configured. */
  folder: string;
}

/**
 * A service's mail settings, `PREFIX_SMTP_URL`, `PREFIX_MAIL_FROM` and
 * `PREFIX_MAIL_DIR` (written under the data directory by default).
 */
export function readMailSettings(
  read: Reader,
  prefix: string,
  defaultFrom: string,
  context: { dataDir: string; cwd: string },
): MailSettings {
  const smtpUrl = read(`${prefix}_SMTP_URL`);
  if (smtpUrl !== undefined) {
    let protocol = '';
    try {
      protocol = new URL(smtpUrl).protocol;
    } catch {
      // said below
    }
    if (protocol !== 'smtp:' && protocol !== 'smtps:')
      throw new ConfigError(`${prefix}_SMTP_URL`, '', 'it must be an smtp:// or smtps:// URL');
  }
  const folder = read(`${prefix}_MAIL_DIR`);
  return {
    smtpUrl,
    from: read(`${prefix}_MAIL_FROM`) ?? defaultFrom,
    folder: folder ? resolve(context.cwd, folder) : join(context.dataDir, 'mail'),
  };
}

/** One plain-text mail; `id` names its file when it is written rather than sent. */
export interface Mail {
  id: string;
  to: string;
  subject: string;
  text: string;
}

/**
 * Sends mail through the configured SMTP server, or, without one (the
 * embedded default), writes each as an `.eml` file in the mail folder, where
 * a person running the service reads it.
 */
export class MailTransport {
  private readonly transport: Transporter;

  constructor(private readonly settings: MailSettings) {
    this.transport = settings.smtpUrl
      ? createTransport(settings.smtpUrl)
      : createTransport({ streamTransport: true, buffer: true, newline: 'unix' });
  }

  /** Where a mail went: the SMTP server, or the file it was written to. */
  async send(mail: Mail): Promise<string> {
    const info = await this.transport.sendMail({
      from: this.settings.from,
      to: mail.to,
      subject: mail.subject,
      text: mail.text,
    });
    if (this.settings.smtpUrl) return 'the SMTP server';
    await mkdir(this.settings.folder, { recursive: true, mode: 0o700 });
    const message = (info as { message?: Buffer }).message ?? Buffer.alloc(0);
    const file = join(this.settings.folder, `${mail.id}.eml`);
    await writeFile(file, message, { mode: 0o600 });
    return file;
  }

  close(): void {
    this.transport.close();
  }
}
