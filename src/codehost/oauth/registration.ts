import { isIP } from 'node:net';
import { type Kysely, sql } from 'kysely';
import { constantTimeEqual, newSecret, secretHash } from '../../platform/security/secrets.js';
import type { CodehostTables } from '../db/tables.js';
import type { ApplicationRow } from './applications.js';
import { DEVICE_CODE_GRANT_TYPE } from './grants/device-code.js';
import { formatScopes, isScope, type Scope } from './scopes.js';

/** Why registration metadata is refused (RFC 7591 section 3.2.2), in the RFC's words. */
export class MetadataRefused extends Error {
  override readonly name = 'MetadataRefused';
  constructor(
    readonly error: 'invalid_redirect_uri' | 'invalid_client_metadata',
    description: string,
  ) {
    super(description);
  }
}

/** The grants a client that registered itself may use: it has no secret to keep. */
const GRANT_TYPES = ['authorization_code', 'refresh_token', DEVICE_CODE_GRANT_TYPE] as const;
/** GitLab's limit on a dynamic application's name. */
const MAX_NAME_LENGTH = 200;
const MAX_REDIRECT_URIS = 10;
const MAX_URI_LENGTH = 2000;
/** Scopes a client gets when it names none: what signing in and the API need, not more. */
const DEFAULT_REGISTERED_SCOPES: readonly Scope[] = ['api', 'openid', 'profile', 'email'];

/** What a registration request asks for, checked. */
export interface ClientMetadata {
  clientName: string;
  clientUri: string;
  redirectUris: string[];
  grantTypes: string[];
  scopes: Scope[];
}

const LOOPBACK_HOSTS = new Set(['localhost', '127.0.0.1', '[::1]']);

/**
 * A redirect URI a client may register for itself: https, or http on this
 * computer's loopback (RFC 8252 section 7.3, for native apps and command-line
 * tools), without a fragment or credentials. Nothing else: no `javascript:`,
 * `data:` or custom scheme, no plain http to another host.
 */
function redirectUri(value: unknown): string {
  if (typeof value !== 'string' || value === '' || value.length > MAX_URI_LENGTH) {
    throw new MetadataRefused(
      'invalid_redirect_uri',
      `Each redirect URI must be a string of at most ${MAX_URI_LENGTH} characters.`,
    );
  }
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new MetadataRefused('invalid_redirect_uri', `${value} is not an absolute URI.`);
  }
  if (url.hash !== '' || value.includes('#')) {
    throw new MetadataRefused('invalid_redirect_uri', `${value} has a fragment, which is refused.`);
  }
  if (url.username !== '' || url.password !== '') {
    throw new MetadataRefused('invalid_redirect_uri', `${value} holds credentials.`);
  }
  const loopback =
    LOOPBACK_HOSTS.has(url.hostname) ||
    (isIP(url.hostname) === 4 && url.hostname.startsWith('127.'));
  if (url.protocol === 'https:' || (url.protocol === 'http:' && loopback)) return value;
  throw new MetadataRefused(
    'invalid_redirect_uri',
    url.protocol === 'http:'
      ? `${value} is plain http to another computer: use https, or http on the loopback address.`
      : `${value} uses the ${url.protocol} scheme: a client registering itself may use https, or http on the loopback address.`,
  );
}

function stringList(value: unknown, name: string): string[] {
  const list = typeof value === 'string' ? [value] : value;
  if (!Array.isArray(list) || !list.every((item) => typeof item === 'string')) {
    throw new MetadataRefused('invalid_client_metadata', `${name} must be an array of strings.`);
  }
  return list;
}

