/**
 * refdata's back-channel logout endpoint against a real codehost as its
 * provider: a logout token signed with codehost's own key ends the sessions of
 * the session it names, and every kind of bad token is refused with a 400
 * problem, ending nothing. (The whole round trip, codehost posting the token,
 * runs in Chromium in test/browser/refdata-sign-in.test.ts.)
 */
import { randomBytes } from 'node:crypto';
import { generateKeyPair, SignJWT } from 'jose';
import type { Kysely } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CodehostTables } from '../../src/codehost/db/tables.js';
import { BackchannelLogout } from '../../src/codehost/oidc/backchannel-logout.js';
import { SigningKeyStore } from '../../src/codehost/oidc/signing-keys.js';
import { RetryPolicy } from '../../src/platform/background/retry-policy.js';
import { OutboundPolicy } from '../../src/platform/http/outbound.js';
import { secretHash } from '../../src/platform/security/secrets.js';
import {
  type Codehost,
  createApplication,
  createUser,
  startCodehost,
} from '../codehost/helpers.js';
import { DATABASE_KINDS } from '../harness.js';
import { type Refdata, startRefdata } from './helpers.js';

const EVENT = 'http://schemas.openid.net/event/backchannel-logout';

describe.each(DATABASE_KINDS)('refdata back-channel logout on %s', (kind) => {
  let codehost: Codehost;
  let refdata: Refdata;
  let clientId: string;
  let keys: SigningKeyStore;

  beforeAll(async () => {
    codehost = await startCodehost('sqlite', { listen: true });
    const owner = await createUser(codehost);
    const client = await createApplication(codehost, owner.id, { scopes: ['openid'] });
    clientId = client.clientId;
    keys = new SigningKeyStore(codehost.db as Kysely<CodehostTables>);
    refdata = await startRefdata(kind, {
      REFDATA_OIDC_ISSUER: codehost.url,
      REFDATA_OIDC_CLIENT_ID: client.clientId,
      REFDATA_OIDC_CLIENT_SECRET: client.secret,
    });
  });
  afterAll(async () => {
    await refdata?.close();
    await codehost?.close();
  });

  /** A refdata session signed in through codehost, as its callback makes one. */
  async function session(userId: number, sid: string): Promise<string> {
    const id = randomBytes(32).toString('hex');
    const subject = `${codehost.url}#${userId}`;
    await refdata.db
      .insertInto('sessions')
      .values({
        id_hash: secretHash(id),
        user_id: subject,
        data: JSON.stringify({
          csrf: 'x'.repeat(64),
          viewer: { subject, name: 'Someone', roles: ['Reader'], via: 'oidc' },
          sid,
        }),
        expires_at: Date.now() + 3_600_000,
      } as never)
      .execute();
    return secretHash(id);
  }

  const alive = async (idHash: string) =>
    (await refdata.db
      .selectFrom('sessions')
      .select('id_hash')
      .where('id_hash', '=', idHash)
      .executeTakeFirst()) !== undefined;

  const post = (payload: string, contentType = 'application/x-www-form-urlencoded') =>
    refdata.app.inject({
      method: 'POST',
      url: '/sign-in/backchannel-logout',
      headers: { 'content-type': contentType },
      payload,
    });

  /** A token signed with codehost's current key, with `claims` over a logout token's. */
  async function signed(claims: Record<string, unknown>, header: Record<string, unknown> = {}) {
    const key = await keys.signingKey();
    const now = Math.floor(Date.now() / 1000);
    return new SignJWT({
      iss: codehost.url,
      aud: clientId,
      iat: now,
      exp: now + 120,
      jti: randomBytes(8).toString('hex'),
      events: { [EVENT]: {} },
      ...claims,
    })
      .setProtectedHeader({ alg: key.alg, kid: key.kid, typ: 'logout+jwt', ...header })
      .sign(await keys.privateKey(key));
  }

  it('ends the session a logout token names, and only that one', async () => {
    const named = await session(7, 'sid-one');
    const otherBrowser = await session(7, 'sid-two');
    const someoneElse = await session(8, 'sid-one');
    const token = await new BackchannelLogout(
      codehost.db as Kysely<CodehostTables>,
      keys,
      codehost.url,
      new OutboundPolicy([]),
      new RetryPolicy([1000]),
    ).logoutToken({ clientId, userId: 7, sid: 'sid-one', jti: 'jti-1' });
    const answer = await post(new URLSearchParams({ logout_token: token }).toString());
    expect(answer.statusCode).toBe(200);
    expect(answer.headers['cache-control']).toBe('no-store');
    expect(await alive(named)).toBe(false);
    expect(await alive(otherBrowser)).toBe(true);
    expect(await alive(someoneElse)).toBe(true);
    // No session left to end is still a 200 (section 2.8).
    expect((await post(new URLSearchParams({ logout_token: token }).toString())).statusCode).toBe(
      200,
    );
    // A token naming the subject alone ends all of that subject's sessions.
    const everything = await signed({ sub: '7' });
    expect((await post(`logout_token=${everything}`)).statusCode).toBe(200);
    expect(await alive(otherBrowser)).toBe(false);
    expect(await alive(someoneElse)).toBe(true);
  });

  it('refuses tokens that are missing, malformed, forged, for another client, expired or not logout tokens', async () => {
    const kept = await session(9, 'sid-kept');
    const stranger = await generateKeyPair('RS256');
    const now = Math.floor(Date.now() / 1000);
    const cases: [string, string][] = [
      ['', 'logout_token is missing'],
      ['logout_token=', 'logout_token is missing'],
      ['logout_token=not-a-jwt', 'not a signed JWT'],
      [`logout_token=${'a'.repeat(20_000)}.b.c`, 'not a signed JWT'],
      [
        `logout_token=${await new SignJWT({
          sub: '9',
          sid: 'sid-kept',
          events: { [EVENT]: {} },
          jti: 'x',
        })
          .setProtectedHeader({ alg: 'RS256', kid: 'stranger' })
          .setIssuer(codehost.url)
          .setAudience(clientId)
          .setIssuedAt()
          .sign(stranger.privateKey)}`,
        'did not pass its checks',
      ],
      [
        `logout_token=${await signed({ sub: '9', sid: 'sid-kept', aud: 'another-client' })}`,
        'did not pass',
      ],
      [
        `logout_token=${await signed({ sub: '9', sid: 'sid-kept', iss: 'https://elsewhere.example' })}`,
        'did not pass',
      ],
      [
        `logout_token=${await signed({ sub: '9', sid: 'sid-kept', iat: now - 7200, exp: now - 3600 })}`,
        'did not pass',
      ],
      [
        `logout_token=${await signed({ sub: '9', sid: 'sid-kept', events: undefined })}`,
        'no back-channel logout event',
      ],
      [`logout_token=${await signed({ sub: '9', sid: 'sid-kept', nonce: 'n' })}`, 'no nonce'],
      [`logout_token=${await signed({})}`, 'neither a subject nor a session'],
    ];
    for (const [payload, message] of cases) {
      const answer = await post(payload);
      expect(answer.statusCode, payload.slice(0, 60)).toBe(400);
      expect(answer.headers['content-type']).toContain('application/problem+json');
      expect(answer.json().detail, payload.slice(0, 60)).toContain(message);
    }
    const json = await post(JSON.stringify({ logout_token: 'x' }), 'application/json');
    expect(json.statusCode).toBe(400);
    expect(await alive(kept)).toBe(true);
  });
});
