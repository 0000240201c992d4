import { createCipheriv, createDecipheriv, createHmac, randomBytes } from 'node:crypto';
import type { Session, SessionBase, SessionStore } from './sessions.js';

/** Session data that can keep one sealed secret for the next page. */
export interface SealsSecrets extends SessionBase {
  sealedSecret?: string;
}

/** What a page that shows a new secret once needs to show it. */
export interface ShownOnce {
  /** What the secret is for, so the page can tell it belongs to what it shows. */
  purpose: string;
  value: string;
}

function keyOf(session: Session<SealsSecrets>): Buffer {
  return createHmac('sha256', session.id).update('shown-once secret').digest();
}

/**
 * Keeps a new secret for the page the browser is redirected to (Post/Redirect/
 * Get: a reload of that page cannot create a second token or renew a secret
 * again). It is sealed (AES-256-GCM) with a key derived from the session's
 * cookie, which the server never stores, so the session row holds nothing a
 * reader of the database could use.
 */
export async function keepToShowOnce<Data extends SealsSecrets>(
  sessions: SessionStore<Data>,
  session: Session<Data>,
  secret: ShownOnce,
): Promise<void> {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', keyOf(session), iv);
  const sealed = Buffer.concat([cipher.update(JSON.stringify(secret), 'utf8'), cipher.final()]);
  session.data.sealedSecret = [iv, cipher.getAuthTag(), sealed]
    .map((part) => part.toString('base64url'))
    .join('.');
  await sessions.save(session);
}

/** The kept secret for this purpose, removed as it is read: it is shown once. */
export async function takeShownOnce<Data extends SealsSecrets>(
  sessions: SessionStore<Data>,
  session: Session<Data>,
  purpose: string,
): Promise<string | undefined> {
  const sealed = session.data.sealedSecret;
  if (sealed === undefined) return undefined;
  delete session.data.sealedSecret;
  await sessions.save(session);
  const [iv, tag, data] = sealed.split('.').map((part) => Buffer.from(part, 'base64url'));
  if (!iv || !tag || !data) return undefined;
  try {
    const decipher = createDecipheriv('aes-256-gcm', keyOf(session), iv);
    decipher.setAuthTag(tag);
    const kept = JSON.parse(
      Buffer.concat([decipher.update(data), decipher.final()]).toString('utf8'),
    ) as ShownOnce;
    return kept.purpose === purpose ? kept.value : undefined;
  } catch {
    return undefined;
  }
}
