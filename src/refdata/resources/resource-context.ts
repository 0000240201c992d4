import type { Kysely } from 'kysely';
import type { Catalogues } from '../catalogues/catalogues.js';
import type { RefdataTables } from '../db/tables.js';
import type { FamilyRegistry } from '../families/registry.js';
import type { ReviewSettings } from '../review/settings.js';
import type { ResourceStore } from './store.js';

/**
 * What writing and checking resources works with: the store, the families
 * and their rules' reference material, the addresses resources are made at,
 * and the review process's settings (who may change whose Drafts). Authoring,
 * the import planner and its jobs take this, not the whole service context.
 */
export interface ResourceContext {
  db: Kysely<RefdataTables>;
  publicUrl: string;
  iriBase: string;
  store: ResourceStore;
  catalogues: Catalogues;
  /** The families this server authors. */
  families: FamilyRegistry;
  /** The review process's settings (four eyes, mail). */
  review: ReviewSettings;
}
