import type { MigrationSet } from '../../platform/db/migrations.js';

/**
 * refdata's schema history, applied in name order at start-up. Names are
 * `NNNN_what`; a released migration is never edited, only followed by a new one.
 */
export const refdataMigrations: MigrationSet = {};
