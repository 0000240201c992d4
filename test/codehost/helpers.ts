import { createServer } from 'node:net';
import type { LightMyRequestResponse } from 'fastify';
import type { Kysely } from 'kysely';
import { PasswordHasher } from '../../src/codehost/accounts/passwords.js';
import { PersonalAccessTokenStore } from '../../src/codehost/accounts/personal-access-tokens.js';
import { type UserRow, UserStore } from '../../src/codehost/accounts/users.js';
import { codehost, codehostService } from '../../src/codehost/app.js';
import type { CodehostTables, VisibilityLevel } from '../../src/codehost/db/tables.js';
import { GroupStore, type NamespaceRow } from '../../src/codehost/namespaces/groups.js';
import { type ProjectRow, ProjectStore } from '../../src/codehost/namespaces/projects.js';
import { ApplicationStore } from '../../src/codehost/oauth/applications.js';
import type { Grant } from '../../src/codehost/oauth/grants/grant.js';
import type { Scope } from '../../src/codehost/oauth/scopes.js';
import { OutboundPolicy } from '../../src/platform/http/outbound.js';
import { secretHash } from '../../src/platform/security/secrets.js';
import type { ServiceDefinition } from '../../src/platform/service.js';
import {
  type DatabaseKind,
  startedForTests,
  startTestService,
  type TestService,
} from '../harness.js';

/** Cheap argon2 for tests; the real cost is measured in bench/ instead. */
export const FAST_HASHING = {
  PASSWORD_HASH_MEMORY_KIB: '64',
  PASSWORD_HASH_ITERATIONS: '1',
  RATE_LIMIT_CREDENTIALS_PER_MINUTE: '10000',
};

/** A loopback port nothing listens on at the moment of asking. */
export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => resolve(typeof address === 'object' && address ? address.port : 0));
    });
  });
}

export interface Codehost extends TestService {
  db: Kysely<CodehostTables>;
  /** Where a real HTTP client reaches it (listen mode), also its public URL. */
  url: string;
}

export async function startCodehost(
  kind: DatabaseKind,
  options: {
    env?: Record<string, string>;
    listen?: boolean;
    grants?: readonly Grant[];
    /**
     * The host in its public URL: `localhost` where a browser needs a name
     * (WebAuthn takes no IP address as a relying party ID).
     */
    publicHost?: 'localhost';
  } = {},
): Promise<Codehost> {
  const port = options.listen ? await freePort() : 8080;
  const url = `http://${options.publicHost ?? '127.0.0.1'}:${port}`;
  const definition = options.grants ? codehostService({ grants: options.grants }) : codehost;
  const service = await startTestService(definition as ServiceDefinition, kind, {
    env: { ...FAST_HASHING, CODEHOST_PUBLIC_URL: url, CODEHOST_PORT: String(port), ...options.env },
  });
  if (options.listen) await service.app.listen({ host: options.publicHost ?? '127.0.0.1', port });
  return { ...service, db: service.database.db as Kysely<CodehostTables>, url };
}

let sequence = 0;

/** codehost started for the tests of the enclosing `describe` (see `startedForTests`). */
export function codehostForTests(...options: Parameters<typeof startCodehost>): Codehost {
  return startedForTests(() => startCodehost(...options));
}

export async function createUser(
  service: Codehost,
  overrides: Partial<{ username: string; email: string; password: string; isAdmin: boolean }> = {},
): Promise<UserRow & { password: string }> {
  sequence += 1;
  const password = overrides.password ?? `secret-password-${sequence}`;
  const users = new UserStore(service.db, new PasswordHasher(service.config.security.passwordHash));
  const user = await users.create({
    username: overrides.username ?? `user${sequence}`,
    name: `User ${sequence}`,
    email: overrides.email ?? `user${sequence}@example.com`,
    password,
    isAdmin: overrides.isAdmin ?? false,
  });
  return { ...user, password };
}

export async function createApplication(
  service: Codehost,
  ownerId: number,
  options: Partial<{
    redirectUris: string;
    postLogoutRedirectUris: string;
    scopes: Scope[];
    confidential: boolean;
    name: string;
    deviceAuthorizationGrant: boolean;
    backchannelLogoutUri: string;
  }> = {},
): Promise<{ id: number; clientId: string; secret: string; redirectUri: string }> {
  const redirectUris = options.redirectUris ?? 'https://client.example/callback';
  const { application, secret } = await new ApplicationStore(
    service.db,
    new OutboundPolicy(service.config.outboundAllowedNetworks),
  ).create(ownerId, {
    name: options.name ?? 'Test client',
    redirectUris,
    ...(options.postLogoutRedirectUris
      ? { postLogoutRedirectUris: options.postLogoutRedirectUris }
      : {}),
    scopes: options.scopes ?? ['api', 'read_user'],
    confidential: options.confidential ?? true,
    deviceAuthorizationGrant: options.deviceAuthorizationGrant ?? false,
    ...(options.backchannelLogoutUri ? { backchannelLogoutUri: options.backchannelLogoutUri } : {}),
  });
  return {
    id: application.id,
    clientId: application.uid,
    secret,
    redirectUri: redirectUris.split('\n')[0] ?? '',
  };
}

