import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';

/**
 * The CFIHOS v2.0 Core reference data library as IOGP JIP36 publishes it (its
 * eight CSV files, shipped in `datasets/`), which a new instance offers as
 * its first library: what the forms need to build on (classes, properties,
 * picklists, units and their dimensions) from the day it starts.
 */
export const CFIHOS_CORE = {
  name: 'CFIHOS v2.0 Core',
  path: 'cfihos-v2-0-core',
  /** The licence goes with any library imported from the files. */
  attribution:
    'The CFIHOS v2.0 Core reference data library, © IOGP JIP36 (https://www.jip36-cfihos.org/cfihos-standards/), under Creative Commons Attribution 4.0 International (CC BY 4.0, https://creativecommons.org/licenses/by/4.0/).',
  licence: 'https://creativecommons.org/licenses/by/4.0/',
  source: 'https://www.jip36-cfihos.org/cfihos-standards/',
  /** What the files hold, as counted in their records (datasets/cfihos-v2.0-core/README.md). */
  holds: [
    ['equipment classes', 832],
    ['tag classes', 875],
    ['properties', 1388],
    ['picklist values', 3027],
    ['units of measure', 1472],
  ] as const,
} as const;

/** The shipped files' directory: `datasets/` at the package's root, from `src/` or `dist/`. */
const DIRECTORY = join(import.meta.dirname, '../../../datasets/cfihos-v2.0-core');

/** The eight CSV files, by name, as an upload would bring them. */
export async function cfihosCoreFiles(): Promise<{ name: string; bytes: Buffer }[]> {
  const names = (await readdir(DIRECTORY)).filter((name) => name.endsWith('.csv')).sort();
  return Promise.all(
    names.map(async (name) => ({ name, bytes: await readFile(join(DIRECTORY, name)) })),
  );
}
