import type { LightMyRequestResponse } from 'fastify';
import type { Kysely } from 'kysely';
import { expect } from 'vitest';
import { openDatabase } from '../../src/platform/db/connection.js';
import { createLogger } from '../../src/platform/http/logging.js';
import type { HttpApp } from '../../src/platform/http/server.js';
import { buildService, type ServiceDefinition } from '../../src/platform/service.js';
import { loadProgramConfig } from '../../src/program.js';
import { refdataService } from '../../src/refdata/app.js';
import type { Role } from '../../src/refdata/auth/roles.js';
import { loadOrCreateSigningKey } from '../../src/refdata/auth/signing-key.js';
import { mintToken } from '../../src/refdata/auth/tokens.js';
import type { RefdataTables } from '../../src/refdata/db/tables.js';
import type { Family } from '../../src/refdata/families/family.js';
import { FAMILIES, FamilyRegistry } from '../../src/refdata/families/registry.js';
import { freePort } from '../codehost/helpers.js';
import {
  type DatabaseKind,
  startedForTests,
  startTestService,
  type TestService,
  withDatabase,
} from '../harness.js';

export interface Refdata extends TestService {
  db: Kysely<RefdataTables>;
  /** A token from the service's own key, for a subject with roles. */
  token(roles: Role[], subject?: string, lifetimeSeconds?: number): Promise<string>;
  /**
   * An HTTP call as a client with these roles would make it: Alice, a Creator,
   * unless it says who; a token with the Reviewer role alone is Rita's, another
   * person than the author, as the four-eyes rule wants.
   */
  call(
    method: 'GET' | 'POST' | 'PUT' | 'DELETE' | 'OPTIONS',
    url: string,
    options?: {
      roles?: Role[];
      subject?: string;
      body?: unknown;
      headers?: Record<string, string>;
      /** The client's address (each is a client of its own to `/sparql`'s shares). */
      remoteAddress?: string;
    },
  ): Promise<LightMyRequestResponse>;
}

export async function startRefdata(
  kind: DatabaseKind,
  env: Record<string, string> = {},
  options: { extraFamilies?: readonly Family[] } = {},
): Promise<Refdata> {
  const definition = refdataService(
    new FamilyRegistry([...FAMILIES, ...(options.extraFamilies ?? [])]),
  );
  const service = await startTestService(definition as ServiceDefinition, kind, { env });
  const tokens = service.config.settings.refdata.tokens;
  const key = await loadOrCreateSigningKey(tokens.signingKeyFile);
  const token = (roles: Role[], subject = 'alice', lifetimeSeconds = 600) =>
    mintToken(key, tokens, { subject, roles, lifetimeSeconds });
  return {
    ...service,
    db: service.database.db as Kysely<RefdataTables>,
    token,
    async call(method, url, options = {}) {
      const roles = options.roles ?? ['Creator'];
      const subject =
        options.subject ?? (roles.length === 1 && roles[0] === 'Reviewer' ? 'rita' : 'alice');
      return service.app.inject({
        method,
        url,
        headers: {
          ...(roles.length > 0 ? { authorization: `Bearer ${await token(roles, subject)}` } : {}),
          ...options.headers,
        },
        ...(options.body === undefined ? {} : { payload: options.body as object }),
        ...(options.remoteAddress ? { remoteAddress: options.remoteAddress } : {}),
      });
    },
  };
}

/** refdata started for the tests of the enclosing `describe` (see `startedForTests`). */
export function refdataForTests(
  kind: DatabaseKind,
  env: Record<string, string> = {},
  options: { extraFamilies?: readonly Family[] } = {},
): Refdata {
  return startedForTests(() => startRefdata(kind, env, options));
}

/** How many resources and revisions are stored: what a refused write must leave as it was. */
export async function storedCounts(service: Refdata) {
  const count = async (table: 'resources' | 'revisions') =>
    Number(
      (
        await service.db
          .selectFrom(table)
          .select((eb) => eb.fn.countAll<number>().as('n'))
          .executeTakeFirstOrThrow()
      ).n,
    );
  return { resources: await count('resources'), revisions: await count('revisions') };
}

/**
 * A write that must be refused: its status, a problem document naming at least
 * `pointers` among its errors, and nothing stored. Answers the problem.
 */
export async function expectRefused(
  service: Refdata,
  write: { method: 'POST' | 'PUT'; url: string; body: Record<string, unknown> },
  status: number,
  pointers: readonly string[] = [],
) {
  const before = await storedCounts(service);
  const response = await service.call(write.method, write.url, { body: write.body });
  expect(response.statusCode, response.body).toBe(status);
  expect(response.headers['content-type']).toMatch(/^application\/problem\+json/);
  const problem = response.json();
  const named = (problem.errors ?? []).map((error: { pointer: string }) => error.pointer);
  for (const pointer of pointers) expect(named).toContain(`#${pointer}`);
  expect(await storedCounts(service)).toEqual(before);
  return problem;
}

