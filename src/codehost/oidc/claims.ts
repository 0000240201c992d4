import type { UserRow } from '../accounts/users.js';
import type { Codehost } from '../context.js';

/** What a claim is made from, and where it appears. */
interface ClaimDefinition {
  idToken: boolean;
  userinfo: boolean;
  /** The value, or undefined to leave the claim out. */
  value(user: UserRow, facts: UserFacts, scopes: readonly string[]): unknown;
}

/** What claims need beyond the user's row, read once per token or userinfo call. */
export interface UserFacts {
  publicUrl: string;
  /** Full paths of the groups the user is a member of, directly or through an ancestor. */
  groups: string[];
  /** Full paths of the groups the user is a direct member of, with the access level. */
  direct: { path: string; accessLevel: number }[];
}

const OWNER = 50;
const MAINTAINER = 40;
const DEVELOPER = 30;

const directAt = (facts: UserFacts, level: number) => {
  const paths = facts.direct.filter((group) => group.accessLevel === level).map((g) => g.path);
  return paths.length > 0 ? paths : undefined;
};

/**
 * GitLab's claims, as its doorkeeper-openid_connect configuration defines them:
 * every one released by the `openid` scope, the `email` scope deciding only
 * whether `email` is the primary address. `sub` and the registered claims
 * (`iss`, `aud`, `exp`, `iat`, `auth_time`, `nonce`, `at_hash`) are the ID
 * token's own. docs/oidc.md has the table.
 */
export const CLAIMS: Readonly<Record<string, ClaimDefinition>> = {
  name: { idToken: true, userinfo: true, value: (user) => user.name },
  nickname: { idToken: true, userinfo: true, value: (user) => user.username },
  preferred_username: { idToken: true, userinfo: true, value: (user) => user.username },
  // GitLab gives the public e-mail without the `email` scope; accounts here have
  // none (profiles have no public e-mail yet), so the claim needs `email`.
  email: {
    idToken: true,
    userinfo: true,
    value: (user, _facts, scopes) => (scopes.includes('email') ? user.email : undefined),
  },
  email_verified: {
    idToken: true,
    userinfo: true,
    // Addresses are confirmed or set by an administrator; an unconfirmed one is not verified.
    value: (user, _facts, scopes) =>
      scopes.includes('email') ? user.confirmed_at !== null : undefined,
  },
  website: {
    idToken: true,
    userinfo: true,
    value: (user) => (user.website_url === '' ? undefined : user.website_url),
  },
  // GitLab's `picture` (the avatar URL) is not here: no avatars are stored, and a
  // claim that is never sent must not be advertised in claims_supported either.
  profile: {
    idToken: true,
    userinfo: true,
    value: (user, facts) => `${facts.publicUrl}/${user.username}`,
  },
  groups: { idToken: false, userinfo: true, value: (_user, facts) => facts.groups },
  groups_direct: {
    idToken: true,
    userinfo: false,
    value: (_user, facts) => facts.direct.map((group) => group.path),
  },
  'https://gitlab.org/claims/groups/owner': {
    idToken: false,
    userinfo: true,
    value: (_user, facts) => directAt(facts, OWNER),
  },
  'https://gitlab.org/claims/groups/maintainer': {
    idToken: false,
    userinfo: true,
    value: (_user, facts) => directAt(facts, MAINTAINER),
  },
  'https://gitlab.org/claims/groups/developer': {
    idToken: false,
    userinfo: true,
    value: (_user, facts) => directAt(facts, DEVELOPER),
  },
};

/** The group facts claims need, in one pass over the user's memberships. */
export async function userFacts(codehost: Codehost, user: UserRow): Promise<UserFacts> {
  const memberships = await codehost.db
    .selectFrom('members')
    .select(['source_id', 'access_level'])
    .where('user_id', '=', user.id)
    .where('source_type', '=', 'group')
    .execute();
  const directIds = memberships.map((row) => row.source_id);
  const allIds = await codehost.groups.selfAndDescendantIds(directIds);
  const groups = await codehost.groups.findNamespacesByIds(allIds);
  const pathOf = new Map(groups.map((group) => [group.id, group.full_path]));
  return {
    publicUrl: codehost.config.publicUrl,
    groups: allIds.flatMap((id) => pathOf.get(id) ?? []).sort(),
    direct: memberships
      .flatMap((row) => {
        const path = pathOf.get(row.source_id);
        return path === undefined ? [] : [{ path, accessLevel: row.access_level }];
      })
      .sort((a, b) => a.path.localeCompare(b.path)),
  };
}

/** The claims a token with `scopes` releases, for the ID token or for userinfo. */
export function claimsFor(
  user: UserRow,
  facts: UserFacts,
  scopes: readonly string[],
  where: 'idToken' | 'userinfo',
): Record<string, unknown> {
  const claims: Record<string, unknown> = { sub: String(user.id) };
  if (!scopes.includes('openid')) return claims;
  for (const [name, claim] of Object.entries(CLAIMS)) {
    if (!claim[where]) continue;
    const value = claim.value(user, facts, scopes);
    if (value !== undefined) claims[name] = value;
  }
  return claims;
}
