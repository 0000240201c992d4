import type { Kysely } from 'kysely';
import type { RefdataTables } from '../db/tables.js';
import type { FamilyRegistry } from '../families/registry.js';

interface IndexedRow {
  id: number;
  iri: string;
  family: string;
  name: string;
  body: string;
}

/**
 * Indexed text as the words queries are made of (`queryTokens`): letters and
 * digits without accents, one space between words. Both engines then see the
 * same words: PostgreSQL's parser would otherwise read `<valve>` as an XML tag,
 * `a/b` as a file path or `x@y.z` as an e-mail address, and drop or join them
 * where SQLite's tokenizer splits.
 */
function plain(text: string): string {
  return (
    text
      .normalize('NFKD')
      .replace(/[\u0300-\u036f]/g, '')
      .match(/[\p{L}\p{N}]+/gu)
      ?.join(' ') ?? ''
  );
}

/** What search looks in for a resource: its label, identifiers, description and mapping targets. */
export function searchDocument(row: IndexedRow, families: FamilyRegistry) {
  const body = JSON.parse(row.body) as Record<string, unknown>;
  const identifiers = [
    row.iri.split(/[/#]/).pop() ?? '',
    ...(families.byKey(row.family)?.identifiers?.(body) ?? []),
  ];
  const mappings = Array.isArray(body.relatedTerms)
    ? (body.relatedTerms as { targetLibrary?: string; targetIdentifier?: string }[]).map(
        (term) => `${term.targetLibrary ?? ''} ${term.targetIdentifier ?? ''}`,
      )
    : [];
  return {
    resource_id: row.id,
    label: plain(row.name),
    identifier: plain(identifiers.filter(Boolean).join(' ')),
    description: plain(typeof body.description === 'string' ? body.description : ''),
    mappings: plain(mappings.join(' ')),
  };
}

/** Replaces a resource's entry; called in the transaction that wrote the resource. */
export async function indexResource(
  db: Kysely<RefdataTables>,
  row: IndexedRow,
  families: FamilyRegistry,
): Promise<void> {
  await unindexResource(db, row.id);
  await db.insertInto('search_documents').values(searchDocument(row, families)).execute();
}

export async function unindexResource(
  db: Kysely<RefdataTables>,
  resourceId: number,
): Promise<void> {
  await db.deleteFrom('search_documents').where('resource_id', '=', resourceId).execute();
}
