import { authorizationCodeGrant } from './authorization-code.js';
import { deviceCodeGrant } from './device-code.js';
import type { Grant } from './grant.js';
import { passwordGrant } from './password.js';
import { refreshTokenGrant } from './refresh-token.js';

/** The token endpoint's grants, by `grant_type`; a new grant is a file and a line here. */
export const BUILT_IN_GRANTS: readonly Grant[] = [
  authorizationCodeGrant,
  passwordGrant,
  refreshTokenGrant,
  deviceCodeGrant,
];

export function grantsByType(grants: readonly Grant[]): ReadonlyMap<string, Grant> {
  return new Map(grants.map((grant) => [grant.type, grant]));
}

export const GRANTS = grantsByType(BUILT_IN_GRANTS);
