import { describe, expect, it } from 'vitest';
import { rolesFromClaims } from '../../src/refdata/auth/identity-provider.js';
import { DEFAULT_ROLE_MAP, roleMap } from '../../src/refdata/config.js';

describe('refdata roles from an identity provider’s claims', () => {
  const gitlab = { rolesClaim: 'groups', roleMap: roleMap(DEFAULT_ROLE_MAP) };

  it('maps GitLab-style group paths, and grants `*` roles to everyone who signs in', () => {
    expect(rolesFromClaims({ groups: ['refdata/creators', 'other'] }, gitlab)).toEqual([
      'Reader',
      'Creator',
    ]);
    expect(rolesFromClaims({ groups: ['refdata/reviewers'] }, gitlab)).toEqual([
      'Reader',
      'Reviewer',
    ]);
    expect(rolesFromClaims({}, gitlab)).toEqual(['Reader']);
  });

  it('reads a nested claim (Keycloak) or a single string (Entra), exactly', () => {
    const keycloak = {
      rolesClaim: 'realm_access.roles',
      roleMap: roleMap('Creator=refdata-creator|editor,Reviewer=refdata-reviewer'),
    };
    expect(
      rolesFromClaims({ realm_access: { roles: ['editor', 'offline_access'] } }, keycloak),
    ).toEqual(['Creator']);
    expect(rolesFromClaims({ realm_access: { roles: ['Editor'] } }, keycloak)).toEqual([]);
    const entra = { rolesClaim: 'roles', roleMap: roleMap('Reviewer=Refdata.Reviewer') };
    expect(rolesFromClaims({ roles: 'Refdata.Reviewer' }, entra)).toEqual(['Reviewer']);
    // Wrong types grant nothing, and never reach Object.prototype.
    expect(rolesFromClaims({ roles: { Reviewer: true } }, entra)).toEqual([]);
    expect(
      rolesFromClaims({}, { rolesClaim: '__proto__.constructor', roleMap: { Reader: ['x'] } }),
    ).toEqual([]);
  });

  it('refuses a role map it cannot read', () => {
    expect(() => roleMap('Creator')).toThrow(/Role=value/);
    expect(roleMap('Creator=a|b, Creator=c')).toEqual({ Creator: ['a', 'b', 'c'] });
  });
});
