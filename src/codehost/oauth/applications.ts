import type { Kysely, Selectable } from 'kysely';
import { reusableQuery } from '../../platform/db/reusable-query.js';
import type { OutboundPolicy } from '../../platform/http/outbound.js';
import { matchesSecretHash, newSecret, secretHash } from '../../platform/security/secrets.js';
import type { CodehostTables, OauthApplicationsTable } from '../db/tables.js';
import { isMetadataDocumentUrl } from './client-metadata-documents.js';
import { formatScopes, type Scope } from './scopes.js';

export type ApplicationRow = Selectable<OauthApplicationsTable>;

export class ApplicationError extends Error {
  override readonly name = 'ApplicationError';
  constructor(
    readonly field:
      | 'name'
      | 'redirect_uri'
      | 'post_logout_redirect_uri'
      | 'backchannel_logout_uri'
      | 'scopes',
    message: string,
  ) {
    super(message);
  }
}

export interface ApplicationInput {
  name: string;
  /** One URI per line, as the form sends them. */
  redirectUris: string;
  /** OpenID Connect RP-initiated logout: where the browser may return to; may be empty. */
  postLogoutRedirectUris?: string;
  scopes: readonly Scope[];
  confidential: boolean;
  /** RFC 8628: devices without a browser may sign in with a code (off unless asked for). */
  deviceAuthorizationGrant?: boolean;
  /** OpenID Connect Back-Channel Logout: where logout tokens go ('' or absent for none). */
  backchannelLogoutUri?: string;
  /** Whether the relying party needs `sid` (always sent; recorded as it asked). */
  backchannelLogoutSessionRequired?: boolean;
  /**
   * Set up by whoever deploys codehost (a trusted client), not by a user on a
   * page: its back-channel logout URI may be on any network.
   */
  configuredByOperator?: boolean;
}

const MAX_REDIRECT_URIS = 20;
const MAX_REDIRECT_URI_LENGTH = 2000;
/** Schemes that would run code in the browser instead of reaching a client. */
const FORBIDDEN_SCHEMES = new Set(['javascript:', 'data:', 'vbscript:', 'file:', 'blob:']);

/** The registered URIs, one per line, each checked as RFC 6749 section 3.1.2 requires. */
export function parseRedirectUris(
  text: string,
  field: 'redirect_uri' | 'post_logout_redirect_uri' = 'redirect_uri',
): string[] {
  const uris = text
    .split(/\r?\n/)
    .map((line) => line.trim())
    .filter(Boolean);
  if (uris.length === 0 && field === 'redirect_uri')
    throw new ApplicationError(field, "Redirect URI can't be blank");
  if (uris.length > MAX_REDIRECT_URIS) {
    throw new ApplicationError(field, `At most ${MAX_REDIRECT_URIS} redirect URIs`);
  }
  const label = field === 'redirect_uri' ? 'Redirect URI' : 'Post-logout redirect URI';
  for (const uri of uris) {
    // Quoted short: a refusal names the address without echoing a huge paste.
    const quoted = uri.length > 80 ? `${uri.slice(0, 77)}…` : uri;
    if (uri.length > MAX_REDIRECT_URI_LENGTH) {
      throw new ApplicationError(
        field,
        `${label} is too long (at most ${MAX_REDIRECT_URI_LENGTH} characters): ${quoted}`,
      );
    }
    let url: URL;
    try {
      url = new URL(uri);
    } catch {
      throw new ApplicationError(field, `${label} must be an absolute URI: ${quoted}`);
    }
    if (FORBIDDEN_SCHEMES.has(url.protocol)) {
      throw new ApplicationError(field, `${label} is not allowed: ${quoted}`);
    }
    if (url.hash || uri.includes('#')) {
      throw new ApplicationError(field, `${label} cannot contain a fragment: ${quoted}`);
    }
  }
  return [...new Set(uris)];
}

/**
 * A back-channel logout URI (OpenID Connect Back-Channel Logout 1.0, section
 * 2.2): absolute, http or https (codehost posts to it), without a fragment or
 * credentials. Where its host leads is checked by the outbound policy.
 */
