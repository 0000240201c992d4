import { join, resolve } from 'node:path';
import { readWorkers } from '../platform/background/workers.js';
import {
  ConfigError,
  httpUrl,
  integer,
  oneOf,
  type Reader,
  type SettingsContext,
} from '../platform/config.js';
import { type ChangeFeedSettings, readChangeFeedSettings } from './changes/settings.js';
import { type ImportSettings, readImportSettings } from './imports/settings.js';
import { type ReviewSettings, readReviewSettings } from './review/settings.js';
import { readWebhookSettings, type WebhookSettings } from './webhooks/settings.js';

/** refdata's identifiers and how it checks bearer tokens; see docs/authentication.md. */
export interface RefdataSettings {
  /** Base of the IRIs refdata mints, without a trailing slash. */
  iriBase: string;
  /** Where the ETIM and UNSPSC catalogue files are read from. */
  cataloguesDir: string;
  tokens: {
    /** An identity provider's key set; unset means refdata signs its own tokens. */
    jwksUrl: string | undefined;
    issuer: string;
    audience: string;
    /** Claim holding the roles; a dotted path reaches into objects (`realm_access.roles`). */
    rolesClaim: string;
    /** refdata's own signing key (a private JWK), created on first start. */
    signingKeyFile: string;
    /** Longest a token may live (`exp` after `iat`); longer ones are refused, and not minted. */
    maxLifetimeSeconds: number;
  };
  /** Each instance's in-memory search index; see docs/search.md. */
  search: {
    /** How often the change log is read for what other instances wrote. */
    pollMilliseconds: number;
    /** How long start-up waits for the index before serving (503 on search until it is built). */
    startWaitMilliseconds: number;
    /** The bound of the answers kept for searches asked again, in bytes (0: none kept). */
    answerCacheBytes: number;
  };
  /** The SPARQL endpoint over the published view; see docs/sparql.md. */
  sparql: {
    /** How often the change log is read for what other instances wrote. */
    pollMilliseconds: number;
    /** How long start-up waits for the dataset before serving (503 on /sparql until it is built). */
    startWaitMilliseconds: number;
    /** A query running longer is stopped and answered 503 `sparql-timeout`. */
    timeoutMilliseconds: number;
    /** Queries an instance evaluates or holds in line at once; more are answered 503 `sparql-busy`. */
    maxConcurrent: number;
    /** The longest query text, in bytes (413 beyond). */
    maxQueryBytes: number;
    /** The most rows (solutions) an answer holds; a query asking for more is cut there. */
    maxRows: number;
    /** Copies of each view, each in a thread: queries run side by side, and one stopped leaves the others. */
    copies: number;
    /** One client's queries at once (read, waiting or evaluated); more are answered 429. */
    clientConcurrent: number;
    /** How long a query waits in line for a copy of its view (503 `sparql-busy` beyond). */
    queueWaitMilliseconds: number;
    /** Where each view's snapshot file is kept, that stopped copies are filled from. */
    snapshotDirectory: string;
    /** A SPARQL store the published view is kept in and its queries go to; unset: the embedded one. */
    store: ExternalStoreConfig | undefined;
  };
  /** Webhook subscriptions and their deliveries; see docs/changes.md. */
  webhooks: WebhookSettings;
  /** The change feed at /changes; see docs/changes.md. */
  changes: ChangeFeedSettings;
  /** Bulk imports; see docs/import.md. */
  imports: ImportSettings;
  /** The review process: four eyes and notifications by mail; see docs/review.md. */
  review: ReviewSettings;
  /** The kinds of work after the answer this instance takes on (`REFDATA_WORKERS`). */
  workers: ReadonlySet<RefdataWorker>;
  /** The web pages; see docs/web.md. */
  web: {
    /** Libraries, search and approved content are open to visitors who are not signed in. */
    anonymousRead: boolean;
    /** Signing in through an OpenID Connect provider; unset offers token sign-in only. */
    oidc: OidcSignInConfig | undefined;
  };
}

/** An external SPARQL store's addresses and credentials (docs/sparql.md#an-external-store). */
export interface ExternalStoreConfig {
  /** The SPARQL 1.1 Protocol query endpoint queries are forwarded to. */
  queryUrl: string;
  /** The SPARQL 1.1 Update endpoint (a resource's old triples are deleted through it). */
  updateUrl: string;
  /** The SPARQL 1.1 Graph Store HTTP Protocol endpoint (triples are written through it). */
  graphStoreUrl: string;
  /** Credentials for updates and graph writes; queries are sent without them. */
  user: string | undefined;
  password: string | undefined;
  /** HTTP Basic (Fuseki, GraphDB) or Digest (Virtuoso's `/sparql-auth`). */
  auth: 'basic' | 'digest';
  /** How long the instance keeping the store holds it unrenewed before another takes over. */
  leaseMilliseconds: number;
}