/** RFC 7591 section 2's fields this server acts on; others are ignored, as section 2 allows. */
export function parseClientMetadata(body: unknown): ClientMetadata {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw new MetadataRefused(
      'invalid_client_metadata',
      'The registration request must be a JSON object of client metadata.',
    );
  }
  const field = (name: string): unknown =>
    Object.hasOwn(body, name) ? (body as Record<string, unknown>)[name] : undefined;

  const method = field('token_endpoint_auth_method');
  if (method !== undefined && method !== 'none') {
    throw new MetadataRefused(
      'invalid_client_metadata',
      'token_endpoint_auth_method must be none: a client registers itself here as a public client, with PKCE.',
    );
  }
  const grantTypes =
    field('grant_types') === undefined
      ? ['authorization_code', 'refresh_token']
      : [...new Set(stringList(field('grant_types'), 'grant_types'))];
  const unknownGrant = grantTypes.find(
    (grant) => !(GRANT_TYPES as readonly string[]).includes(grant),
  );
  if (unknownGrant !== undefined || grantTypes.length === 0) {
    throw new MetadataRefused(
      'invalid_client_metadata',
      `grant_types may hold ${GRANT_TYPES.join(', ')}${unknownGrant === undefined ? '' : `, not ${unknownGrant}`}.`,
    );
  }
  const responseTypes =
    field('response_types') === undefined
      ? ['code']
      : stringList(field('response_types'), 'response_types');
  if (responseTypes.some((type) => type !== 'code')) {
    throw new MetadataRefused('invalid_client_metadata', 'response_types may hold code only.');
  }
  const uris = field('redirect_uris');
  const redirectUris =
    uris === undefined ? [] : [...new Set(stringList(uris, 'redirect_uris').map(redirectUri))];
  if (redirectUris.length === 0 && grantTypes.includes('authorization_code')) {
    throw new MetadataRefused(
      'invalid_redirect_uri',
      'redirect_uris is required for the authorization_code grant.',
    );
  }
  if (redirectUris.length > MAX_REDIRECT_URIS) {
    throw new MetadataRefused(
      'invalid_redirect_uri',
      `At most ${MAX_REDIRECT_URIS} redirect URIs may be registered.`,
    );
  }
  const name = field('client_name');
  if (
    name !== undefined &&
    (typeof name !== 'string' || name.trim() === '' || name.length > MAX_NAME_LENGTH)
  ) {
    throw new MetadataRefused(
      'invalid_client_metadata',
      `client_name must be a string of 1 to ${MAX_NAME_LENGTH} characters.`,
    );
  }
  const clientUri = field('client_uri');
  if (clientUri !== undefined) {
    let url: URL | undefined;
    try {
      url =
        typeof clientUri === 'string' && clientUri.length <= MAX_URI_LENGTH
          ? new URL(clientUri)
          : undefined;
    } catch {
      url = undefined;
    }
    if (!url || (url.protocol !== 'https:' && url.protocol !== 'http:') || url.username !== '') {
      throw new MetadataRefused(
        'invalid_client_metadata',
        'client_uri must be an http(s) address.',
      );
    }
  }
  const scope = field('scope');
  if (scope !== undefined && typeof scope !== 'string') {
    throw new MetadataRefused('invalid_client_metadata', 'scope must be a space-separated string.');
  }
  const names =
    scope === undefined ? [...DEFAULT_REGISTERED_SCOPES] : scope.split(' ').filter(Boolean);
  const unknownScope = names.find((item) => !isScope(item));
  if (unknownScope !== undefined || names.length === 0) {
    throw new MetadataRefused(
      'invalid_client_metadata',
      unknownScope === undefined
        ? 'scope names no scope.'
        : `scope ${unknownScope} is not known here.`,
    );
  }
  return {
    clientName: typeof name === 'string' ? name.trim() : 'Unnamed client',
    clientUri: typeof clientUri === 'string' ? clientUri : '',
    redirectUris,
    grantTypes,
    scopes: [...new Set(names)] as Scope[],
  };
}

