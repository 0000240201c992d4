import type { Quad } from 'n3';
import { isLinkIri } from '../../platform/http/formats.js';
import type { FieldError } from '../../platform/http/problem.js';
import { identify, type KnownTable, UnknownTable } from './cfihos-tables.js';
import type { Encoding } from './csv-table.js';
import { ENCODINGS } from './csv-table.js';
import { rdfFormatOf, readRdf } from './rdf-source.js';
import { readInThread } from './read-in-thread.js';
import { TooLargeToRead, UnreadableFile, type UploadedFile } from './sources.js';

export interface NewImport {
  library: string;
  owner: string;
  dryRun: boolean;
  mode: 'all-or-nothing' | 'valid-only';
  encoding: Encoding | undefined;
  files: UploadedFile[];
}

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

/** A file as a job's status describes it. */
export interface FileSummary {
  name: string;
  encoding?: string;
  encodingFrom?: string;
  records: number;
  blankRecords: number;
  tables: { source: string; kind: string; records: number; unread: string[] }[];
}

/** Files read as CFIHOS tables, with what the job's status says of each. */
export interface ReadTables {
  tables: KnownTable[];
  /** RDF files' triples, by file. */
  graphs: { source: string; quads: Quad[] }[];
  files: FileSummary[];
}

/**
 * Reads uploaded files as CFIHOS tables; or the reasons they cannot be (a file
 * that is empty, not text, not CSV, or none of the tables), one per file.
 */
export async function readTables(
  uploaded: readonly UploadedFile[],
  encoding: Encoding | undefined,
): Promise<ReadTables | { errors: FieldError[]; tooLarge?: string }> {
  const tables: KnownTable[] = [];
  const graphs: ReadTables['graphs'] = [];
  const files: FileSummary[] = [];
  const errors: FieldError[] = [];
  let tooLarge: string | undefined;
  const refuse = (detail: string) => errors.push({ in: 'body', field: '/file', detail });
  const tabular = uploaded.filter((upload) => upload.bytes.length > 0 && !rdfFormatOf(upload.name));
  const readTabular = readInThread(tabular, encoding);
  try {
    for (const upload of uploaded) {
      if (upload.bytes.length === 0) {
        refuse(`${upload.name} is empty`);
        continue;
      }
      try {
        if (rdfFormatOf(upload.name)) {
          const quads = await readRdf(upload);
          graphs.push({ source: upload.name, quads });
          files.push({
            name: upload.name,
            records: quads.length,
            blankRecords: 0,
            tables: [{ source: upload.name, kind: 'rdf', records: quads.length, unread: [] }],
          });
          continue;
        }
        const next = await readTabular.next();
        // The thread stopped early (past its memory): the rest are not read.
        if (next.done) break;
        if (next.value instanceof Error) throw next.value;
        const file = next.value;
        const known = file.tables.map(identify);
        tables.push(...known);
        files.push({
          name: file.name,
          ...(file.encoding ? { encoding: file.encoding, encodingFrom: file.encodingFrom } : {}),
          records: file.records,
          blankRecords: file.blankRecords,
          tables: known.map((table) => ({
            source: table.source,
            kind: table.kind,
            records: table.records.length,
            unread: table.unread,
          })),
        });
      } catch (error) {
        if (!(error instanceof UnreadableFile || error instanceof UnknownTable)) throw error;
        if (error instanceof TooLargeToRead) tooLarge ??= error.message;
        refuse(error.message);
      }
    }
  } finally {
    await readTabular.return(undefined);
  }
  if (errors.length > 0) return tooLarge === undefined ? { errors } : { errors, tooLarge };
  return { tables, graphs, files };
}
