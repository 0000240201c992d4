import { isIP } from 'node:net';
import {
  type AuthenticationResponseJSON,
  type AuthenticatorTransport,
  generateAuthenticationOptions,
  generateRegistrationOptions,
  type PublicKeyCredentialCreationOptionsJSON,
  type PublicKeyCredentialRequestOptionsJSON,
  type RegistrationResponseJSON,
  verifyAuthenticationResponse,
  verifyRegistrationResponse,
} from '@simplewebauthn/server';
import { type Kysely, type Selectable, sql } from 'kysely';
import type { CodehostTables, PasskeysTable } from '../db/tables.js';
import type { UserRow } from './users.js';

export type PasskeyRow = Selectable<PasskeysTable>;

/** At most this many passkeys per account: ample for every device a person has. */
export const MAX_PASSKEYS = 20;
/** How long the browser may take over a ceremony (WebAuthn's `timeout`). */
const CEREMONY_TIMEOUT_MS = 5 * 60 * 1000;

/** Why a passkey was not registered or not accepted; the page says it as it is. */
export class PasskeyRefused extends Error {
  override readonly name = 'PasskeyRefused';
}

/** Where the browser's ceremony must have run: this service's origin and host. */
export interface RelyingParty {
  id: string;
  origin: string;
  name: string;
  /**
   * The service is reached by an IP address: browsers take passkeys only for
   * a domain name (WebAuthn's RP ID is a registrable domain or `localhost`),
   * and refuse every ceremony with "… is an invalid domain".
   */
  byAddress: boolean;
}

export function relyingPartyOf(publicUrl: string): RelyingParty {
  const url = new URL(publicUrl);
  const host = url.hostname.replace(/^\[|\]$/g, '');
  return { id: url.hostname, origin: url.origin, name: 'codehost', byAddress: isIP(host) !== 0 };
}

/**
 * What the start-up (for the operator) and the pages (for the person) say
 * when browsers will refuse passkeys at this address.
 */
export function passkeysNeedADomain(party: RelyingParty, reader: 'operator' | 'person'): string {
  const named = `http://localhost:${new URL(party.origin).port || '80'}`;
  return reader === 'operator'
    ? `Browsers refuse passkeys here: this service is reached at ${party.origin}, an IP address, and they use passkeys only with a domain name (localhost included). Set CODEHOST_PUBLIC_URL to ${named} or to the service's domain name.`
    : `Passkeys do not work at this address (${party.origin}): browsers use them only with a domain name. Where this service runs on your own machine, open it at ${named}.`;
}

/** The browser's answer, posted as JSON text in a form field, or a refusal. */
function parsedResponse<T>(text: string): T {
  try {
    const value = JSON.parse(text) as unknown;
    if (value && typeof value === 'object' && !Array.isArray(value)) return value as T;
  } catch {
    // Said below.
  }
  throw new PasskeyRefused('The passkey answer could not be read. Try again.');
}

/** The library's verdicts are thrown errors; a refused ceremony says why in one sentence. */
async function verified<T>(run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (error) {
    if (error instanceof PasskeyRefused) throw error;
    throw new PasskeyRefused(
      `The passkey was not accepted: ${error instanceof Error ? error.message : String(error)}`,
    );
  }
}

/**
 * Passkeys (WebAuthn discoverable credentials) with @simplewebauthn/server:
 * the options a page hands the browser, and the checks of what the browser
 * answers. The challenge lives in the caller's session between the two.
 */
export class PasskeyStore {
  constructor(
    private readonly db: Kysely<CodehostTables>,
    readonly party: RelyingParty,
    private readonly now: () => number = Date.now,
  ) {}

  async ownedBy(userId: number): Promise<PasskeyRow[]> {
    return this.db
      .selectFrom('passkeys')
      .selectAll()
      .where('user_id', '=', userId)
      .orderBy('id')
      .execute();
  }

  /**
   * Options for making a passkey: resident (discoverable, so it signs in
   * without a username) and verified by the device (PIN or biometrics). The
   * user's existing passkeys are excluded, so one device holds one of them.
   */
  async registrationOptions(user: UserRow): Promise<PublicKeyCredentialCreationOptionsJSON> {
    const existing = await this.ownedBy(user.id);
    return generateRegistrationOptions({
      rpName: this.party.name,
      rpID: this.party.id,
      userName: user.username,
      userDisplayName: user.name,
      userID: userHandleOf(user.id),
      attestationType: 'none',
      timeout: CEREMONY_TIMEOUT_MS,
      excludeCredentials: existing.map((passkey) => ({
        id: passkey.credential_id,
        transports: transportsOf(passkey),
      })),
      authenticatorSelection: { residentKey: 'required', userVerification: 'required' },
    });
  }

