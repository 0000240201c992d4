import { randomBytes } from 'node:crypto';
import type { Kysely } from 'kysely';
import { Secret, TOTP } from 'otpauth';
import QRCode from 'qrcode';
import { matchesSecretHash, secretHash } from '../../platform/security/secrets.js';
import type { CodehostTables } from '../db/tables.js';
import { isTwoFactorEnabled, type UserRow } from './users.js';

const PERIOD_SECONDS = 30;
/** One step either side absorbs clock drift between server and phone. */
const DRIFT_STEPS = 1;
export const RECOVERY_CODE_COUNT = 10;

/** A fresh 160-bit TOTP secret in base32, as authenticator apps expect. */
export function newTotpSecret(): string {
  return new Secret({ size: 20 }).base32;
}

function totpFor(secret: string, account: string, issuer: string): TOTP {
  return new TOTP({
    issuer,
    label: account,
    algorithm: 'SHA1',
    digits: 6,
    period: PERIOD_SECONDS,
    secret: Secret.fromBase32(secret),
  });
}

/** The `otpauth://` URI an authenticator app reads from the QR code. */
export function provisioningUri(secret: string, account: string, issuer: string): string {
  return totpFor(secret, account, issuer).toString();
}

/** The QR code of a provisioning URI as an SVG document fragment. */
export function qrCodeSvg(uri: string): Promise<string> {
  return QRCode.toString(uri, { type: 'svg', errorCorrectionLevel: 'M', margin: 2 });
}

/**
 * The time step a code belongs to, or undefined when it matches none in the
 * drift window. Codes are six digits; anything else never matches.
 */
export function matchingStep(secret: string, code: string, now: number): number | undefined {
  const token = code.replace(/\s+/g, '');
  if (!/^\d{6}$/.test(token)) return undefined;
  const delta = totpFor(secret, 'x', 'x').validate({ token, timestamp: now, window: DRIFT_STEPS });
  if (delta === null) return undefined;
  return Math.floor(now / 1000 / PERIOD_SECONDS) + delta;
}

/** The current code for a secret; tests and the browser test act as the phone. */
export function currentCode(secret: string, now: number = Date.now()): string {
  return totpFor(secret, 'x', 'x').generate({ timestamp: now });
}

/** Recovery codes look like GitLab's: 16 hex characters. */
function newRecoveryCode(): string {
  return randomBytes(8).toString('hex');
}

async function replaceRecoveryCodes(
  trx: Kysely<CodehostTables>,
  userId: number,
): Promise<string[]> {
  const codes = Array.from({ length: RECOVERY_CODE_COUNT }, newRecoveryCode);
  await trx.deleteFrom('recovery_codes').where('user_id', '=', userId).execute();
  await trx
    .insertInto('recovery_codes')
    .values(codes.map((value) => ({ user_id: userId, code_hash: secretHash(value) })))
    .execute();
  return codes;
}

/** Enabling, checking and disabling two-factor authentication for a user. */
export class TwoFactorStore {
  constructor(
    private readonly db: Kysely<CodehostTables>,
    private readonly now: () => number = Date.now,
  ) {}

  /**
   * Turns two-factor on with a secret the user has proven to hold (a valid code
   * for it), and returns the new recovery codes, shown once and stored hashed.
   */
  async enable(userId: number, secret: string, code: string): Promise<string[] | undefined> {
    const step = matchingStep(secret, code, this.now());
    if (step === undefined) return undefined;
    return this.db.transaction().execute(async (trx) => {
      await trx
        .updateTable('users')
        .set({
          otp_secret: secret,
          otp_last_step: step,
          second_factors_removed_at: null,
          updated_at: this.now(),
        })
        .where('id', '=', userId)
        .execute();
      return replaceRecoveryCodes(trx, userId);
    });
  }

  /**
   * Recovery codes for a user whose first second factor is a passkey (as
   * GitLab gives them with a WebAuthn device): new ones when the user has
   * none, to be shown once; undefined when they have codes already.
   */
  async ensureRecoveryCodes(userId: number): Promise<string[] | undefined> {
    return this.db.transaction().execute(async (trx) => {
      const held = await trx
        .selectFrom('recovery_codes')
        .select('id')
        .where('user_id', '=', userId)
        .limit(1)
        .executeTakeFirst();
      if (held) return undefined;
      await trx
        .updateTable('users')
        .set({ second_factors_removed_at: null })
        .where('id', '=', userId)
        .execute();
      return replaceRecoveryCodes(trx, userId);
    });
  }

