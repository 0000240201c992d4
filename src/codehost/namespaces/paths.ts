/**
 * GitLab's rule for group and project paths: letters, digits, `_`, `-` and `.`;
 * not starting with `-` or `.`, not ending in `.`, `.git` or `.atom`.
 */
const PATH = /^[a-zA-Z0-9_][a-zA-Z0-9_.-]*$/;
const FORBIDDEN_END = /(\.|\.git|\.atom)$/i;
export const MAX_PATH_LENGTH = 255;

export const PATH_RULE =
  "can contain only letters, digits, '_', '-' and '.'. Cannot start with '-' or end in '.', '.git' or '.atom'.";

export function pathProblem(path: string): string | undefined {
  if (path.length === 0) return "can't be blank";
  if (path.length > MAX_PATH_LENGTH)
    return `is too long (maximum is ${MAX_PATH_LENGTH} characters)`;
  if (!PATH.test(path) || FORBIDDEN_END.test(path)) return PATH_RULE;
  return undefined;
}

export function nameProblem(name: string): string | undefined {
  if (name.trim().length === 0) return "can't be blank";
  if (name.length > 255) return 'is too long (maximum is 255 characters)';
  return undefined;
}

/** Rails' `parameterize`: what GitLab derives a project path from when only a name is given. */
export function parameterize(name: string): string {
  return name
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9_-]+/g, '-')
    .replace(/-{2,}/g, '-')
    .replace(/^-|-$/g, '');
}

/** Could this be a full path at all? Anything else is not looked up (nor sent to the database). */
export function isFullPathShaped(fullPath: string): boolean {
  return fullPath.length <= 1300 && /^[a-zA-Z0-9_.\-/]+$/.test(fullPath);
}
