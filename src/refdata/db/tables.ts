/** refdata's tables as Kysely sees them; each migration that adds a table adds it here. */
// biome-ignore lint/complexity/noBannedTypes: no tables yet; later migrations add them.
export type RefdataTables = {};
