import type { KyselyPlugin } from 'kysely';
import { describe, expect, it } from 'vitest';
import { TokenStore } from '../../src/codehost/oauth/tokens.js';
import { DATABASE_KINDS } from '../harness.js';
import { codehostForTests, createApplication, createUser } from './helpers.js';

/** Makes every insert fail, as a full disk or a lost connection would mid-rotation. */
const failingInserts: KyselyPlugin = {
  transformQuery(args) {
    if (args.node.kind === 'InsertQueryNode') throw new Error('simulated failure on insert');
    return args.node;
  },
  transformResult: async (args) => args.result,
};

describe.each(DATABASE_KINDS)('TokenStore rotation on %s', (kind) => {
  const service = codehostForTests(kind);

  async function refreshablePair() {
    const user = await createUser(service);
    const app = await createApplication(service, user.id);
    const issued = await new TokenStore(service.db).issueToken({
      userId: user.id,
      applicationId: app.id,
      grantId: null,
      scopes: ['api'],
      withRefreshToken: true,
    });
    return { app, issued, refreshToken: issued.refreshToken as string };
  }

  it('leaves the old pair in force when the new one cannot be stored', async () => {
    const { app, refreshToken } = await refreshablePair();
    const tokens = new TokenStore(service.db);
    const { token: previous } = await tokens.refreshable(refreshToken, app.id);

    const broken = new TokenStore(service.db.withPlugin(failingInserts));
    await expect(broken.rotate(previous, ['api'])).rejects.toThrow('simulated failure');

    // Rolled back: the refresh token was not spent, so the client's retry succeeds.
    const { token: again } = await tokens.refreshable(refreshToken, app.id);
    expect(again.revoked_at).toBeNull();
    const rotated = await tokens.rotate(again, ['api']);
    expect(rotated.refreshToken).toMatch(/^[0-9a-f]{64}$/);
    expect((await tokens.findByRefreshToken(refreshToken))?.revoked_at).not.toBeNull();
  });

  it("refuses another application's refresh token without touching it", async () => {
    const { refreshToken } = await refreshablePair();
    const owner = await createUser(service);
    const other = await createApplication(service, owner.id);
    const tokens = new TokenStore(service.db);
    await expect(tokens.refreshable(refreshToken, other.id)).rejects.toThrow('invalid');
    expect((await tokens.findByRefreshToken(refreshToken))?.revoked_at).toBeNull();
  });
});
