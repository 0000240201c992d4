import { isAbsolute, join, resolve } from 'node:path';

/**
 * The process configuration, read once from the environment at start-up.
 * Every variable is listed in docs/configuration.md; keep the two in step.
 */
export interface Config {
  host: string;
  logLevel: LogLevel;
  bodyLimitBytes: number;
  requestTimeoutMs: number;
  shutdownTimeoutMs: number;
  trustProxy: TrustProxy;
  dataDir: string;
  security: SecurityConfig;
  services: Record<ServiceName, ServiceConfig>;
  refdata: RefdataConfig;
}

/** refdata's identifiers and how it checks bearer tokens; see docs/authentication.md. */
export interface RefdataConfig {
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
  /** The web pages; see docs/web.md. */
  web: {
    /** Libraries, search and approved content are open to visitors who are not signed in. */
    anonymousRead: boolean;
    /** Signing in through an OpenID Connect provider; unset offers token sign-in only. */
    oidc: OidcSignInConfig | undefined;
  };
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

/** Costs and limits that guard credentials; see docs/configuration.md. */
export interface SecurityConfig {
  /** argon2id cost: memory in KiB, passes, lanes. */
  passwordHash: { memoryKib: number; iterations: number; parallelism: number };
  /** Requests per client address per minute on each credential endpoint. */
  credentialRequestsPerMinute: number;
  /** Failed sign-ins per account before it is held for the rest of the window. */
  signInFailuresPerAccount: number;
  /** Length of the per-account failure window, in seconds. */
  signInFailureWindowSeconds: number;
  /** Idle lifetime of a browser session, in seconds. */
  sessionLifetimeSeconds: number;
  /** How long a rotated refresh token may be retried without counting as theft. */
  refreshReuseGraceSeconds: number;
}

export type ServiceName = 'codehost' | 'refdata';
export const SERVICE_NAMES: readonly ServiceName[] = ['codehost', 'refdata'];

export interface ServiceConfig {
  port: number;
  /** The URL clients use to reach the service, without a trailing slash. */
  publicUrl: string;
  database: DatabaseConfig;
}

export type DatabaseConfig =
  | { kind: 'sqlite'; file: string }
  | { kind: 'postgres'; url: string; schema: string; poolMax: number };

export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

/** Fastify's trustProxy: off, a hop count, or the addresses of trusted proxies. */
export type TrustProxy = boolean | number | string[];

/** A configuration value that cannot be used; the message names the variable. */
export class ConfigError extends Error {
  constructor(
    readonly variable: string,
    readonly value: string,
    readonly accepts: string,
  ) {
    super(
      `Invalid configuration: ${variable}=${JSON.stringify(value)} is not accepted; ${accepts}.`,
    );
    this.name = 'ConfigError';
  }
}

type Env = Readonly<Record<string, string | undefined>>;

const DEFAULT_PORTS: Record<ServiceName, number> = { codehost: 8080, refdata: 8081 };

export function loadConfig(env: Env, cwd: string = process.cwd()): Config {
  const read = (name: string): string | undefined => {
    const value = env[name];
    return value === undefined || value.trim() === '' ? undefined : value.trim();
  };

  const host = read('HOST') ?? '127.0.0.1';
  const dataDirRaw = read('DATA_DIR') ?? './data';
  const dataDir = isAbsolute(dataDirRaw) ? dataDirRaw : resolve(cwd, dataDirRaw);
  const poolMax = integer(read, 'DATABASE_POOL_MAX', 10, 1, 1000);

  const services = {} as Record<ServiceName, ServiceConfig>;
  for (const name of SERVICE_NAMES) {
    const prefix = name.toUpperCase();
    const port = integer(read, `${prefix}_PORT`, DEFAULT_PORTS[name], 0, 65535);
    const publicUrl = httpUrl(
      read,
      `${prefix}_PUBLIC_URL`,
      `http://localhost:${port === 0 ? DEFAULT_PORTS[name] : port}`,
    );
    const databaseUrlVariable = read(`${prefix}_DATABASE_URL`)
      ? `${prefix}_DATABASE_URL`
      : 'DATABASE_URL';
    const databaseUrl = read(databaseUrlVariable);
    const database: DatabaseConfig = databaseUrl
      ? {
          kind: 'postgres',
          url: postgresUrl(databaseUrlVariable, databaseUrl),
          schema: name,
          poolMax,
        }
      : { kind: 'sqlite', file: join(dataDir, `${name}.sqlite`) };
    services[name] = { port, publicUrl, database };
  }

  return {
    host,
    logLevel: oneOf(read, 'LOG_LEVEL', 'info', LOG_LEVELS),
    bodyLimitBytes: integer(read, 'HTTP_BODY_LIMIT', 1024 * 1024, 1024, 100 * 1024 * 1024),
    requestTimeoutMs: integer(read, 'HTTP_REQUEST_TIMEOUT_MS', 30_000, 1000, 3_600_000),
    shutdownTimeoutMs: integer(read, 'SHUTDOWN_TIMEOUT_MS', 10_000, 0, 600_000),
    trustProxy: trustProxy(read),
    dataDir,
    security: {
      passwordHash: {
        // OWASP's argon2id baseline (19 MiB, 2 passes, 1 lane).
        memoryKib: integer(read, 'PASSWORD_HASH_MEMORY_KIB', 19_456, 8, 4_194_304),
        iterations: integer(read, 'PASSWORD_HASH_ITERATIONS', 2, 1, 100),
        parallelism: integer(read, 'PASSWORD_HASH_PARALLELISM', 1, 1, 16),
      },
      credentialRequestsPerMinute: integer(
        read,
        'RATE_LIMIT_CREDENTIALS_PER_MINUTE',
        30,
        1,
        100_000,
      ),
      signInFailuresPerAccount: integer(read, 'SIGN_IN_FAILURES_PER_ACCOUNT', 10, 1, 10_000),
      signInFailureWindowSeconds: integer(read, 'SIGN_IN_FAILURE_WINDOW_SECONDS', 900, 1, 86_400),
      sessionLifetimeSeconds: integer(read, 'SESSION_LIFETIME_SECONDS', 604_800, 60, 31_536_000),
      refreshReuseGraceSeconds: integer(read, 'OAUTH_REFRESH_REUSE_GRACE_SECONDS', 10, 0, 300),
    },
    services,
    refdata: refdataConfig(read, services.refdata.publicUrl, dataDir, cwd),
  };
}

/** `iss` and `aud` of tokens from refdata's own key, unless configured otherwise. */
export const EMBEDDED_TOKEN_ISSUER = 'urn:refdata:embedded';
export const EMBEDDED_TOKEN_AUDIENCE = 'urn:refdata';

function refdataConfig(
  read: Reader,
  publicUrl: string,
  dataDir: string,
  cwd: string,
): RefdataConfig {
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

type Reader = (name: string) => string | undefined;

/** A claim's name, or a dotted path to one inside objects (`realm_access.roles`). */
function claimPath(read: Reader, name: string, fallback: string): string {
  const value = read(name) ?? fallback;
  if (!/^[A-Za-z0-9_:/.-]{1,200}$/.test(value)) {
    throw new ConfigError(name, value, 'it accepts a claim name, or a dotted path to one');
  }
  return value;
}

function integer(read: Reader, name: string, fallback: number, min: number, max: number): number {
  const raw = read(name);
  if (raw === undefined) return fallback;
  const value = /^\d+$/.test(raw) ? Number(raw) : Number.NaN;
  if (!Number.isSafeInteger(value) || value < min || value > max) {
    throw new ConfigError(name, raw, `it accepts a whole number from ${min} to ${max}`);
  }
  return value;
}

function oneOf<T extends string>(
  read: Reader,
  name: string,
  fallback: T,
  allowed: readonly T[],
): T {
  const raw = read(name);
  if (raw === undefined) return fallback;
  const match = allowed.find((candidate) => candidate === raw.toLowerCase());
  if (!match) throw new ConfigError(name, raw, `it accepts one of ${allowed.join(', ')}`);
  return match;
}

function httpUrl(read: Reader, name: string, fallback: string): string {
  const raw = read(name);
  if (raw === undefined) return fallback;
  const accepts = 'it accepts an absolute http:// or https:// URL without query or fragment';
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new ConfigError(name, raw, accepts);
  }
  if (!['http:', 'https:'].includes(url.protocol) || url.search || url.hash || url.username) {
    throw new ConfigError(name, raw, accepts);
  }
  return url.href.replace(/\/+$/, '');
}

function postgresUrl(name: string, raw: string): string {
  const accepts = 'it accepts a postgres:// or postgresql:// connection URL';
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    // Never echo a connection string that might hold a password.
    throw new ConfigError(name, redactUrlPassword(raw), accepts);
  }
  if (!['postgres:', 'postgresql:'].includes(url.protocol)) {
    throw new ConfigError(name, redactUrlPassword(raw), accepts);
  }
  return raw;
}

