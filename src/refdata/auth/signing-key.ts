import { randomUUID, type webcrypto } from 'node:crypto';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { exportJWK, generateKeyPair, importJWK, type JWK } from 'jose';

export const SIGNING_ALGORITHM = 'ES256';

export interface SigningKey {
  kid: string;
  privateKey: webcrypto.CryptoKey;
  /** The public half, as published at /.well-known/jwks.json. */
  publicJwk: JWK;
}

/**
 * refdata's own token signing key: an ES256 key pair kept as a private JWK in a
 * file only its owner can read, made on first use. Every instance that shares
 * the file accepts the others' tokens.
 */
export async function loadOrCreateSigningKey(file: string): Promise<SigningKey> {
  try {
    return await fromJwk(JSON.parse(await readFile(file, 'utf8')) as JWK);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
  const { privateKey } = await generateKeyPair(SIGNING_ALGORITHM, { extractable: true });
  const jwk = { ...(await exportJWK(privateKey)), kid: randomUUID(), alg: SIGNING_ALGORITHM };
  await mkdir(dirname(file), { recursive: true });
  try {
    // `wx`: when two processes start at once, one writes and the other reads its key.
    await writeFile(file, `${JSON.stringify(jwk)}\n`, { mode: 0o600, flag: 'wx' });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    return fromJwk(JSON.parse(await readFile(file, 'utf8')) as JWK);
  }
  return fromJwk(jwk);
}

async function fromJwk(jwk: JWK): Promise<SigningKey> {
  if (!jwk.kid || jwk.kty !== 'EC' || !jwk.d)
    throw new Error('The signing key file does not hold an EC private JWK.');
  const { d: _private, ...publicJwk } = jwk;
  return {
    kid: jwk.kid,
    privateKey: (await importJWK(jwk, SIGNING_ALGORITHM)) as webcrypto.CryptoKey,
    publicJwk: { ...publicJwk, use: 'sig', alg: SIGNING_ALGORITHM },
  };
}
