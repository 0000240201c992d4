import { randomBytes } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ConstraintViolationError } from '../../platform/db/errors.js';
import type { UserStore } from './users.js';

export const INITIAL_ADMIN_USERNAME = 'root';
export const INITIAL_PASSWORD_FILE = 'codehost-initial-root-password';

/** A password nobody has to type twice: 24 random bytes, base64url. */
export function generatedPassword(): string {
  return randomBytes(24).toString('base64url');
}

/**
 * As GitLab does for `root`: on first start with no users, create an
 * administrator with a random password written to a file only the owner can
 * read. Returns the line to print, or undefined when there were users already.
 * Several instances starting together create the account once: the unique
 * username decides, and the losers stay quiet.
 */
export async function createInitialAdmin(
  users: UserStore,
  dataDir: string,
): Promise<string | undefined> {
  if ((await users.count()) > 0) return undefined;
  const password = generatedPassword();
  try {
    await users.create({
      username: INITIAL_ADMIN_USERNAME,
      name: 'Administrator',
      email: 'admin@example.com',
      password,
      isAdmin: true,
      mustChangePassword: true,
    });
  } catch (error) {
    if (error instanceof ConstraintViolationError) return undefined;
    throw error;
  }
  mkdirSync(dataDir, { recursive: true });
  const file = join(dataDir, INITIAL_PASSWORD_FILE);
  writeFileSync(file, `${password}\n`, { mode: 0o600 });
  return `codehost created the administrator account "${INITIAL_ADMIN_USERNAME}"; its initial password is in ${file} (readable only by you). Sign in with it: you will be asked to choose your own password. Then delete the file.`;
}
