import type { Kysely } from 'kysely';
import type { OutboundPolicy } from '../../platform/http/outbound.js';
import type { CounterStore } from '../../platform/security/counters.js';
import { newSecret, secretHash } from '../../platform/security/secrets.js';
import type { CodehostTables } from '../db/tables.js';
import type { ApplicationRow } from './applications.js';
import { DEVICE_CODE_GRANT_TYPE } from './grants/device-code.js';
import { MetadataRefused, parseClientMetadata } from './registration.js';
import { formatScopes } from './scopes.js';

/** How long a document read is used before it is read again. */
export const METADATA_DOCUMENT_CACHE_MS = 5 * 60 * 1000;
/** The draft advises a small limit; a client's metadata is a few hundred bytes. */
export const MAX_METADATA_DOCUMENT_BYTES = 8 * 1024;
/**
 * Documents one address may have read in a minute: codehost must not become
 * anybody's way of sending requests to sites of their choosing.
 */
export const METADATA_READS_PER_MINUTE = 20;
/** A client's server that does not answer in this time is not waited for. */
const FETCH_TIMEOUT_MS = 5000;
const MAX_CLIENT_ID_LENGTH = 2048;

/** Why a client's metadata document cannot be used, said to the person on the page. */
export class MetadataDocumentRefused extends Error {
  override readonly name = 'MetadataDocumentRefused';
}

/**
 * Whether a client ID is the address of its metadata (OAuth Client ID
 * Metadata Document, section 3): https, with a path, without a fragment,
 * credentials, or dot segments. Anything else is an ordinary client ID.
 */
export function isMetadataDocumentUrl(clientId: string): boolean {
  if (!clientId.startsWith('https://') || clientId.length > MAX_CLIENT_ID_LENGTH) return false;
  let url: URL;
  try {
    url = new URL(clientId);
  } catch {
    return false;
  }
  // The parsed form is the text itself: no dot segments, nothing normalised away.
  return (
    url.href === clientId &&
    url.pathname !== '/' &&
    url.hash === '' &&
    !clientId.includes('#') &&
    url.username === '' &&
    url.password === ''
  );
}

/**
 * Clients known by the address of their metadata, as the MCP authorization
 * specification recommends: the document is read through the outbound policy
 * (public addresses only, no redirects, a deadline, a size limit), checked
 * (it names itself as the client ID, redirect URIs as a self-registered
 * client's, no secret), and kept as an application row owned by nobody, read
 * again once `METADATA_DOCUMENT_CACHE_MS` has passed.
 */
export class ClientMetadataDocuments {
  /** Reads under way, by client ID: many sign-ins at once read a document once. */
  private readonly reading = new Map<string, Promise<ApplicationRow>>();

  constructor(
    private readonly db: Kysely<CodehostTables>,
    private readonly outbound: OutboundPolicy,
    /** Counts the reads each address causes (shared by every instance). */
    private readonly counters: CounterStore,
    private readonly now: () => number = Date.now,
  ) {}

  /**
   * The client, from its row while fresh, otherwise from its document read now,
   * if `requester` (the address asking) has not caused too many reads this minute.
   */
  async resolve(clientId: string, requester: string): Promise<ApplicationRow> {
    const row = await this.stored(clientId);
    if (row && this.now() - Number(row.metadata_fetched_at ?? 0) < METADATA_DOCUMENT_CACHE_MS) {
      return row;
    }
    const under = this.reading.get(clientId);
    if (under) return under;
    const { count, resetsInMs } = await this.counters.hit(`metadata-reads:${requester}`, 60_000);
    if (count > METADATA_READS_PER_MINUTE) {
      throw new MetadataDocumentRefused(
        `Too many client metadata documents were asked for from your address; try again in ${Math.ceil(resetsInMs / 1000)} seconds.`,
      );
    }
    const read = this.read(clientId, row).finally(() => this.reading.delete(clientId));
    this.reading.set(clientId, read);
    return read;
  }

  /** The row kept for a client ID (any age), for the endpoints that do not read documents. */
  async stored(clientId: string): Promise<ApplicationRow | undefined> {
    return this.db
      .selectFrom('oauth_applications')
      .selectAll()
      .where('uid', '=', clientId)
      .where('registration', '=', 'metadata-document')
      .executeTakeFirst();
  }

  private async read(clientId: string, previous: ApplicationRow | undefined) {
    const answer = await this.outbound.get(clientId, {
      headers: { accept: 'application/json' },
      timeoutMs: FETCH_TIMEOUT_MS,
      maxBodyBytes: MAX_METADATA_DOCUMENT_BYTES,
    });
    if (!answer.ok || answer.body === undefined) {
      throw new MetadataDocumentRefused(
        `Its metadata at ${clientId} could not be read: ${answer.error ?? 'no answer'}.`,
      );
    }
    let document: unknown;
    try {
      document = JSON.parse(answer.body);
    } catch {
      throw new MetadataDocumentRefused(`Its metadata at ${clientId} is not JSON.`);
    }
    const field = (name: string) =>
      typeof document === 'object' && document !== null && Object.hasOwn(document, name)
        ? (document as Record<string, unknown>)[name]
        : undefined;
    // Section 4.1: the document names itself, exactly; and holds no shared secret.
    if (field('client_id') !== clientId) {
      throw new MetadataDocumentRefused(
        `Its metadata at ${clientId} does not give that address as its client_id.`,
      );
    }
    if (field('client_secret') !== undefined || field('client_secret_expires_at') !== undefined) {
      throw new MetadataDocumentRefused(`Its metadata at ${clientId} holds a client secret.`);
    }
    let metadata: ReturnType<typeof parseClientMetadata>;
    try {
      metadata = parseClientMetadata(document);
    } catch (error) {
      if (error instanceof MetadataRefused) {
        throw new MetadataDocumentRefused(`Its metadata at ${clientId}: ${error.message}`);
      }
      throw error;
    }
    const now = this.now();
    const values = {
      name: metadata.clientName === 'Unnamed client' ? new URL(clientId).host : metadata.clientName,
      redirect_uri: metadata.redirectUris.join('\n'),
      scopes: formatScopes(metadata.scopes),
      device_authorization_grant: metadata.grantTypes.includes(DEVICE_CODE_GRANT_TYPE)
        ? (1 as const)
        : (0 as const),
      client_uri: metadata.clientUri,
      metadata_fetched_at: now,
      updated_at: now,
    };
    if (previous) {
      await this.db
        .updateTable('oauth_applications')
        .set(values)
        .where('id', '=', previous.id)
        .execute();
      return { ...previous, ...values };
    }
    return this.db
      .insertInto('oauth_applications')
      .values({
        ...values,
        uid: clientId,
        // A public client: the hash is of a secret nobody holds.
        secret_hash: secretHash(newSecret()),
        confidential: 0,
        owner_id: null,
        registration: 'metadata-document',
        registration_token_hash: null,
        created_at: now,
      })
      .onConflict((conflict) => conflict.column('uid').doUpdateSet(values))
      .returningAll()
      .executeTakeFirstOrThrow();
  }
}
