import type { Kysely } from 'kysely';
import type { Config, ServiceConfig } from '../platform/config.js';
import type { SigningKey } from './auth/signing-key.js';
import { TokenVerifier } from './auth/tokens.js';
import type { Catalogues } from './catalogues/catalogues.js';
import type { RefdataTables } from './db/tables.js';
import type { FamilyRegistry } from './families/registry.js';
import { ResourceStore } from './resources/store.js';

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
}

export function createRefdata(
  db: Kysely<RefdataTables>,
  config: ServiceConfig,
  platform: Config,
  signingKey: SigningKey | undefined,
  catalogues: Catalogues,
  families: FamilyRegistry,
): Refdata {
  return {
    db,
    publicUrl: config.publicUrl,
    iriBase: platform.refdata.iriBase,
    store: new ResourceStore(db, families),
    verifier: new TokenVerifier(platform.refdata.tokens, signingKey),
    signingKey,
    catalogues,
    families,
  };
}