/** A relying party's settings (refdata signing people in through a provider). */
export interface OidcSignInConfig {
  issuer: string;
  clientId: string;
  clientSecret: string;
  /** What the sign-in button calls the provider. */
  name: string;
  /** Claim holding group or role names; a dotted path reaches into objects. */
  rolesClaim: string;
  /** Each refdata role and the claim values that grant it (`*`: everyone who signs in). */
  roleMap: Record<string, string[]>;
  /** A GitLab-compatible provider's administrators hold every role (read from its API). */
  gitlabAdmins: boolean;
}

/** refdata's kinds of work done after the answer, as `REFDATA_WORKERS` names them. */
export const REFDATA_WORKERS = ['webhooks', 'mail', 'imports'] as const;
export type RefdataWorker = (typeof REFDATA_WORKERS)[number];

/** `iss` and `aud` of tokens from refdata's own key, unless configured otherwise. */
export const EMBEDDED_TOKEN_ISSUER = 'urn:refdata:embedded';
export const EMBEDDED_TOKEN_AUDIENCE = 'urn:refdata';

/** refdata's settings, the `REFDATA_*` variables (docs/configuration.md). */
export function readRefdataSettings(
  read: Reader,
  { publicUrl, dataDir, cwd }: SettingsContext,
): RefdataSettings {
  const jwksUrl =
    read('REFDATA_JWKS_URL') === undefined ? undefined : httpUrl(read, 'REFDATA_JWKS_URL', '');
  const issuer = read('REFDATA_TOKEN_ISSUER');
  if (jwksUrl && issuer === undefined) {
    throw new ConfigError(
      'REFDATA_TOKEN_ISSUER',
      '',
      "it is required with REFDATA_JWKS_URL: the issuer (iss) of the identity provider's tokens",
    );
  }
  const rolesClaim = claimPath(read, 'REFDATA_ROLES_CLAIM', 'roles');
  const workers = readWorkers(read, 'REFDATA', REFDATA_WORKERS, {
    webhooks: 'REFDATA_WEBHOOK_DELIVER',
    imports: 'REFDATA_IMPORT_WORKER',
  });
  const sparqlCopies = integer(read, 'REFDATA_SPARQL_COPIES', 2, 1, 16);
  const keyFile = read('REFDATA_SIGNING_KEY_FILE');
  return {
    iriBase: httpUrl(read, 'REFDATA_IRI_BASE', publicUrl),
    cataloguesDir: resolve(cwd, read('REFDATA_CATALOGUES_DIR') ?? join(dataDir, 'catalogues')),
    tokens: {
      jwksUrl,
      // Fixed defaults rather than the public URL: a token minted from the command line
      // must be accepted by the service whatever port either was started with.
      issuer: issuer ?? EMBEDDED_TOKEN_ISSUER,
      audience: read('REFDATA_TOKEN_AUDIENCE') ?? EMBEDDED_TOKEN_AUDIENCE,
      rolesClaim,
      // Relative to the working directory, like DATA_DIR.
      signingKeyFile: keyFile ? resolve(cwd, keyFile) : join(dataDir, 'refdata-signing-key.json'),
      maxLifetimeSeconds: integer(
        read,
        'REFDATA_TOKEN_MAX_LIFETIME_SECONDS',
        366 * 86_400,
        60,
        10 * 366 * 86_400,
      ),
    },
    search: {
      pollMilliseconds: integer(read, 'REFDATA_SEARCH_POLL_MS', 250, 10, 60_000),
      startWaitMilliseconds: integer(read, 'REFDATA_SEARCH_START_WAIT_MS', 2000, 0, 600_000),
      answerCacheBytes: integer(read, 'REFDATA_SEARCH_CACHE_MIB', 16, 0, 4096) * 1024 * 1024,
    },
    sparql: {
      pollMilliseconds: integer(read, 'REFDATA_SPARQL_POLL_MS', 250, 10, 60_000),
      startWaitMilliseconds: integer(read, 'REFDATA_SPARQL_START_WAIT_MS', 2000, 0, 600_000),
      timeoutMilliseconds: integer(read, 'REFDATA_SPARQL_TIMEOUT_MS', 10_000, 100, 600_000),
      maxConcurrent: integer(read, 'REFDATA_SPARQL_MAX_CONCURRENT', 8, 1, 1000),
      maxQueryBytes: integer(read, 'REFDATA_SPARQL_MAX_QUERY_KIB', 64, 1, 10_240) * 1024,
      maxRows: integer(read, 'REFDATA_SPARQL_MAX_ROWS', 100_000, 1, 100_000_000),
      copies: sparqlCopies,
      // One client may keep every copy but one busy: the last answers the others.
      clientConcurrent: integer(
        read,
        'REFDATA_SPARQL_CLIENT_CONCURRENT',
        Math.max(1, sparqlCopies - 1),
        1,
        1000,
      ),
      queueWaitMilliseconds: integer(read, 'REFDATA_SPARQL_QUEUE_WAIT_MS', 30_000, 0, 600_000),
      snapshotDirectory: resolve(
        cwd,
        read('REFDATA_SPARQL_SNAPSHOT_DIR') ?? join(dataDir, 'sparql-snapshots'),
      ),
      store: externalStoreConfig(read),
    },
    workers,
    webhooks: readWebhookSettings(read, dataDir, cwd, workers.has('webhooks')),
    changes: readChangeFeedSettings(read),
    imports: readImportSettings(read, workers.has('imports')),
    review: readReviewSettings(read, dataDir, cwd),
    web: {
      // Open by default, as on PCA's platform.
      anonymousRead: oneOf(read, 'REFDATA_ANONYMOUS_READ', 'true', ['true', 'false']) === 'true',
      oidc: oidcSignInConfig(read),
    },
  };
}