  /** Recovery codes guard second factors: with none left, they go too. */
  async forgetCodesWithoutSecondFactor(userId: number): Promise<void> {
    await this.db
      .deleteFrom('recovery_codes')
      .where('user_id', '=', userId)
      .where((eb) =>
        eb.not(
          eb.exists(
            eb
              .selectFrom('users')
              .select('users.id')
              .where('users.id', '=', userId)
              .where((inner) =>
                inner.or([inner('otp_secret', 'is not', null), inner('passkey_count', '>', 0)]),
              ),
          ),
        ),
      )
      .execute();
  }

  /**
   * An administrator's last resort for a user locked out (a lost phone, a lost
   * passkey, no recovery code): the authenticator app, every passkey and every
   * recovery code go, in one transaction, and the time is kept so that the
   * user's pages say so. What was removed, for the command to tell.
   */
  async removeAllSecondFactors(userId: number): Promise<{ totp: boolean; passkeys: number }> {
    return this.db.transaction().execute(async (trx) => {
      const user = await trx
        .selectFrom('users')
        .select(['otp_secret'])
        .where('id', '=', userId)
        .executeTakeFirstOrThrow();
      const passkeys = await trx.deleteFrom('passkeys').where('user_id', '=', userId).execute();
      await trx.deleteFrom('recovery_codes').where('user_id', '=', userId).execute();
      await trx
        .updateTable('users')
        .set({
          otp_secret: null,
          otp_last_step: null,
          passkey_count: 0,
          second_factors_removed_at: this.now(),
          updated_at: this.now(),
        })
        .where('id', '=', userId)
        .execute();
      return {
        totp: user.otp_secret !== null,
        passkeys: Number(passkeys.reduce((sum, result) => sum + result.numDeletedRows, 0n)),
      };
    });
  }

  /** The user has read that their second factors were turned off. */
  async dismissRemovalNotice(userId: number): Promise<void> {
    await this.db
      .updateTable('users')
      .set({ second_factors_removed_at: null })
      .where('id', '=', userId)
      .execute();
  }

  /** A fresh set of recovery codes; every earlier one stops working. */
  async regenerateRecoveryCodes(userId: number): Promise<string[]> {
    return this.db.transaction().execute((trx) => replaceRecoveryCodes(trx, userId));
  }

  /** Turns the authenticator app off; the recovery codes stay while a passkey needs them. */
  async disable(userId: number): Promise<void> {
    await this.db
      .updateTable('users')
      .set({ otp_secret: null, otp_last_step: null, updated_at: this.now() })
      .where('id', '=', userId)
      .execute();
    await this.forgetCodesWithoutSecondFactor(userId);
  }

  /**
   * Accepts a current TOTP code not used before, or an unused recovery code
   * (whatever the second factor: an app or passkeys), which is then spent. Both checks are single updates, so two requests racing with
   * the same code cannot both succeed.
   */
  async verify(user: UserRow, code: string): Promise<boolean> {
    if (!isTwoFactorEnabled(user)) return false;
    const step =
      user.otp_secret === null ? undefined : matchingStep(user.otp_secret, code, this.now());
    if (step !== undefined) {
      const result = await this.db
        .updateTable('users')
        .set({ otp_last_step: step })
        .where('id', '=', user.id)
        .where((eb) => eb.or([eb('otp_last_step', 'is', null), eb('otp_last_step', '<', step)]))
        .executeTakeFirst();
      return result.numUpdatedRows > 0n;
    }
    return this.spendRecoveryCode(user.id, code.trim().toLowerCase());
  }

  async remainingRecoveryCodes(userId: number): Promise<number> {
    const row = await this.db
      .selectFrom('recovery_codes')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('user_id', '=', userId)
      .where('used_at', 'is', null)
      .executeTakeFirstOrThrow();
    return Number(row.n);
  }

  private async spendRecoveryCode(userId: number, code: string): Promise<boolean> {
    if (!/^[0-9a-f]{16}$/.test(code)) return false;
    const unused = await this.db
      .selectFrom('recovery_codes')
      .select(['id', 'code_hash'])
      .where('user_id', '=', userId)
      .where('used_at', 'is', null)
      .execute();
    const match = unused.find((row) => matchesSecretHash(code, row.code_hash));
    if (!match) return false;
    const result = await this.db
      .updateTable('recovery_codes')
      .set({ used_at: this.now() })
      .where('id', '=', match.id)
      .where('used_at', 'is', null)
      .executeTakeFirst();
    return result.numUpdatedRows > 0n;
  }
}
