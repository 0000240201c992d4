import { SignJWT } from 'jose';
import type { UserRow } from '../accounts/users.js';
import type { Codehost } from '../context.js';
import { userFacts } from '../oidc/claims.js';
import { issuerOf } from './issuer.js';
import type { IssuedToken } from './tokens.js';

/**
 * A JWT access token (RFC 9068) for the resource server the token row names:
 * the API checks it with codehost's published keys, without calling back. Its
 * `jti` is the row's secret, so revocation and introspection still find the row.
 * `groups` carries the user's groups (GitLab's claim of that name, with their
 * ancestors), from which a resource server such as refdata grants its roles.
 */
export async function signJwtAccessToken(
  codehost: Codehost,
  input: {
    issued: IssuedToken & { row: { resource: string } };
    user: UserRow;
    clientId: string | undefined;
    authTime: number | undefined;
    sid: string | undefined;
  },
): Promise<string> {
  const { row, accessToken } = input.issued;
  const key = await codehost.signingKeys.signingKey();
  const facts = await userFacts(codehost, input.user);
  return new SignJWT({
    // RFC 9068 section 2.2: the client it was issued to; a password grant names none.
    ...(input.clientId === undefined ? {} : { client_id: input.clientId }),
    scope: row.scopes,
    ...(input.authTime === undefined ? {} : { auth_time: input.authTime }),
    ...(input.sid === undefined ? {} : { sid: input.sid }),
    preferred_username: input.user.username,
    groups: facts.groups,
  })
    .setProtectedHeader({ alg: key.alg, kid: key.kid, typ: 'at+jwt' })
    .setIssuer(issuerOf(codehost))
    .setSubject(String(input.user.id))
    .setAudience(row.resource)
    .setJti(accessToken)
    .setIssuedAt(Math.floor(Number(row.created_at) / 1000))
    .setExpirationTime(Math.floor(Number(row.expires_at) / 1000))
    .sign(await codehost.signingKeys.privateKey(key));
}