/** The registration as RFC 7591 section 3.2.1 and RFC 7592 section 3 answer it. */
export function clientInformation(application: ApplicationRow, publicUrl: string) {
  const grantTypes = [
    'authorization_code',
    'refresh_token',
    ...(application.device_authorization_grant === 1 ? [DEVICE_CODE_GRANT_TYPE] : []),
  ];
  return {
    client_id: application.uid,
    client_id_issued_at: Math.floor(Number(application.created_at) / 1000),
    client_name: application.name,
    ...(application.client_uri === '' ? {} : { client_uri: application.client_uri }),
    redirect_uris: application.redirect_uri.split('\n').filter(Boolean),
    grant_types: grantTypes,
    response_types: ['code'],
    token_endpoint_auth_method: 'none' as const,
    scope: application.scopes,
    registration_client_uri: `${publicUrl}/oauth/register/${application.uid}`,
  };
}

/**
 * Clients that registered themselves (RFC 7591, RFC 7592): public clients
 * owned by nobody, each with a registration access token kept as a hash.
 */
export class RegistrationStore {
  constructor(
    private readonly db: Kysely<CodehostTables>,
    private readonly now: () => number = Date.now,
  ) {}

  async register(
    metadata: ClientMetadata,
  ): Promise<{ application: ApplicationRow; registrationToken: string }> {
    const registrationToken = newSecret();
    const now = this.now();
    const application = await this.db
      .insertInto('oauth_applications')
      .values({
        uid: newSecret(),
        // A public client has no secret; the hash is of one nobody holds.
        secret_hash: secretHash(newSecret()),
        name: metadata.clientName,
        redirect_uri: metadata.redirectUris.join('\n'),
        scopes: formatScopes(metadata.scopes),
        confidential: 0,
        device_authorization_grant: metadata.grantTypes.includes(DEVICE_CODE_GRANT_TYPE) ? 1 : 0,
        owner_id: null,
        registration: 'dynamic',
        registration_token_hash: secretHash(registrationToken),
        client_uri: metadata.clientUri,
        metadata_fetched_at: null,
        created_at: now,
        updated_at: now,
      })
      .returningAll()
      .executeTakeFirstOrThrow();
    return { application, registrationToken };
  }

  /** The registration `clientId` names, if `token` is its registration access token. */
  async authorized(clientId: string, token: string): Promise<ApplicationRow | undefined> {
    if (!/^[0-9a-f]{64}$/.test(clientId)) return undefined;
    const application = await this.db
      .selectFrom('oauth_applications')
      .selectAll()
      .where('uid', '=', clientId)
      .where('registration', '=', 'dynamic')
      .executeTakeFirst();
    if (!application?.registration_token_hash) return undefined;
    return constantTimeEqual(secretHash(token), application.registration_token_hash)
      ? application
      : undefined;
  }

  /** Deleting a registration deletes its codes and tokens with it (cascade). */
  async remove(id: number): Promise<void> {
    await this.db.deleteFrom('oauth_applications').where('id', '=', id).execute();
  }

  /**
   * Registrations nobody has used for `unusedDays`: registered before then, and
   * no token issued to them since. Deleted a bounded number at a time, at each
   * new registration, so the table never fills with abandoned clients.
   */
  async expireUnused(unusedDays: number, limit = 100): Promise<number> {
    const cutoff = this.now() - unusedDays * 86_400_000;
    const stale = await this.db
      .selectFrom('oauth_applications as a')
      .select('a.id')
      .where('a.registration', '<>', 'owner')
      .where('a.created_at', '<', cutoff)
      .where(({ not, exists, selectFrom }) =>
        not(
          exists(
            selectFrom('oauth_access_tokens as t')
              .select(sql<number>`1`.as('one'))
              .whereRef('t.application_id', '=', 'a.id')
              .where('t.created_at', '>=', cutoff),
          ),
        ),
      )
      .limit(limit)
      .execute();
    if (stale.length === 0) return 0;
    await this.db
      .deleteFrom('oauth_applications')
      .where(
        'id',
        'in',
        stale.map((row) => row.id),
      )
      .execute();
    return stale.length;
  }
}
