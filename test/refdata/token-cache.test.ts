import { afterEach, describe, expect, it, vi } from 'vitest';
import { loadOrCreateSigningKey } from '../../src/refdata/auth/signing-key.js';
import { TokenRefused, TokenVerifier } from '../../src/refdata/auth/tokens.js';
import { refdataForTests } from './helpers.js';

describe('verified tokens, remembered until they expire', () => {
  const service = refdataForTests('sqlite');
  afterEach(() => {
    vi.useRealTimers();
  });

  it('answers a token again without its signature, and refuses it once it has expired', async () => {
    const tokens = service.config.settings.refdata.tokens;
    const verifier = new TokenVerifier(
      tokens,
      await loadOrCreateSigningKey(tokens.signingKeyFile),
      { resourceMetadataUrl: 'http://refdata.test/.well-known/oauth-protected-resource' },
    );
    const token = await service.token(['Creator'], 'casey', 60);
    const first = await verifier.verify(token);
    expect(first).toMatchObject({ subject: 'casey', roles: ['Creator'] });
    expect(await verifier.verify(token)).toEqual(first);
    // Past expiry and the clock tolerance, the remembered answer no longer counts.
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(first.expiresAt + 31_000);
    await expect(verifier.verify(token)).rejects.toBeInstanceOf(TokenRefused);
  });

  it('remembers no refusal: a token refused once is refused again, and a tampered one too', async () => {
    const tokens = service.config.settings.refdata.tokens;
    const verifier = new TokenVerifier(
      tokens,
      await loadOrCreateSigningKey(tokens.signingKeyFile),
      { resourceMetadataUrl: 'http://refdata.test/.well-known/oauth-protected-resource' },
    );
    const token = await service.token(['Reader'], 'robin', 60);
    await verifier.verify(token);
    const [header, payload, signature] = token.split('.');
    const tampered = `${header}.${payload}.${signature?.slice(0, -4)}AAAA`;
    await expect(verifier.verify(tampered)).rejects.toBeInstanceOf(TokenRefused);
    await expect(verifier.verify(tampered)).rejects.toBeInstanceOf(TokenRefused);
  });
});