export function parseBackchannelLogoutUri(text: string): string {
  const uri = text.trim();
  if (uri === '') return '';
  const quoted = uri.length > 80 ? `${uri.slice(0, 77)}…` : uri;
  const refuse = (message: string) => new ApplicationError('backchannel_logout_uri', message);
  if (uri.length > MAX_REDIRECT_URI_LENGTH) {
    throw refuse(
      `Back-channel logout URI is too long (at most ${MAX_REDIRECT_URI_LENGTH} characters)`,
    );
  }
  let url: URL;
  try {
    url = new URL(uri);
  } catch {
    throw refuse(`Back-channel logout URI must be an absolute URI: ${quoted}`);
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') {
    throw refuse(`Back-channel logout URI must be an http or https address: ${quoted}`);
  }
  if (url.hash || uri.includes('#')) {
    throw refuse(`Back-channel logout URI cannot contain a fragment: ${quoted}`);
  }
  if (url.username || url.password) {
    throw refuse('Back-channel logout URI cannot contain credentials; logout tokens are signed');
  }
  return uri;
}

/** Exact comparison, as for redirect URIs (OpenID Connect RP-Initiated Logout 1.0, 3). */
export function isRegisteredPostLogoutUri(application: ApplicationRow, uri: string): boolean {
  return postLogoutRedirectUrisOf(application).includes(uri);
}

export function postLogoutRedirectUrisOf(application: ApplicationRow): string[] {
  return application.post_logout_redirect_uris.split('\n').filter(Boolean);
}

export function redirectUrisOf(application: ApplicationRow): string[] {
  return application.redirect_uri.split('\n').filter(Boolean);
}

/** Exact string comparison, as RFC 9700 section 4.1.3 asks: no prefixes, no patterns. */
export function isRegisteredRedirectUri(application: ApplicationRow, uri: string): boolean {
  return redirectUrisOf(application).includes(uri);
}

export function scopesOf(row: { scopes: string }): Scope[] {
  return row.scopes.split(' ').filter(Boolean) as Scope[];
}

/** The OAuth applications users register under /profile/applications. */
export class ApplicationStore {
  constructor(
    private readonly db: Kysely<CodehostTables>,
    /** Where back-channel logout URIs may lead (the one policy for addresses users give). */
    private readonly outbound: OutboundPolicy,
    private readonly now: () => number = Date.now,
  ) {}

  /** Registers an application; the secret is returned once and kept only as a hash. */
  async create(
    ownerId: number,
    input: ApplicationInput,
  ): Promise<{ application: ApplicationRow; secret: string }> {
    const values = await this.validated(input);
    const secret = newSecret();
    const now = this.now();
    const application = await this.db
      .insertInto('oauth_applications')
      .values({
        ...values,
        uid: newSecret(),
        secret_hash: secretHash(secret),
        owner_id: ownerId,
        created_at: now,
        updated_at: now,
      })
      .returningAll()
      .executeTakeFirstOrThrow();
    return { application, secret };
  }

  async update(ownerId: number, id: number, input: ApplicationInput): Promise<boolean> {
    const previous = await this.findOwned(ownerId, id);
    if (!previous) return false;
    const result = await this.db
      .updateTable('oauth_applications')
      .set({ ...(await this.validated(input, previous)), updated_at: this.now() })
      .where('id', '=', id)
      .where('owner_id', '=', ownerId)
      .executeTakeFirst();
    return result.numUpdatedRows > 0n;
  }

  /** Deleting an application deletes its codes and tokens with it (cascade). */
  async delete(ownerId: number, id: number): Promise<boolean> {
    const result = await this.db
      .deleteFrom('oauth_applications')
      .where('id', '=', id)
      .where('owner_id', '=', ownerId)
      .executeTakeFirst();
    return result.numDeletedRows > 0n;
  }

