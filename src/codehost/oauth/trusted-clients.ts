import type { Kysely } from 'kysely';
import type { OutboundPolicy } from '../../platform/http/outbound.js';
import type { CodehostTables } from '../db/tables.js';
import { ApplicationStore } from './applications.js';
import type { Scope } from './scopes.js';

/** A relying party set up by whoever deploys codehost, not by a user on a page. */
export interface TrustedClient {
  name: string;
  redirectUri: string;
  postLogoutRedirectUri: string;
  /** Where it hears that a session ended (OpenID Connect Back-Channel Logout). */
  backchannelLogoutUri?: string;
  scopes: readonly Scope[];
}

/**
 * Registers (or brings up to date) an application owned by the first
 * administrator, as an administrator would on the Applications page, and gives
 * it a new secret: the caller hands the secret to the relying party, and no
 * earlier secret stays valid. Undefined while codehost has no administrator.
 */
export async function ensureTrustedClient(
  db: Kysely<CodehostTables>,
  client: TrustedClient,
  outbound: OutboundPolicy,
): Promise<{ clientId: string; clientSecret: string } | undefined> {
  const admin = await db
    .selectFrom('users')
    .select('id')
    .where('is_admin', '=', 1)
    .where('state', '=', 'active')
    .orderBy('id')
    .executeTakeFirst();
  if (!admin) return undefined;
  const applications = new ApplicationStore(db, outbound);
  const input = {
    name: client.name,
    redirectUris: client.redirectUri,
    postLogoutRedirectUris: client.postLogoutRedirectUri,
    ...(client.backchannelLogoutUri
      ? {
          backchannelLogoutUri: client.backchannelLogoutUri,
          backchannelLogoutSessionRequired: true,
        }
      : {}),
    scopes: client.scopes,
    confidential: true,
    configuredByOperator: true,
  };
  const existing = (await applications.ownedBy(admin.id)).find(
    (application) => application.name === client.name,
  );
  if (!existing) {
    const { application, secret } = await applications.create(admin.id, input);
    return { clientId: application.uid, clientSecret: secret };
  }
  await applications.update(admin.id, existing.id, input);
  const secret = await applications.renewSecret(admin.id, existing.id);
  return secret === undefined ? undefined : { clientId: existing.uid, clientSecret: secret };
}
