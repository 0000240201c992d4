import { randomUUID, type webcrypto } from 'node:crypto';
import { exportJWK, generateKeyPair, importJWK, type JWK } from 'jose';
import type { Kysely, Selectable } from 'kysely';
import { ConstraintViolationError } from '../../platform/db/errors.js';
import type { CodehostTables, OidcSigningKeysTable } from '../db/tables.js';

/** The algorithms ID tokens may be signed with: RS256 as GitLab, ES256 offered. */
export const SIGNING_ALGORITHMS = ['RS256', 'ES256'] as const;
export type SigningAlgorithm = (typeof SIGNING_ALGORITHMS)[number];

export type SigningKeyRow = Selectable<OidcSigningKeysTable>;

/**
 * How long a superseded key stays published: longer than any ID token it signed
 * lives (plus clock skew), so relying parties can still check those tokens.
 */
export const RETIRED_KEY_PUBLISHED_MS = 24 * 60 * 60 * 1000;

/** A key as the key set publishes it: the public half, never `d` and friends. */
/** A key at one moment: whether it will sign, signs, signed, or never will. */
export interface KeyState {
  row: SigningKeyRow;
  state: 'upcoming' | 'signing' | 'retired' | 'superseded';
  published: boolean;
  signsFrom: number;
  /** When a newer generation takes over (infinity for the newest). */
  endsAt: number;
}

function publicJwk(row: SigningKeyRow): JWK {
  return { ...(JSON.parse(row.public_jwk) as JWK), kid: row.kid, alg: row.alg, use: 'sig' };
}

/**
 * The provider's signing keys, kept in the database so every instance signs
 * with the same key and publishes the same set. Each key has a generation; the
 * key with the highest generation whose `signs_from` has come signs, a newer
 * one is published before it signs, and an older one stays published until
 * what it signed has expired.
 */
export class SigningKeyStore {
  /** Imported private keys by kid; a kid's key never changes, so this cannot go stale. */
  private readonly imported = new Map<string, Promise<webcrypto.CryptoKey>>();

  constructor(
    private readonly db: Kysely<CodehostTables>,
    private readonly now: () => number = Date.now,
  ) {}

  /** Every key, newest generation first. */
  async all(): Promise<SigningKeyRow[]> {
    return this.db
      .selectFrom('oidc_signing_keys')
      .selectAll()
      .orderBy('generation', 'desc')
      .execute();
  }

  /**
   * The first key, made when there is none (first start). Two instances starting
   * at once race for generation 1; the loser uses the winner's.
   */
  async ensureKey(algorithm: SigningAlgorithm = 'RS256'): Promise<void> {
    const existing = await this.db
      .selectFrom('oidc_signing_keys')
      .select('id')
      .limit(1)
      .executeTakeFirst();
    if (existing) return;
    await this.add(algorithm, 1, this.now());
  }

  /**
   * A new key of the next generation, published now and signing from
   * `now + publishFor` (so relying parties that cache the key set see it first).
   */
  async rotate(algorithm: SigningAlgorithm, publishForMs: number): Promise<SigningKeyRow> {
    const newest = await this.db
      .selectFrom('oidc_signing_keys')
      .select((eb) => eb.fn.max('generation').as('generation'))
      .executeTakeFirst();
    return this.add(algorithm, Number(newest?.generation ?? 0) + 1, this.now() + publishForMs);
  }

  /** Takes a key out of the set at once (a compromised key): what it signed no longer verifies. */
  async remove(kid: string): Promise<boolean> {
    const signing = await this.signingKey();
    if (signing.kid === kid) return false;
    const result = await this.db
      .deleteFrom('oidc_signing_keys')
      .where('kid', '=', kid)
      .executeTakeFirst();
    return result.numDeletedRows === 1n;
  }

  /** The key that signs now (made first if there is none yet). */
  async signingKey(): Promise<SigningKeyRow> {
    const find = () =>
      this.db
        .selectFrom('oidc_signing_keys')
        .selectAll()
        .where('signs_from', '<=', this.now())
        .orderBy('generation', 'desc')
        .limit(1)
        .executeTakeFirst();
    let row = await find();
    if (!row) {
      await this.ensureKey();
      row = await find();
    }
    if (!row) throw new Error('No OpenID Connect signing key is in force.');
    return row;
  }

  /** The private key of a row, imported once per process. */
  privateKey(row: SigningKeyRow): Promise<webcrypto.CryptoKey> {
    let key = this.imported.get(row.kid);
    if (!key) {
      key = importJWK(JSON.parse(row.private_jwk) as JWK, row.alg) as Promise<webcrypto.CryptoKey>;
      this.imported.set(row.kid, key);
    }
    return key;
  }

  /**
   * Where each key stands at one moment, newest generation first. A key signs
   * from its `signs_from` until a newer generation starts signing; a newer one
   * that starts no later than it does supersedes it before it ever signs (two
   * rotations in a row), and such a key is neither upcoming nor published.
   */
  async states(): Promise<KeyState[]> {
    let rows = await this.all();
    if (rows.length === 0) {
      await this.ensureKey();
      rows = await this.all();
    }
    const now = this.now();
    const states: KeyState[] = [];
    // The earliest moment any newer generation signs from: this key's end.
    let endsAt = Number.POSITIVE_INFINITY;
    for (const row of rows) {
      const signsFrom = Number(row.signs_from);
      let state: KeyState['state'];
      if (endsAt <= signsFrom) state = 'superseded';
      else if (signsFrom > now) state = 'upcoming';
      else if (endsAt > now) state = 'signing';
      else state = 'retired';
      const published =
        state === 'upcoming' ||
        state === 'signing' ||
        (state === 'retired' && now - endsAt < RETIRED_KEY_PUBLISHED_MS);
      states.push({ row, state, published, signsFrom, endsAt });
      endsAt = Math.min(endsAt, signsFrom);
    }
    return states;
  }

  /**
   * The published key set: upcoming keys, the signing key, and keys superseded
   * less than `RETIRED_KEY_PUBLISHED_MS` ago.
   */
  async published(): Promise<{ keys: JWK[] }> {
    const states = await this.states();
    return { keys: states.filter((key) => key.published).map((key) => publicJwk(key.row)) };
  }

  private async add(
    algorithm: SigningAlgorithm,
    generation: number,
    signsFrom: number,
  ): Promise<SigningKeyRow> {
    const { privateKey, publicKey } = await generateKeyPair(algorithm, {
      extractable: true,
      ...(algorithm === 'RS256' ? { modulusLength: 2048 } : {}),
    });
    try {
      return await this.db
        .insertInto('oidc_signing_keys')
        .values({
          kid: randomUUID(),
          alg: algorithm,
          generation,
          public_jwk: JSON.stringify(await exportJWK(publicKey)),
          private_jwk: JSON.stringify(await exportJWK(privateKey)),
          signs_from: signsFrom,
          created_at: this.now(),
        })
        .returningAll()
        .executeTakeFirstOrThrow();
    } catch (error) {
      // Another instance made this generation first: theirs is the key.
      if (error instanceof ConstraintViolationError && error.kind === 'unique') {
        return this.db
          .selectFrom('oidc_signing_keys')
          .selectAll()
          .where('generation', '=', generation)
          .executeTakeFirstOrThrow();
      }
      throw error;
    }
  }
}
