import type { Kysely } from 'kysely';
import type { Config, ServiceConfig } from '../platform/config.js';
import type { SigningKey } from './auth/signing-key.js';
import { TokenVerifier } from './auth/tokens.js';
import type { Catalogues } from './catalogues/catalogues.js';
import type { RefdataTables } from './db/tables.js';
import type { FamilyRegistry } from './families/registry.js';
import { ResourceStore } from './resources/store.js';
import { SearchService } from './search/service.js';

/** Everything refdata's routes work with, built once per server. */
export interface Refdata {
  db: Kysely<RefdataTables>;
  publicUrl: string;
  iriBase: string;
  store: ResourceStore;
  verifier: TokenVerifier;
  /** refdata's own signing key, when it issues its tokens itself. */
  signingKey: SigningKey | undefined;
  catalogues: Catalogues;
  /** The families this server authors. */
  families: FamilyRegistry;
  /** This instance's search index. */
  search: SearchService;
}

export function createRefdata(
  db: Kysely<RefdataTables>,
  config: ServiceConfig,
  platform: Config,
  signingKey: SigningKey | undefined,
  catalogues: Catalogues,
  families: FamilyRegistry,
  log: ConstructorParameters<typeof SearchService>[3],
): Refdata {
  return {
    db,
    publicUrl: config.publicUrl,
    iriBase: platform.refdata.iriBase,
    store: new ResourceStore(db),
    verifier: new TokenVerifier(platform.refdata.tokens, signingKey),
    signingKey,
    catalogues,
    families,
    search: new SearchService(db, families, platform.refdata.search, log),
  };
}
