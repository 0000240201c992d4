import { readFileSync } from 'node:fs';
import { isAbsolute, join, resolve } from 'node:path';
import { parseNetworks } from './http/outbound.js';

/**
 * The process configuration, read once from the environment at start-up.
 * Every variable is listed in docs/configuration.md; keep the two in step.
 */
export interface Config {
  host: string;
  logLevel: LogLevel;
  /**
   * `json`: one JSON object a line, for log collectors; `text`: one short line
   * a record, for a person at a terminal; `auto`: text when standard output
   * is a terminal, JSON otherwise.
   */
  logFormat: LogFormat;
  bodyLimitBytes: number;
  requestTimeoutMs: number;
  shutdownTimeoutMs: number;
  trustProxy: TrustProxy;
  dataDir: string;
  security: SecurityConfig;
  /**
   * CIDR ranges that addresses users give (webhook targets, back-channel
   * logout URIs) may be in although they are not public; see
   * platform/http/outbound.ts.
   */
  outboundAllowedNetworks: readonly string[];
  /**
   * Certificate authorities (PEM certificates) trusted for those addresses
   * besides the usual ones (`OUTBOUND_CA_FILE`): an organisation's own.
   */
  outboundTrustedCertificates: readonly string[] | undefined;
  /** Each service's address and database, by its name. */
  services: Readonly<Record<string, ServiceConfig>>;
  /** What each service's own reader read (`ServiceSettingsReader`), by its name. */
  settings: Readonly<Record<string, unknown>>;
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

export interface ServiceConfig {
  port: number;
  /** The URL clients use to reach the service, without a trailing slash. */
  publicUrl: string;
  database: DatabaseConfig;
}

/** Where a service's own settings are read from and resolved against. */
export interface SettingsContext {
  publicUrl: string;
  dataDir: string;
  cwd: string;
}

/**
 * What the platform needs to read a service's section: its name (the prefix of
 * its variables, `NAME_PORT`, `NAME_PUBLIC_URL`, `NAME_DATABASE_URL`), its port,
 * and a reader of the settings only it knows.
 */
export interface ServiceSettingsReader<Settings = unknown> {
  name: string;
  defaultPort: number;
  readSettings?(read: Reader, context: SettingsContext): Settings;
}

export type DatabaseConfig =
  | { kind: 'sqlite'; file: string }
  | {
      kind: 'postgres';
      url: string;
      schema: string;
      poolMax: number;
      /** Named (server-side prepared) statements; off behind poolers that cannot keep them. */
      preparedStatements: boolean;
    };

export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];
export const LOG_FORMATS = ['auto', 'json', 'text'] as const;
export type LogFormat = (typeof LOG_FORMATS)[number];

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

/**
 * Reads the process's settings and each service's section. The result is
 * frozen: a setting changes by reading the environment again, never in place.
 */
