import { isLibrary } from '../families/family.js';
import type { IndexRow } from './documents.js';

/**
 * The label of every stored library, kept by the instance beside its index
 * from the same rows and the same change log, so that a page of hits shows
 * its collections without a query for them. Libraries are few (tens), and a
 * library renamed or removed is seen as soon as the index sees it.
 */
export class LibraryLabels {
  private readonly labels = new Map<string, string>();
  private readonly iriOf = new Map<number, string>();

  /** Takes note of a row read for the index: a library's label, or a library that is one no longer. */
  note(row: Pick<IndexRow, 'id' | 'iri' | 'family' | 'name'>): void {
    if (isLibrary(row)) {
      this.forget(row.id);
      this.iriOf.set(row.id, row.iri);
      this.labels.set(row.iri, row.name);
    } else this.forget(row.id);
  }

  /** The resource with this id is gone. */
  forget(id: number): void {
    const iri = this.iriOf.get(id);
    if (iri === undefined) return;
    this.iriOf.delete(id);
    this.labels.delete(iri);
  }

  labelOf(iri: string): string | undefined {
    return this.labels.get(iri);
  }
}
