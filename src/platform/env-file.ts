import { readFileSync } from 'node:fs';
import { parseEnv } from 'node:util';

/**
 * Merges the variables of an optional `.env` file under the real environment:
 * a variable set in the environment always wins over the file, so an operator can
 * override a checked-in default without editing it.
 */
export function environmentWithEnvFile(
  env: NodeJS.ProcessEnv,
  file: string,
): Record<string, string | undefined> {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { ...env };
    throw error;
  }
  return { ...parseEnv(text), ...env };
}
