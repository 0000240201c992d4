import { type Kysely, sql } from 'kysely';
import type { RefdataTables, Status } from '../db/tables.js';
import { DEFAULT_LANGUAGE } from '../families/common.js';
import { languageKeys } from '../families/languages.js';
import type { FamilyRegistry } from '../families/registry.js';
import { rdfTypesOf } from '../rdf/rdf-types.js';
import type { IndexedDocument } from './memory-index.js';
import { foldedName, wordsOf } from './words.js';

/** What the index needs of a resource row. */
export interface IndexRow {
  id: number;
  iri: string;
  family: string;
  name: string;
  status: Status;
  body: string;
  /** The library it is defined in (a value's: its picklist's). */
  library: string | null;
  /** The language of its name and description; English when left out (older callers). */
  language?: string;
}

/** The four fields search looks in: label, identifiers, mapping targets, description. */
export function searchFields(
  row: Pick<IndexRow, 'iri' | 'family' | 'name'>,
  body: Record<string, unknown>,
  families: FamilyRegistry,
) {
  const identifiers = [
    row.iri.split(/[/#]/).pop() ?? '',
    ...(families.byKey(row.family)?.identifiers?.(body) ?? []),
  ];
  const mappings = Array.isArray(body.relatedTerms)
    ? (body.relatedTerms as { targetLibrary?: string; targetIdentifier?: string }[]).map(
        (term) => `${term.targetLibrary ?? ''} ${term.targetIdentifier ?? ''}`,
      )
    : [];
  // Every language's preferred and other labels are labels to search; every
  // language's definition is description (docs/search.md).
  const translations = Array.isArray(body.translations)
    ? (body.translations as { name?: string; description?: string }[])
    : [];
  const synonyms = Array.isArray(body.synonyms) ? (body.synonyms as { label?: string }[]) : [];
  const description = typeof body.description === 'string' ? body.description : '';
  return {
    label: [
      row.name,
      ...translations.map((translation) => translation.name ?? ''),
      ...synonyms.map((synonym) => synonym.label ?? ''),
    ].join(' '),
    identifier: identifiers.filter(Boolean).join(' '),
    mappings: mappings.join(' '),
    description: [description, ...translations.map((t) => t.description ?? '')].join(' ').trim(),
  };
}

/** The languages of a body's translations or synonyms. */
function labelLanguages(list: unknown): string[] {
  return Array.isArray(list)
    ? list.flatMap((item: { language?: unknown }) =>
        typeof item.language === 'string' ? [item.language] : [],
      )
    : [];
}

export function indexedDocument(row: IndexRow, families: FamilyRegistry): IndexedDocument {
  const body = JSON.parse(row.body) as Record<string, unknown>;
  const fields = searchFields(row, body, families);
  return {
    id: row.id,
    name: foldedName(row.name),
    family: row.family,
    library: row.library ?? undefined,
    status: row.status,
    // Worked out once here rather than for every hit: a family without its own
    // answer maps the whole body to RDF to find them.
    types: rdfTypesOf(families.byKey(row.family), body),
    languages: languageKeys([
      row.language ?? DEFAULT_LANGUAGE,
      ...labelLanguages(body.translations),
      ...labelLanguages(body.synonyms),
    ]),
    words: {
      label: wordsOf(fields.label),
      identifier: wordsOf(fields.identifier),
      mappings: wordsOf(fields.mappings),
      description: wordsOf(fields.description),
    },
    shown: {
      iri: row.iri,
      label: row.name,
      description: typeof body.description === 'string' ? body.description : undefined,
    },
  };
}

/** Resource rows as the index reads them, with a value's library taken from its picklist. */
export function selectIndexRows(db: Kysely<RefdataTables>) {
  return db
    .selectFrom('resources as r')
    .leftJoin('resources as parent', 'parent.iri', 'r.parent_iri')
    .select([
      'r.id as id',
      'r.iri as iri',
      'r.family as family',
      'r.name as name',
      'r.status as status',
      'r.body as body',
      'r.language as language',
      sql<string | null>`coalesce(parent.library_key, r.library_key)`.as('library'),
    ]);
}