  /** Checks the browser's new credential against the challenge and keeps its public key. */
  async register(
    user: UserRow,
    input: { name: string; responseText: string; expectedChallenge: string },
  ): Promise<PasskeyRow> {
    const name = input.name.trim();
    if (name.length === 0 || name.length > 255) {
      throw new PasskeyRefused('Name the passkey (1 to 255 characters), such as “Work laptop”.');
    }
    // Names tell the passkeys apart on the list, where one is chosen for removal.
    if ((await this.ownedBy(user.id)).some((passkey) => passkey.name === name)) {
      throw new PasskeyRefused(`You have a passkey named “${name}” already: choose another name.`);
    }
    const response = parsedResponse<RegistrationResponseJSON>(input.responseText);
    const result = await verified(() =>
      verifyRegistrationResponse({
        response,
        expectedChallenge: input.expectedChallenge,
        expectedOrigin: this.party.origin,
        expectedRPID: this.party.id,
        requireUserVerification: true,
      }),
    );
    if (!result.verified) throw new PasskeyRefused('The passkey was not accepted.');
    const { credential, credentialBackedUp } = result.registrationInfo;
    return this.db.transaction().execute(async (trx) => {
      const count = await trx
        .selectFrom('passkeys')
        .select((eb) => eb.fn.countAll().as('n'))
        .where('user_id', '=', user.id)
        .executeTakeFirstOrThrow();
      if (Number(count.n) >= MAX_PASSKEYS) {
        throw new PasskeyRefused(`An account has at most ${MAX_PASSKEYS} passkeys.`);
      }
      const taken = await trx
        .selectFrom('passkeys')
        .select('id')
        .where('credential_id', '=', credential.id)
        .executeTakeFirst();
      if (taken) throw new PasskeyRefused('This passkey is already registered.');
      const row = await trx
        .insertInto('passkeys')
        .values({
          user_id: user.id,
          name,
          credential_id: credential.id,
          public_key: Buffer.from(credential.publicKey).toString('base64url'),
          counter: credential.counter,
          transports: (credential.transports ?? []).join(' '),
          backed_up: credentialBackedUp ? 1 : 0,
          created_at: this.now(),
        })
        .returningAll()
        .executeTakeFirstOrThrow();
      await countPasskeys(trx, user.id);
      return row;
    });
  }

  /** Removes one of the user's passkeys; false when it is not theirs (or already gone). */
  async remove(userId: number, id: number): Promise<boolean> {
    return this.db.transaction().execute(async (trx) => {
      const result = await trx
        .deleteFrom('passkeys')
        .where('id', '=', id)
        .where('user_id', '=', userId)
        .executeTakeFirst();
      if (result.numDeletedRows === 0n) return false;
      await countPasskeys(trx, userId);
      return true;
    });
  }

  /**
   * Options for signing in: without `user`, any passkey of this site (the
   * browser offers those it holds); with one, only that user's, as a second
   * factor after the password.
   */
  async authenticationOptions(user?: UserRow): Promise<PublicKeyCredentialRequestOptionsJSON> {
    const allowed = user ? await this.ownedBy(user.id) : [];
    return generateAuthenticationOptions({
      rpID: this.party.id,
      userVerification: 'required',
      timeout: CEREMONY_TIMEOUT_MS,
      allowCredentials: allowed.map((passkey) => ({
        id: passkey.credential_id,
        transports: transportsOf(passkey),
      })),
    });
  }

  /**
   * The passkey that signed the challenge, after checking the signature with
   * its stored public key, that the device verified its user, that the user
   * handle is the owner's, and that the counter moved on (a cloned
   * authenticator replays an old one); the new counter is kept.
   */
  async authenticate(input: {
    responseText: string;
    expectedChallenge: string;
  }): Promise<PasskeyRow> {
    const response = parsedResponse<AuthenticationResponseJSON>(input.responseText);
    if (typeof response.id !== 'string' || response.id.length > 1400) {
      throw new PasskeyRefused('The passkey answer could not be read. Try again.');
    }
    const passkey = await this.db
      .selectFrom('passkeys')
      .selectAll()
      .where('credential_id', '=', response.id)
      .executeTakeFirst();
    if (!passkey) throw new PasskeyRefused('This passkey is not registered with codehost.');
    const handle = response.response?.userHandle;
    if (
      handle !== undefined &&
      handle !== Buffer.from(userHandleOf(passkey.user_id)).toString('base64url')
    ) {
      throw new PasskeyRefused('This passkey belongs to another account.');
    }
    const result = await verified(() =>
      verifyAuthenticationResponse({
        response,
        expectedChallenge: input.expectedChallenge,
        expectedOrigin: this.party.origin,
        expectedRPID: this.party.id,
        requireUserVerification: true,
        credential: {
          id: passkey.credential_id,
          publicKey: new Uint8Array(Buffer.from(passkey.public_key, 'base64url')),
          counter: Number(passkey.counter),
          transports: transportsOf(passkey),
        },
      }),
    );
    if (!result.verified) throw new PasskeyRefused('The passkey was not accepted.');
    await this.db
      .updateTable('passkeys')
      .set({ counter: result.authenticationInfo.newCounter, last_used_at: this.now() })
      .where('id', '=', passkey.id)
      .execute();
    return passkey;
  }
}

/**
 * The WebAuthn user handle: the user's ID as bytes (base64url in answers). It
 * names no person, as WebAuthn section 14.6.1 asks.
 */
function userHandleOf(userId: number): Uint8Array<ArrayBuffer> {
  return new TextEncoder().encode(`codehost-user:${userId}`);
}

function transportsOf(passkey: PasskeyRow): AuthenticatorTransport[] {
  return passkey.transports.split(' ').filter(Boolean) as AuthenticatorTransport[];
}

/** The user's count kept with them, in the same transaction as the change. */
async function countPasskeys(trx: Kysely<CodehostTables>, userId: number): Promise<void> {
  await trx
    .updateTable('users')
    .set({
      passkey_count: sql<number>`(select count(*) from passkeys where passkeys.user_id = ${userId})`,
    })
    .where('id', '=', userId)
    .execute();
}