/** The value of a Set-Cookie for a name, from an inject response. */
export function cookieFrom(response: LightMyRequestResponse, name: string): string | undefined {
  const header = response.headers['set-cookie'];
  const all = Array.isArray(header) ? header : header ? [header] : [];
  for (const entry of all) {
    const [pair] = entry.split(';');
    const [key, value] = (pair ?? '').split('=');
    if (key === name && value) return value;
  }
  return undefined;
}

export function csrfFrom(body: string): string {
  const match = /name="authenticity_token" value="([0-9a-f]{64})"/.exec(body);
  if (!match?.[1]) throw new Error(`no authenticity token in page: ${body.slice(0, 300)}`);
  return match[1];
}

/** A browser-like client of the web pages, through inject. */
export class WebClient {
  cookie: string | undefined;
  csrf: string | undefined;

  constructor(readonly service: Codehost) {}

  private absorb(response: LightMyRequestResponse): LightMyRequestResponse {
    const next = cookieFrom(response, '_codehost_session');
    if (next !== undefined) this.cookie = next;
    if (response.headers['content-type']?.toString().startsWith('text/html')) {
      const match = /name="authenticity_token" value="([0-9a-f]{64})"/.exec(response.body);
      if (match?.[1]) this.csrf = match[1];
    }
    return response;
  }

  async get(url: string): Promise<LightMyRequestResponse> {
    return this.absorb(
      await this.service.app.inject({
        method: 'GET',
        url,
        headers: this.cookie ? { cookie: `_codehost_session=${this.cookie}` } : {},
      }),
    );
  }

  /** Posts a form with the current page's token unless the fields name one. */
  async post(
    url: string,
    fields: Record<string, string | string[]>,
  ): Promise<LightMyRequestResponse> {
    const form = new URLSearchParams();
    if (!('authenticity_token' in fields) && this.csrf)
      form.append('authenticity_token', this.csrf);
    for (const [name, value] of Object.entries(fields)) {
      for (const item of Array.isArray(value) ? value : [value]) form.append(name, item);
    }
    return this.absorb(
      await this.service.app.inject({
        method: 'POST',
        url,
        headers: {
          'content-type': 'application/x-www-form-urlencoded',
          ...(this.cookie ? { cookie: `_codehost_session=${this.cookie}` } : {}),
        },
        payload: form.toString(),
      }),
    );
  }

  /** Posts a form and, as a browser does, follows the redirect that answers it. */
  async submit(
    url: string,
    fields: Record<string, string | string[]>,
  ): Promise<LightMyRequestResponse> {
    const response = await this.post(url, fields);
    const location = response.headers.location;
    if (response.statusCode < 300 || response.statusCode >= 400 || typeof location !== 'string') {
      return response;
    }
    return this.get(location);
  }

  async signIn(login: string, password: string): Promise<LightMyRequestResponse> {
    await this.get('/users/sign_in');
    return this.post('/users/sign_in', { login, password });
  }
}

/** Runs the consent flow and returns the redirect's query parameters. */
export async function authorizeAndApprove(
  client: WebClient,
  parameters: Record<string, string>,
): Promise<URLSearchParams> {
  const page = await client.get(`/oauth/authorize?${new URLSearchParams(parameters)}`);
  if (page.statusCode === 302) return new URL(page.headers.location as string).searchParams;
  if (page.statusCode !== 200)
    throw new Error(`authorize answered ${page.statusCode}: ${page.body}`);
  const fields: Record<string, string> = {};
  for (const match of page.body.matchAll(
    /<input type="hidden" name="([a-z_]+)" value="([^"]*)">/g,
  )) {
    fields[match[1] as string] = (match[2] as string)
      .replaceAll('&amp;', '&')
      .replaceAll('&quot;', '"');
  }
  const answer = await client.post('/oauth/authorize', { ...fields, decision: 'approve' });
  if (answer.statusCode !== 302)
    throw new Error(`approval answered ${answer.statusCode}: ${answer.body}`);
  return new URL(answer.headers.location as string).searchParams;
}