/** Group names as GitLab's `groups` claim carries them: `refdata/creators`. */
export const DEFAULT_ROLE_MAP = 'Reader=*,Creator=refdata/creators,Reviewer=refdata/reviewers';

function oidcSignInConfig(read: Reader): OidcSignInConfig | undefined {
  if (read('REFDATA_OIDC_ISSUER') === undefined) return undefined;
  const issuer = httpUrl(read, 'REFDATA_OIDC_ISSUER', '');
  const required = (name: string) => {
    const value = read(name);
    if (!value) throw new ConfigError(name, '', 'it is required with REFDATA_OIDC_ISSUER');
    return value;
  };
  const rolesClaim = claimPath(read, 'REFDATA_OIDC_ROLES_CLAIM', 'groups');
  return {
    issuer,
    clientId: required('REFDATA_OIDC_CLIENT_ID'),
    clientSecret: required('REFDATA_OIDC_CLIENT_SECRET'),
    name: read('REFDATA_OIDC_NAME') ?? new URL(issuer).host,
    rolesClaim,
    roleMap: roleMap(read('REFDATA_OIDC_ROLE_MAP') ?? DEFAULT_ROLE_MAP),
    gitlabAdmins: oneOf(read, 'REFDATA_OIDC_GITLAB_ADMINS', 'false', ['true', 'false']) === 'true',
  };
}

function externalStoreConfig(read: Reader): ExternalStoreConfig | undefined {
  if (read('REFDATA_SPARQL_STORE_QUERY_URL') === undefined) return undefined;
  const required = (name: string) => {
    if (read(name) === undefined)
      throw new ConfigError(name, '', 'it is required with REFDATA_SPARQL_STORE_QUERY_URL');
    return httpUrl(read, name, '');
  };
  const user = read('REFDATA_SPARQL_STORE_USER');
  const password = read('REFDATA_SPARQL_STORE_PASSWORD');
  if ((user === undefined) !== (password === undefined)) {
    throw new ConfigError(
      user === undefined ? 'REFDATA_SPARQL_STORE_USER' : 'REFDATA_SPARQL_STORE_PASSWORD',
      '',
      'REFDATA_SPARQL_STORE_USER and REFDATA_SPARQL_STORE_PASSWORD are set together',
    );
  }
  return {
    queryUrl: required('REFDATA_SPARQL_STORE_QUERY_URL'),
    updateUrl: required('REFDATA_SPARQL_STORE_UPDATE_URL'),
    graphStoreUrl: required('REFDATA_SPARQL_STORE_GRAPH_STORE_URL'),
    user,
    password,
    auth: oneOf(read, 'REFDATA_SPARQL_STORE_AUTH', 'basic', ['basic', 'digest']),
    leaseMilliseconds: integer(read, 'REFDATA_SPARQL_STORE_LEASE_MS', 30_000, 1000, 3_600_000),
  };
}

/** `Role=value|value,Role=value`: which claim values grant which role. */
export function roleMap(raw: string): Record<string, string[]> {
  const map: Record<string, string[]> = {};
  for (const entry of raw
    .split(',')
    .map((part) => part.trim())
    .filter(Boolean)) {
    const match = /^([A-Za-z]+)=(.+)$/.exec(entry);
    if (!match?.[1] || !match[2]) {
      throw new ConfigError(
        'REFDATA_OIDC_ROLE_MAP',
        raw,
        'it accepts Role=value entries separated by commas, values separated by |, such as Creator=refdata/creators|editors',
      );
    }
    map[match[1]] = [...(map[match[1]] ?? []), ...match[2].split('|').map((value) => value.trim())];
  }
  return map;
}

/** A claim's name, or a dotted path to one inside objects (`realm_access.roles`). */
function claimPath(read: Reader, name: string, fallback: string): string {
  const value = read(name) ?? fallback;
  if (!/^[A-Za-z0-9_:/.-]{1,200}$/.test(value)) {
    throw new ConfigError(name, value, 'it accepts a claim name, or a dotted path to one');
  }
  return value;
}
