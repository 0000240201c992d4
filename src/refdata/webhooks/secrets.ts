import { createHmac, randomBytes } from 'node:crypto';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';

const KEY_BYTES = 32;

/**
 * Signing secrets of webhook subscriptions. A secret must be at hand to sign
 * each delivery, so it cannot be kept as a hash; it is not kept at all: each
 * is derived from a random salt in the database and a key in a file of the
 * service's own (as its token signing key is), so a copy of the database alone
 * signs nothing. Every instance that shares the file derives the same secrets.
 */
export class WebhookSecrets {
  private constructor(private readonly key: Buffer) {}

  static async load(file: string): Promise<WebhookSecrets> {
    try {
      return WebhookSecrets.fromFile(await readFile(file, 'utf8'), file);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    }
    await mkdir(dirname(file), { recursive: true });
    const text = `${randomBytes(KEY_BYTES).toString('base64')}\n`;
    try {
      // `wx`: when two processes start at once, one writes and the other reads its key.
      await writeFile(file, text, { mode: 0o600, flag: 'wx' });
      return WebhookSecrets.fromFile(text, file);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      return WebhookSecrets.fromFile(await readFile(file, 'utf8'), file);
    }
  }

  private static fromFile(text: string, file: string): WebhookSecrets {
    const key = Buffer.from(text.trim(), 'base64');
    if (key.length < KEY_BYTES) throw new Error(`${file} does not hold a webhook key.`);
    return new WebhookSecrets(key);
  }

  /** A new subscription's (or a rotated secret's) salt. */
  newSalt(): string {
    return randomBytes(18).toString('base64url');
  }

  /** The secret in Standard Webhooks' form: `whsec_` and 32 bytes in base64. */
  secretFor(salt: string): string {
    const bytes = createHmac('sha256', this.key).update(`webhook-signing-secret:${salt}`).digest();
    return `whsec_${bytes.toString('base64')}`;
  }
}