export async function tokenRequest(
  service: Codehost,
  fields: Record<string, string>,
  headers: Record<string, string> = {},
): Promise<LightMyRequestResponse> {
  return service.app.inject({
    method: 'POST',
    url: '/oauth/token',
    headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
    payload: new URLSearchParams(fields).toString(),
  });
}

export function basicAuth(id: string, secret: string): string {
  return `Basic ${Buffer.from(`${id}:${secret}`).toString('base64')}`;
}

/** A personal access token for API calls as a user. */
export async function apiToken(
  service: Codehost,
  userId: number,
  scopes: Scope[] = ['api'],
): Promise<string> {
  const { token } = await new PersonalAccessTokenStore(service.db).create(userId, {
    name: `test ${++sequence}`,
    scopes,
    expiresAt: null,
  });
  return token;
}

/** A group made through the store, owned by `ownerId`. */
export async function createGroup(
  service: Codehost,
  ownerId: number,
  options: Partial<{
    path: string;
    name: string;
    visibilityLevel: VisibilityLevel;
    parent: NamespaceRow;
  }> = {},
): Promise<NamespaceRow> {
  sequence += 1;
  const path = options.path ?? `group-${sequence}`;
  return new GroupStore(service.db).create(
    {
      name: options.name ?? path,
      path,
      visibilityLevel: options.visibilityLevel ?? 0,
      ...(options.parent ? { parent: options.parent } : {}),
    },
    ownerId,
  );
}

/** A project made through the store in a namespace (a group, or a user's own). */
export async function createProject(
  service: Codehost,
  creatorId: number,
  namespace: NamespaceRow,
  options: Partial<{ path: string; visibilityLevel: VisibilityLevel }> = {},
): Promise<ProjectRow> {
  sequence += 1;
  return new ProjectStore(service.db).create(
    {
      path: options.path ?? `project-${sequence}`,
      namespace,
      visibilityLevel: options.visibilityLevel ?? 0,
    },
    creatorId,
  );
}

export async function personalNamespace(service: Codehost, userId: number): Promise<NamespaceRow> {
  const namespace = await new GroupStore(service.db).personalNamespace(userId);
  if (!namespace) throw new Error(`user ${userId} has no namespace`);
  return namespace;
}

/**
 * Moves a spent refresh token's rotation back past the grace window for retries,
 * as if the client presented it again much later.
 */
export async function ageRefreshRotation(service: Codehost, refreshToken: string): Promise<void> {
  const past = Date.now() - (service.config.security.refreshReuseGraceSeconds + 1) * 1000;
  await service.db
    .updateTable('oauth_access_tokens')
    .set({ revoked_at: past, rotated_at: past })
    .where('refresh_token_hash', '=', secretHash(refreshToken))
    .execute();
}

/**
 * The user-agent's part of a relying party's sign-in: sign in, approve the
 * request at `authorizationUrl`, and return the callback URL it was sent to.
 */
export async function approveInBrowser(
  service: Codehost,
  authorizationUrl: URL,
  login: string,
  password: string,
): Promise<URL> {
  const browser = new WebClient(service);
  await browser.signIn(login, password);
  const parameters = Object.fromEntries(authorizationUrl.searchParams);
  const answer = await authorizeAndApprove(browser, parameters);
  const callback = new URL(parameters.redirect_uri ?? '');
  callback.search = answer.toString();
  return callback;
}

/** The value a page offers to copy (an ID, a secret, a new token, a key), as stored in it. */
export function copyableValue(body: string, id: string): string | undefined {
  return new RegExp(`id="${id}"[^>]*data-copy-text="([^"]*)"`).exec(body)?.[1];
}

/**
 * The code flow with `openid` for a signed-in browser and a confidential
 * application: approve, exchange the code, and return the token response.
 */
export async function openidTokens(
  service: Codehost,
  browser: WebClient,
  app: { clientId: string; secret: string; redirectUri: string },
): Promise<{ id_token: string; access_token: string; refresh_token: string }> {
  const answer = await authorizeAndApprove(browser, {
    client_id: app.clientId,
    redirect_uri: app.redirectUri,
    response_type: 'code',
    scope: 'openid',
  });
  const tokens = await tokenRequest(service, {
    grant_type: 'authorization_code',
    code: answer.get('code') as string,
    redirect_uri: app.redirectUri,
    client_id: app.clientId,
    client_secret: app.secret,
  });
  if (tokens.statusCode !== 200) throw new Error(`token endpoint answered ${tokens.body}`);
  return tokens.json();
}
