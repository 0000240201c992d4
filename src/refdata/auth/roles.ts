/** refdata's roles, as the PCA platform names them. */
export const ROLES = ['Reader', 'Creator', 'Reviewer'] as const;
export type Role = (typeof ROLES)[number];

/** Reading needs any role; Creators write; Reviewers decide (and may submit). */
export const READ_ROLES: readonly Role[] = ['Reader', 'Creator', 'Reviewer'];
export const WRITE_ROLES: readonly Role[] = ['Creator'];
export const SUBMIT_ROLES: readonly Role[] = ['Creator', 'Reviewer'];
export const REVIEW_ROLES: readonly Role[] = ['Reviewer'];

/** Role names from a token, matched without regard to letter case; others are ignored. */
export function rolesFrom(value: unknown): Role[] {
  const names =
    typeof value === 'string' ? value.split(/[\s,]+/) : Array.isArray(value) ? value : [];
  return ROLES.filter((role) =>
    names.some((name) => typeof name === 'string' && name.toLowerCase() === role.toLowerCase()),
  );
}
