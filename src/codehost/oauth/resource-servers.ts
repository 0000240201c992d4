import type { Kysely, Selectable } from 'kysely';
import type { CodehostTables, OauthResourceServersTable } from '../db/tables.js';
import { oauthError } from './errors.js';

/** Why a `resource` parameter is refused: `invalid_target` wherever it was sent. */
export class TargetRefused extends Error {
  override readonly name = 'TargetRefused';
}

export type ResourceServerRow = Selectable<OauthResourceServersTable>;

/** The parameter as the API description tells it. */
export const RESOURCE_PARAMETER =
  'RFC 8707: the API the token is for, one registered resource server; its token is then a JWT (RFC 9068). Without it, a token for codehost\u2019s own API';

/** Longest resource identifier taken (the column's width). */
const MAX_IDENTIFIER_LENGTH = 2048;

/**
 * A resource identifier in the one form it is stored and compared in (RFC 8707
 * section 2: an absolute URI without a fragment): `http(s)`, and the root path
 * written without its slash, since clients send `https://api.example` and
 * `https://api.example/` for the same API (the MCP SDK sends the second).
 * Undefined for anything else.
 */
export function canonicalResource(text: string): string | undefined {
  if (text.length > MAX_IDENTIFIER_LENGTH) return undefined;
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return undefined;
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return undefined;
  if (url.hash !== '' || text.includes('#') || url.username !== '' || url.password !== '') {
    return undefined;
  }
  return url.pathname === '/' && url.search === '' ? url.origin : url.href;
}

/** The APIs codehost issues JWT access tokens for, registered by the operator. */
export class ResourceServerStore {
  constructor(
    private readonly db: Kysely<CodehostTables>,
    private readonly now: () => number = Date.now,
  ) {}

  async find(identifier: string): Promise<ResourceServerRow | undefined> {
    return this.db
      .selectFrom('oauth_resource_servers')
      .selectAll()
      .where('identifier', '=', identifier)
      .executeTakeFirst();
  }

  async all(): Promise<ResourceServerRow[]> {
    return this.db.selectFrom('oauth_resource_servers').selectAll().orderBy('identifier').execute();
  }

  /** Registers an API, or renames it; its identifier is made canonical first. */
  async ensure(input: { identifier: string; name: string }): Promise<ResourceServerRow> {
    const identifier = canonicalResource(input.identifier);
    if (!identifier) {
      throw new Error(
        `${input.identifier} is not a resource identifier: an absolute http(s) URI without a fragment or credentials`,
      );
    }
    const now = this.now();
    const existing = await this.find(identifier);
    if (existing) {
      await this.db
        .updateTable('oauth_resource_servers')
        .set({ name: input.name, updated_at: now })
        .where('id', '=', existing.id)
        .execute();
      return { ...existing, name: input.name, updated_at: now };
    }
    return this.db
      .insertInto('oauth_resource_servers')
      .values({ identifier, name: input.name, created_at: now, updated_at: now })
      .returningAll()
      .executeTakeFirstOrThrow();
  }

  async remove(identifier: string): Promise<boolean> {
    const canonical = canonicalResource(identifier) ?? identifier;
    const result = await this.db
      .deleteFrom('oauth_resource_servers')
      .where('identifier', '=', canonical)
      .executeTakeFirst();
    return result.numDeletedRows > 0n;
  }

  /**
   * The `resource` parameter of an authorization, device or token request
   * (RFC 8707): absent, or one registered API. Two or more, or one codehost
   * does not issue tokens for, is refused (`TargetRefused`); its canonical
   * identifier otherwise.
   */
  async requested(value: unknown): Promise<string | undefined> {
    if (value === undefined || value === '') return undefined;
    if (Array.isArray(value)) {
      throw new TargetRefused(
        'Only one resource may be named: a token here is for one API (its audience).',
      );
    }
    if (typeof value !== 'string') throw new TargetRefused('resource must be a URI.');
    const identifier = canonicalResource(value);
    if (!identifier) {
      throw new TargetRefused(
        'resource must be an absolute http(s) URI without a fragment (RFC 8707 section 2).',
      );
    }
    if (!(await this.find(identifier))) {
      throw new TargetRefused(`codehost does not issue tokens for ${identifier}.`);
    }
    return identifier;
  }
}

/** The token and device endpoints' answer to a refused `resource`. */
export function invalidTarget(description: string) {
  return oauthError(400, 'invalid_target', description);
}

/** Reads `resource` for an endpoint that answers with an OAuth error body. */
export async function requestedResource(
  store: ResourceServerStore,
  value: unknown,
): Promise<string | undefined> {
  try {
    return await store.requested(value);
  } catch (error) {
    if (error instanceof TargetRefused) throw invalidTarget(error.message);
    throw error;
  }
}