function trustProxy(read: Reader): TrustProxy {
  const raw = read('TRUST_PROXY');
  if (raw === undefined || raw === 'false') return false;
  if (raw === 'true') return true;
  if (/^\d+$/.test(raw)) return integer(read, 'TRUST_PROXY', 0, 1, 100);
  const entries = raw.split(',').map((entry) => entry.trim());
  const addressOrCidr = /^[0-9a-fA-F.:]+(\/\d{1,3})?$/;
  if (entries.every((entry) => addressOrCidr.test(entry))) return entries;
  throw new ConfigError(
    'TRUST_PROXY',
    raw,
    'it accepts true, false, a hop count, or a comma-separated list of proxy addresses or CIDR ranges',
  );
}

/** Replaces the password of every URL in a text, for messages and logs. */
export function redactUrlPassword(text: string): string {
  return text.replace(/([a-z][a-z0-9+.-]*:\/\/[^:/@\s]*:)[^@/\s]*@/gi, '$1***@');
}

/** A one-line, password-free description of where a service keeps its data. */
export function describeDatabase(database: DatabaseConfig, cwd: string = process.cwd()): string {
  if (database.kind === 'sqlite') {
    const relative = database.file.startsWith(`${cwd}/`)
      ? database.file.slice(cwd.length + 1)
      : database.file;
    return `SQLite ${relative}`;
  }
  return `PostgreSQL ${redactUrlPassword(database.url)} (schema ${database.schema})`;
}