/** Another instance of refdata on the same database, as behind a load balancer. */
export async function anotherInstance(
  service: Refdata,
  env: Record<string, string> = {},
  /** Hears the instance's log lines (JSON); unheard otherwise. */
  log: (line: string) => void = () => undefined,
) {
  const config = withDatabase(
    loadProgramConfig({ LOG_LEVEL: 'info', DATA_DIR: service.config.dataDir, ...env }),
    'refdata',
    service.config.services.refdata.database,
  );
  const database = openDatabase(config.services.refdata.database);
  const app: HttpApp = await buildService(refdataService() as ServiceDefinition, {
    platform: config,
    database,
    logger: createLogger('refdata', 'info', { write: log }),
  });
  await app.ready();
  return app;
}

/**
 * refdata listening on a port of its own (at `port`, or a free one), its public
 * address that of the port, for a browser or an HTTP client to reach; on
 * SQLite unless `kind` says otherwise; `env` adds to that.
 */
export async function startListeningRefdata(
  env: Record<string, string> = {},
  options: { port?: number; kind?: DatabaseKind } = {},
): Promise<Refdata & { url: string }> {
  const port = options.port ?? (await freePort());
  const url = `http://127.0.0.1:${port}`;
  const service = await startRefdata(options.kind ?? 'sqlite', {
    REFDATA_PUBLIC_URL: url,
    REFDATA_PORT: String(port),
    ...env,
  });
  await service.app.listen({ host: '127.0.0.1', port });
  return { ...service, url };
}

let sequence = 0;

/** A Draft library; returns its IRI. */
export async function createLibrary(service: Refdata, overrides: Record<string, unknown> = {}) {
  sequence += 1;
  const response = await service.call('POST', '/ontologies/domains', {
    body: {
      changeJustification: 'Needed for tests',
      name: `Library ${sequence}`,
      description: 'A library for tests',
      ...overrides,
    },
  });
  if (response.statusCode !== 201)
    throw new Error(`library: ${response.statusCode} ${response.body}`);
  return response.json().iri as string;
}

/** A Draft resource of any family, by `subject` (Alice unless said); returns the whole JSON answer. */
export async function create(
  service: Refdata,
  route: string,
  body: Record<string, unknown>,
  subject?: string,
) {
  sequence += 1;
  const response = await service.call('POST', route, {
    body: { changeJustification: 'Needed for tests', description: 'Made by a test', ...body },
    ...(subject === undefined ? {} : { subject }),
  });
  if (response.statusCode !== 201)
    throw new Error(`${route}: ${response.statusCode} ${response.body}`);
  return response.json() as { iri: string; status: string; [key: string]: unknown };
}

/** The GUID an IMF type's IRI ends in, as the complete-imf-shacl routes take it. */
export function guidOf(iri: string): string {
  return iri.slice(iri.lastIndexOf('/') + 1);
}

export function uniqueName(prefix: string): string {
  sequence += 1;
  return `${prefix} ${sequence}`;
}

export const iriQuery = (iri: string) => `iri=${encodeURIComponent(iri)}`;

/** Submits a Draft and approves it, with a justification; throws if either is refused. */
export async function approve(
  service: Refdata,
  iri: string,
  justification = 'Agreed by the working group',
): Promise<void> {
  const submitted = await service.call('PUT', `/status/submit?${iriQuery(iri)}`);
  if (submitted.statusCode !== 204) {
    throw new Error(`submit: ${submitted.statusCode} ${submitted.body}`);
  }
  const approved = await service.call('PUT', `/status/approve?${iriQuery(iri)}`, {
    roles: ['Reviewer'],
    body: { justification },
  });
  if (approved.statusCode !== 204) {
    throw new Error(`approve: ${approved.statusCode} ${approved.body}`);
  }
}

/**
 * A Draft class, then changed once (its description now `description`): the
 * first two steps of a story the change feed and webhooks tell. Answers the created class.
 */
export async function classChangedOnce(
  service: Refdata,
  library: string,
  name: string,
  description = 'Moves liquids',
) {
  const made = await create(service, '/rdl/terms/subclass', {
    name,
    ontology: library,
    subClassOf: ['http://x.example/Equipment'],
  });
  const updated = await service.call('PUT', `/rdl/terms/subclass?${iriQuery(made.iri)}`, {
    headers: { 'if-match': '"1"' },
    body: {
      name,
      ontology: library,
      subClassOf: ['http://x.example/Equipment'],
      description,
      changeJustification: 'Clearer',
    },
  });
  if (updated.statusCode !== 204) throw new Error(`update: ${updated.statusCode} ${updated.body}`);
  return made;
}
