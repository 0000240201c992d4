import { readFileSync } from 'node:fs';

/**
 * The text of a browser asset (a script, a style sheet) kept as a file of its
 * own beside the module that serves it, where the linter and the browser type
 * check see it: `readAsset(new URL('./assets/copy.js', import.meta.url))`.
 * Read once, when the module loads; the build copies assets into dist/.
 */
export function readAsset(url: URL): string {
  return readFileSync(url, 'utf8');
}