  async renewSecret(ownerId: number, id: number): Promise<string | undefined> {
    const secret = newSecret();
    const result = await this.db
      .updateTable('oauth_applications')
      .set({ secret_hash: secretHash(secret), updated_at: this.now() })
      .where('id', '=', id)
      .where('owner_id', '=', ownerId)
      .executeTakeFirst();
    return result.numUpdatedRows > 0n ? secret : undefined;
  }

  async ownedBy(ownerId: number): Promise<ApplicationRow[]> {
    return this.db
      .selectFrom('oauth_applications')
      .selectAll()
      .where('owner_id', '=', ownerId)
      .orderBy('id')
      .execute();
  }

  async findOwned(ownerId: number, id: number): Promise<ApplicationRow | undefined> {
    return this.db
      .selectFrom('oauth_applications')
      .selectAll()
      .where('id', '=', id)
      .where('owner_id', '=', ownerId)
      .executeTakeFirst();
  }

  async findById(id: number): Promise<ApplicationRow | undefined> {
    return this.db
      .selectFrom('oauth_applications')
      .selectAll()
      .where('id', '=', id)
      .executeTakeFirst();
  }

  /** Every token request that names its client reads it: built once. */
  private readonly byClientId = reusableQuery((clientId: string) =>
    this.db.selectFrom('oauth_applications').selectAll().where('uid', '=', clientId),
  );

  async findByClientId(clientId: string): Promise<ApplicationRow | undefined> {
    // A generated ID, or the address of a client's metadata document read before.
    if (!/^[0-9a-f]{64}$/.test(clientId) && !isMetadataDocumentUrl(clientId)) return undefined;
    return (await this.db.executeQuery(this.byClientId(clientId))).rows[0];
  }

  /** The client named by `clientId` when `secret` is its secret (constant-time check). */
  async authenticate(clientId: string, secret: string): Promise<ApplicationRow | undefined> {
    const application = await this.findByClientId(clientId);
    if (!application) return undefined;
    return matchesSecretHash(secret, application.secret_hash) ? application : undefined;
  }

  /**
   * The row's values, or the first rule the input breaks. A back-channel
   * logout URI saved before and unchanged is not looked up again (its host
   * may be down a moment), and keeps whoever set it up.
   */
  private async validated(input: ApplicationInput, previous?: ApplicationRow) {
    const name = input.name.trim();
    if (name.length === 0 || name.length > 255) {
      throw new ApplicationError('name', 'Name must be 1 to 255 characters');
    }
    if (input.scopes.length === 0) {
      throw new ApplicationError('scopes', 'Choose at least one scope');
    }
    const backchannelLogoutUri = parseBackchannelLogoutUri(input.backchannelLogoutUri ?? '');
    const unchanged = previous?.backchannel_logout_uri === backchannelLogoutUri;
    const byOperator =
      input.configuredByOperator ?? (unchanged && previous?.configured_by_operator === 1);
    if (backchannelLogoutUri !== '' && !byOperator && !unchanged) {
      const problem = await this.outbound.hostProblem(backchannelLogoutUri);
      if (problem) {
        throw new ApplicationError(
          'backchannel_logout_uri',
          `Back-channel logout URI ${problem}; codehost posts only to public addresses, unless its operator allows the range`,
        );
      }
    }
    return {
      name,
      redirect_uri: parseRedirectUris(input.redirectUris).join('\n'),
      post_logout_redirect_uris: parseRedirectUris(
        input.postLogoutRedirectUris ?? '',
        'post_logout_redirect_uri',
      ).join('\n'),
      scopes: formatScopes(input.scopes),
      confidential: input.confidential ? (1 as const) : (0 as const),
      device_authorization_grant: input.deviceAuthorizationGrant ? (1 as const) : (0 as const),
      backchannel_logout_uri: backchannelLogoutUri,
      configured_by_operator: byOperator ? (1 as const) : (0 as const),
      backchannel_logout_session_required: input.backchannelLogoutSessionRequired
        ? (1 as const)
        : (0 as const),
    };
  }
}
