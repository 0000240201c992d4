import { describe, expect, it } from 'vitest';
import { identifyClient } from '../../src/codehost/oauth/client-auth.js';
import { invalidClient, oauthError } from '../../src/codehost/oauth/errors.js';
import { type Grant, invalidRequest } from '../../src/codehost/oauth/grants/grant.js';
import { BUILT_IN_GRANTS } from '../../src/codehost/oauth/grants/index.js';
import { DATABASE_KINDS } from '../harness.js';
import { codehostForTests, createApplication, createUser, tokenRequest } from './helpers.js';

const TEST_GRANT_TYPE = 'urn:example:params:oauth:grant-type:test-only';

/**
 * A grant defined here, in one value, and given to the service beside the
 * built-in three: nothing else changes for the token endpoint to take it, the
 * metadata to advertise it and its ID token to be made.
 */
const testGrant: Grant = {
  type: TEST_GRANT_TYPE,
  parameters: { subject: `${TEST_GRANT_TYPE}: the username to issue a token for` },
  async grant({ codehost, request, body }) {
    const client = await identifyClient(request, body, codehost.applications);
    if (client.kind !== 'authenticated') throw invalidClient('A confidential client is needed.');
    if (body.subject === undefined) throw invalidRequest('subject is missing.');
    const user = await codehost.users.findByUsername(body.subject);
    if (user?.state !== 'active') throw oauthError(400, 'invalid_grant', 'No such user.');
    const issued = await codehost.tokens.issueToken({
      userId: user.id,
      applicationId: client.application.id,
      grantId: null,
      scopes: ['openid', 'read_user'],
      withRefreshToken: false,
    });
    return {
      issued,
      user,
      clientId: client.application.uid,
      authTime: undefined,
      nonce: undefined,
    };
  },
};

describe.each(DATABASE_KINDS)('a grant added as one module, on %s', (kind) => {
  const service = codehostForTests(kind, { grants: [...BUILT_IN_GRANTS, testGrant] });

  it('is taken by the token endpoint, advertised, and issues a working token with an ID token', async () => {
    const owner = await createUser(service);
    const user = await createUser(service);
    const app = await createApplication(service, owner.id, { scopes: ['openid', 'read_user'] });
    const answer = await tokenRequest(service, {
      grant_type: TEST_GRANT_TYPE,
      subject: user.username,
      client_id: app.clientId,
      client_secret: app.secret,
    });
    expect(answer.statusCode, answer.body).toBe(200);
    const token = answer.json();
    expect(token.id_token).toEqual(expect.any(String));
    const me = await service.app.inject({
      url: '/api/v4/user',
      headers: { authorization: `Bearer ${token.access_token}` },
    });
    expect(me.json().username).toBe(user.username);
    const metadata = (
      await service.app.inject({ url: '/.well-known/oauth-authorization-server' })
    ).json();
    expect(metadata.grant_types_supported).toEqual([
      'authorization_code',
      'password',
      'refresh_token',
      'urn:ietf:params:oauth:grant-type:device_code',
      TEST_GRANT_TYPE,
    ]);
    // Its own refusals, and an unknown grant type naming every known one.
    const missing = await tokenRequest(service, {
      grant_type: TEST_GRANT_TYPE,
      client_id: app.clientId,
      client_secret: app.secret,
    });
    expect(missing.json()).toMatchObject({ error: 'invalid_request' });
    const unknown = await tokenRequest(service, { grant_type: 'urn:example:nothing' });
    expect(unknown.json().error).toBe('unsupported_grant_type');
    expect(unknown.json().error_description).toContain(TEST_GRANT_TYPE);
  });
});
