import type { Kysely } from 'kysely';
import type { Config, ServiceConfig } from '../platform/config.js';
import { IdentityProvider } from './auth/identity-provider.js';
import { PersonalTokens } from './auth/personal-tokens.js';
import { ProviderTokenVerifier } from './auth/provider-tokens.js';
import { RESOURCE_METADATA_PATH, resourceIdentifier } from './auth/resource-metadata.js';
import type { SigningKey } from './auth/signing-key.js';
import { TokenVerifier } from './auth/tokens.js';
import type { Catalogues } from './catalogues/catalogues.js';
import type { ChangeFeedSettings } from './changes/settings.js';
import type { RefdataSettings } from './config.js';
import type { RefdataTables } from './db/tables.js';
import type { FamilyRegistry } from './families/registry.js';
import { ImportJobs } from './imports/jobs.js';
import { ReleaseStore } from './releases/store.js';
import type { ReplicaLog } from './replicas/replica.js';
import type { ResourceContext } from './resources/resource-context.js';
import { ResourceStore } from './resources/store.js';
import { MailSender } from './review/mailer.js';
import { Notifications } from './review/notifications.js';
import { PackageStore } from './review/packages.js';
import { SearchService } from './search/service.js';
import { EmbeddedSparql } from './sparql/embedded-engine.js';
import type { SparqlEngine } from './sparql/engine.js';
import { ExternalSparql } from './sparql/external/engine.js';
import { ExternalStoreSparql } from './sparql/external/external-engine.js';
import { ExternalStore } from './sparql/external/store-client.js';
import { StoreSync } from './sparql/external/store-sync.js';
import type { WebhookSecrets } from './webhooks/secrets.js';
import { Webhooks } from './webhooks/service.js';

/** Everything refdata's routes work with, built once per server. */
export interface Refdata extends ResourceContext {
  /** The OpenID Connect provider refdata trusts, when one is configured. */
  /** People's personal access tokens for the API. */
  personalTokens: PersonalTokens;
  provider: IdentityProvider | undefined;
  verifier: TokenVerifier;
  /** refdata's own signing key, when it issues its tokens itself. */
  signingKey: SigningKey | undefined;
  /** This instance's search index. */
  search: SearchService;
  /** This instance's SPARQL dataset, the published view. */
  sparql: SparqlEngine;
  /** Visitors without a token may read what is published (REFDATA_ANONYMOUS_READ). */
  anonymousRead: boolean;
  /** The change feed's pages. */
  changes: ChangeFeedSettings;
  /** Webhook subscriptions and this instance's deliveries. */
  webhooks: Webhooks;
  /** Bulk import jobs and this instance's worker for them. */
  imports: ImportJobs;
  /** Library releases: immutable snapshots of a library's published view. */
  releases: ReleaseStore;
  /** What was submitted together, reviewed as one. */
  packages: PackageStore;
  /** Each person's inbox, mail and what they want to be told. */
  notifications: Notifications;
  /** Sends the mail notifications queue. */
  mailer: MailSender;
}

/**
 * The SPARQL engine: the embedded one, or an external store for the published
 * view beside an embedded working view, when one is configured.
 */
function sparqlEngine(
  db: Kysely<RefdataTables>,
  store: ResourceStore,
  dataset: { families: FamilyRegistry; iriBase: string },
  settings: RefdataSettings['sparql'],
  log: ReplicaLog,
): SparqlEngine {
  if (!settings.store) return new EmbeddedSparql(db, store, dataset, settings, log);
  const working = new EmbeddedSparql(db, store, dataset, settings, log, ['working']);
  const client = new ExternalStore(settings.store);
  const sync = new StoreSync(db, store, dataset, client, settings.pollMilliseconds, log);
  return new ExternalStoreSparql(working, new ExternalSparql(client, sync, settings));
}

export function createRefdata(
  db: Kysely<RefdataTables>,
  config: ServiceConfig,
  settings: RefdataSettings,
  signingKey: SigningKey | undefined,
  catalogues: Catalogues,
  families: FamilyRegistry,
  log: ReplicaLog,
  webhookSecrets: WebhookSecrets,
  outbound: Pick<Config, 'outboundAllowedNetworks' | 'outboundTrustedCertificates'>,
): Refdata {
  const valuesFieldOf = (family: string) => families.byKey(family)?.aggregate?.field;
  const store = new ResourceStore(db, valuesFieldOf);
  const search = new SearchService(db, families, settings.search, log);
  const dataset = { families, iriBase: settings.iriBase };
  const sparql = sparqlEngine(db, store, dataset, settings.sparql, log);
  // A write committed here is in this instance's index and dataset before its next read.
  store.onCommitted(
    () => search.noteLocalWrite(),
    (error) => log.error({ err: error }, 'search did not hear of a committed write'),
  );
  store.onCommitted(
    () => sparql.noteLocalWrite(),
    (error) => log.error({ err: error }, 'sparql did not hear of a committed write'),
  );
  const webhooks = new Webhooks(
    db,
    webhookSecrets,
    settings.webhooks,
    config.publicUrl,
    log,
    outbound,
  );
  // A change committed here is sent to its subscribers at once, not at the next tick.
  store.onCommitted(
    () => webhooks.committed(),
    (error) => log.error({ err: error }, 'webhooks did not hear of a committed write'),
  );
  // Woken by the writes that queue mail (review/decisions.ts, review/comments.ts), not by
  // every write: most queue none, and each wake is a read of the outbox.
  const mailer = new MailSender(db, settings.review.mail, settings.review.mailRetry, log);
  // The OpenID Connect provider people sign in at, whose access tokens for this
  // API are taken too (codehost in the embedded set-up).
  const provider = settings.web.oidc
    ? new IdentityProvider(settings.web.oidc, config.publicUrl)
    : undefined;
  const personalTokens = new PersonalTokens(db);
  const refdata = {
    db,
    publicUrl: config.publicUrl,
    iriBase: settings.iriBase,
    store,
    provider,
    verifier: new TokenVerifier(settings.tokens, signingKey, {
      resourceMetadataUrl: `${config.publicUrl}${RESOURCE_METADATA_PATH}`,
      provider:
        provider && new ProviderTokenVerifier(provider, resourceIdentifier(config.publicUrl)),
      personal: personalTokens,
    }),
    personalTokens,
    signingKey,
    catalogues,
    families,
    search,
    sparql,
    anonymousRead: settings.web.anonymousRead,
    changes: settings.changes,
    webhooks,
    releases: new ReleaseStore(db, valuesFieldOf),
    review: settings.review,
    packages: new PackageStore(db),
    notifications: new Notifications(db),
    mailer,
  };
  // Jobs write through the same store, rules and families as the API.
  return { ...refdata, imports: new ImportJobs(refdata, settings.imports, log) };
}
