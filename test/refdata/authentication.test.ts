import { generateKeyPair, SignJWT } from 'jose';
import { describe, expect, it } from 'vitest';
import { DATABASE_KINDS } from '../harness.js';
import { iriQuery, refdataForTests, startRefdata } from './helpers.js';

describe.each(DATABASE_KINDS)('refdata bearer tokens and roles on %s', (kind) => {
  const service = refdataForTests(kind);

  const library = {
    changeJustification: 'A new library',
    name: 'Auth library',
    description: 'Checks roles',
  };

  it('publishes its public key and verifies tokens made with it', async () => {
    const keys = await service.app.inject({ url: '/.well-known/jwks.json' });
    expect(keys.statusCode).toBe(200);
    const [key] = keys.json().keys;
    expect(key).toMatchObject({ kty: 'EC', crv: 'P-256', alg: 'ES256', use: 'sig' });
    expect(key).not.toHaveProperty('d');
    const created = await service.call('POST', '/ontologies/domains', { body: library });
    expect(created.statusCode).toBe(201);
  });

  it('answers 401 with a challenge for missing, malformed, expired, foreign and wrongly aimed tokens', async () => {
    const tokens = service.config.settings.refdata.tokens;
    const { privateKey } = await generateKeyPair('ES256');
    const now = Math.floor(Date.now() / 1000);
    const foreign = await new SignJWT({ roles: ['Creator'] })
      .setProtectedHeader({ alg: 'ES256' })
      .setSubject('mallory')
      .setIssuer(tokens.issuer)
      .setAudience(tokens.audience)
      .setExpirationTime(now + 600)
      .sign(privateKey);
    const expired = await service.token(['Creator'], 'alice', -120);
    const cases: [Record<string, string>, RegExp][] = [
      [{}, /bearer token is required/],
      [{ authorization: 'Basic YWxpY2U6c2VjcmV0' }, /not a bearer token/],
      [{ authorization: 'Bearer not.a.jwt' }, /malformed/],
      [{ authorization: `Bearer ${expired}` }, /expired/],
      [{ authorization: `Bearer ${foreign}` }, /not signed by a key this service trusts/],
    ];
    for (const [headers, detail] of cases) {
      const response = await service.call('POST', '/ontologies/domains', {
        roles: [],
        headers,
        body: library,
      });
      expect(response.statusCode, JSON.stringify(headers)).toBe(401);
      expect(response.headers['content-type']).toMatch(/^application\/problem\+json/);
      expect(response.headers['www-authenticate']).toMatch(/^Bearer realm="refdata"/);
      expect(response.json()).toMatchObject({ status: 401, title: 'Authentication required' });
      expect(response.json().detail).toMatch(detail);
      expect(response.json().traceId).toBeTruthy();
    }
    // Our own key, but meant for another service: refused by audience, then by issuer.
    const { loadOrCreateSigningKey } = await import('../../src/refdata/auth/signing-key.js');
    const { mintToken } = await import('../../src/refdata/auth/tokens.js');
    const key = await loadOrCreateSigningKey(tokens.signingKeyFile);
    for (const [other, claim] of [
      [{ ...tokens, audience: 'https://elsewhere.example' }, 'aud'],
      [{ ...tokens, issuer: 'https://issuer.example' }, 'iss'],
    ] as const) {
      const token = await mintToken(key, other, {
        subject: 'alice',
        roles: ['Creator'],
        lifetimeSeconds: 600,
      });
      const response = await service.call('POST', '/ontologies/domains', {
        roles: [],
        headers: { authorization: `Bearer ${token}` },
        body: library,
      });
      expect(response.statusCode).toBe(401);
      // The refusal says what the service accepts, so a misconfigured client can tell.
      const expected = claim === 'aud' ? tokens.audience : tokens.issuer;
      expect(response.json().detail).toBe(
        `The token's ${claim} claim is not accepted: this service accepts tokens ${claim === 'aud' ? 'for the audience' : 'issued by'} ${expected}.`,
      );
    }
  });

  it('answers 403 for a valid token without the role, and lets each role do its part', async () => {
    const asReader = await service.call('POST', '/ontologies/domains', {
      roles: ['Reader'],
      body: library,
    });
    expect(asReader.statusCode).toBe(403);
    expect(asReader.json().detail).toMatch(/needs the role Creator/);
    const asReviewer = await service.call('POST', '/ontologies/domains', {
      roles: ['Reviewer'],
      body: { ...library, name: 'Reviewer library' },
    });
    expect(asReviewer.statusCode).toBe(403);

    const created = await service.call('POST', '/ontologies/domains', {
      body: { ...library, name: 'Roles library' },
    });
    const iri = created.json().iri as string;
    expect(
      (await service.call('GET', `/ontologies/domains?${iriQuery(iri)}`, { roles: ['Reader'] }))
        .statusCode,
    ).toBe(200);
    expect(
      (
        await service.call('PUT', `/status/approve?${iriQuery(iri)}`, {
          roles: ['Creator'],
          body: { justification: 'x' },
        })
      ).statusCode,
    ).toBe(403);
    expect(
      (await service.call('PUT', `/status/submit?${iriQuery(iri)}`, { roles: ['Reader'] }))
        .statusCode,
    ).toBe(403);
    expect(
      (
        await service.call('PUT', `/status/submit?${iriQuery(iri)}`, {
          roles: ['Reviewer'],
          subject: 'alice',
        })
      ).statusCode,
    ).toBe(204);
    expect(
      (
        await service.call('PUT', `/status/approve?${iriQuery(iri)}`, {
          roles: ['Reviewer'],
          body: { justification: 'Fine' },
        })
      ).statusCode,
    ).toBe(204);
  });

  it('reads roles from a nested claim when configured, in any letter case', async () => {
    const nested = await startRefdata(kind, { REFDATA_ROLES_CLAIM: 'realm_access.roles' });
    try {
      const tokens = nested.config.settings.refdata.tokens;
      const { loadOrCreateSigningKey } = await import('../../src/refdata/auth/signing-key.js');
      const key = await loadOrCreateSigningKey(tokens.signingKeyFile);
      const now = Math.floor(Date.now() / 1000);
      const token = await new SignJWT({ realm_access: { roles: ['creator', 'offline_access'] } })
        .setProtectedHeader({ alg: 'ES256', kid: key.kid })
        .setSubject('keycloak-user')
        .setIssuer(tokens.issuer)
        .setAudience(tokens.audience)
        .setExpirationTime(now + 600)
        .sign(key.privateKey);
      const response = await nested.app.inject({
        method: 'POST',
        url: '/ontologies/domains',
        headers: { authorization: `Bearer ${token}` },
        payload: library,
      });
      expect(response.statusCode).toBe(201);
      expect(response.json().createdBy).toBe('keycloak-user');
    } finally {
      await nested.close();
    }
  });
});
