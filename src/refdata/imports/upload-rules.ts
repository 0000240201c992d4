import { isLinkIri } from '../../platform/http/formats.js';
import type { FieldError } from '../../platform/http/problem.js';
import { identify, UnknownTable } from './cfihos-tables.js';
import { ENCODINGS, type Encoding } from './csv-table.js';
import type { NewImport } from './jobs.js';
import { readUploadedFile, UnreadableFile, type UploadedFile } from './sources.js';

/**
 * What an upload must be, the API's and the page's alike: its fields, and
 * files that can be read as the CFIHOS tables.
 */

/** The fields an import's form has beside its files. */
export const FIELDS = ['library', 'dryRun', 'mode', 'encoding'] as const;

/** A multipart field's value, checked as the documented parameters say. */
export function settingsOf(fields: Map<string, string>): {
  settings?: Omit<NewImport, 'owner' | 'files'>;
  errors: FieldError[];
} {
  const errors: FieldError[] = [];
  const error = (field: string, detail: string) =>
    errors.push({ in: 'body', field: `/${field}`, detail });
  const library = fields.get('library');
  if (library === undefined || library === '')
    error('library', 'is required: the IRI of the library to import into');
  else if (!isLinkIri(library)) error('library', 'must be an absolute http, https or urn IRI');
  const dryRun = fields.get('dryRun') ?? 'false';
  if (dryRun !== 'true' && dryRun !== 'false') error('dryRun', 'must be true or false');
  const mode = fields.get('mode') ?? 'all-or-nothing';
  if (mode !== 'all-or-nothing' && mode !== 'valid-only')
    error('mode', 'must be all-or-nothing or valid-only');
  const encoding = fields.get('encoding');
  if (encoding !== undefined && encoding !== '' && !ENCODINGS.includes(encoding as Encoding))
    error('encoding', `must be one of ${ENCODINGS.join(', ')}, or left out to detect it`);
  if (errors.length > 0) return { errors };
  return {
    errors,
    settings: {
      library: library as string,
      dryRun: dryRun === 'true',
      mode: mode as NewImport['mode'],
      encoding: encoding === undefined || encoding === '' ? undefined : (encoding as Encoding),
    },
  };
}

/**
 * Why a file cannot be imported at all (not text, not CSV, a header that is
 * none of the CFIHOS tables'), found while the person still waits for the
 * answer; what its records say is the job's to check.
 */
export async function fileErrors(
  file: UploadedFile,
  encoding: Encoding | undefined,
): Promise<FieldError[]> {
  if (file.bytes.length === 0)
    return [{ in: 'body', field: '/file', detail: `${file.name} is empty` }];
  try {
    const read = await readUploadedFile(file, encoding);
    for (const table of read.tables) identify(table);
    return [];
  } catch (error) {
    if (error instanceof UnreadableFile || error instanceof UnknownTable)
      return [{ in: 'body', field: '/file', detail: error.message }];
    throw error;
  }
}