export function loadConfig(
  env: Env,
  services: readonly ServiceSettingsReader[],
  cwd: string = process.cwd(),
): Config {
  const read = (name: string): string | undefined => {
    const value = env[name];
    return value === undefined || value.trim() === '' ? undefined : value.trim();
  };

  const host = read('HOST') ?? '127.0.0.1';
  const dataDirRaw = read('DATA_DIR') ?? './data';
  const dataDir = isAbsolute(dataDirRaw) ? dataDirRaw : resolve(cwd, dataDirRaw);
  const poolMax = integer(read, 'DATABASE_POOL_MAX', 10, 1, 1000);
  const preparedStatements =
    oneOf(read, 'DATABASE_PREPARED_STATEMENTS', 'true', ['true', 'false']) === 'true';

  const sections: Record<string, ServiceConfig> = {};
  const settings: Record<string, unknown> = {};
  for (const service of services) {
    const name = service.name;
    const prefix = name.toUpperCase();
    const port = integer(read, `${prefix}_PORT`, service.defaultPort, 0, 65535);
    const publicUrl = httpUrl(
      read,
      `${prefix}_PUBLIC_URL`,
      `http://localhost:${port === 0 ? service.defaultPort : port}`,
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
          preparedStatements,
        }
      : { kind: 'sqlite', file: join(dataDir, `${name}.sqlite`) };
    sections[name] = { port, publicUrl, database };
    settings[name] = service.readSettings?.(read, { publicUrl, dataDir, cwd });
  }

  return deepFreeze({
    host,
    logLevel: oneOf(read, 'LOG_LEVEL', 'info', LOG_LEVELS),
    logFormat: oneOf(read, 'LOG_FORMAT', 'auto', LOG_FORMATS),
    bodyLimitBytes: integer(read, 'HTTP_BODY_LIMIT', 1024 * 1024, 1024, 100 * 1024 * 1024),
    requestTimeoutMs: integer(read, 'HTTP_REQUEST_TIMEOUT_MS', 30_000, 1000, 3_600_000),
    shutdownTimeoutMs: integer(read, 'SHUTDOWN_TIMEOUT_MS', 10_000, 0, 600_000),
    trustProxy: trustProxy(read),
    dataDir,
    outboundAllowedNetworks: networks(read, 'OUTBOUND_ALLOWED_NETWORKS'),
    outboundTrustedCertificates: certificates(read, 'OUTBOUND_CA_FILE', cwd),
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
    services: sections,
    settings,
  });
}

function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const member of Object.values(value)) deepFreeze(member);
  }
  return value;
}

/** A comma-separated list of CIDR ranges; empty when unset. */
export function networks(read: Reader, name: string): string[] {
  const raw = read(name);
  const parsed = parseNetworks(raw);
  if (parsed === undefined) {
    throw new ConfigError(
      name,
      raw ?? '',
      'a comma-separated list of CIDR ranges, such as 10.1.0.0/16,127.0.0.0/8,::1/128',
    );
  }
  return parsed;
}

/** The PEM certificates in the file a variable names (relative to the working directory). */
function certificates(read: Reader, name: string, cwd: string): string[] | undefined {
  const file = read(name);
  if (file === undefined) return undefined;
  let text: string;
  try {
    text = readFileSync(resolve(cwd, file), 'utf8');
  } catch (error) {
    throw new ConfigError(name, file, `a readable file of PEM certificates (${String(error)})`);
  }
  const found = text.match(/-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g);
  if (!found) throw new ConfigError(name, file, 'a file holding PEM certificates');
  return found;
}

/** One variable's trimmed value; undefined when unset or blank. */
export type Reader = (name: string) => string | undefined;

export function integer(
  read: Reader,
  name: string,
  fallback: number,
  min: number,
  max: number,
): number {
  const raw = read(name);
  if (raw === undefined) return fallback;
  const value = /^\d+$/.test(raw) ? Number(raw) : Number.NaN;
  if (!Number.isSafeInteger(value) || value < min || value > max) {
    throw new ConfigError(name, raw, `it accepts a whole number from ${min} to ${max}`);
  }
  return value;
}

export function oneOf<T extends string>(
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

export function httpUrl(read: Reader, name: string, fallback: string): string {
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

/** A service's section of the configuration; a name that has none is a programming error. */
export function serviceSection(config: Config, name: string): ServiceConfig {
  const section = Object.hasOwn(config.services, name) ? config.services[name] : undefined;
  if (!section) throw new Error(`The configuration has no section for the service "${name}".`);
  return section;
}

/**
 * What a service's own reader read. Its type is the service's to know: the
 * definition that read them says it (ServiceDefinition<Tables, Settings>).
 */
export function serviceSettings<Settings>(config: Config, name: string): Settings {
  serviceSection(config, name);
  return config.settings[name] as Settings;
}

/** The configuration with one service's section replaced (frozen, as loaded). */
export function withServiceSection(config: Config, name: string, section: ServiceConfig): Config {
  return deepFreeze({ ...config, services: { ...config.services, [name]: section } });
}

/** The configuration with one service's settings replaced (frozen, as loaded). */
export function withServiceSettings(config: Config, name: string, settings: unknown): Config {
  return deepFreeze({ ...config, settings: { ...config.settings, [name]: settings } });
}
