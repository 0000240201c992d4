/**
 * How the user signed in reaches ID tokens as `amr` and `acr`: through the
 * code flow, its refreshes and the device grant, from the session that
 * approved them. (Passkeys' values are checked in Chromium, in
 * test/browser/codehost-passkeys.test.ts.)
 */
import { decodeJwt } from 'jose';
import { describe, expect, it } from 'vitest';
import {
  currentCode,
  newTotpSecret,
  TwoFactorStore,
} from '../../src/codehost/accounts/two-factor.js';
import { DATABASE_KINDS } from '../harness.js';
import {
  codehostForTests,
  createApplication,
  createUser,
  openidTokens,
  tokenRequest,
  WebClient,
} from './helpers.js';

describe.each(DATABASE_KINDS)('amr and acr in ID tokens on %s', (kind) => {
  const service = codehostForTests(kind);

  const idTokenAfter = (
    browser: WebClient,
    app: { clientId: string; secret: string; redirectUri: string },
  ) => openidTokens(service, browser, app);

  it('says pwd for a password alone, and repeats it on a refresh', async () => {
    const user = await createUser(service);
    const app = await createApplication(service, user.id, { scopes: ['openid'] });
    const browser = new WebClient(service);
    await browser.signIn(user.username, user.password);
    const tokens = await idTokenAfter(browser, app);
    expect(decodeJwt(tokens.id_token)).toMatchObject({ amr: ['pwd'], acr: 'pwd' });
    const refreshed = await tokenRequest(service, {
      grant_type: 'refresh_token',
      refresh_token: tokens.refresh_token,
      client_id: app.clientId,
      client_secret: app.secret,
    });
    expect(decodeJwt(refreshed.json().id_token)).toMatchObject({ amr: ['pwd'], acr: 'pwd' });
  });

  it('says pwd, otp and mfa after a TOTP code, for the code flow and for a device it approves', async () => {
    const user = await createUser(service);
    const secret = newTotpSecret();
    await new TwoFactorStore(service.db).enable(user.id, secret, currentCode(secret));
    const browser = new WebClient(service);
    await browser.signIn(user.username, user.password);
    const second = await browser.post('/users/sign_in/two_factor', {
      otp_attempt: currentCode(secret, Date.now() + 30_000),
    });
    expect(second.statusCode).toBe(302);
    const app = await createApplication(service, user.id, {
      scopes: ['openid'],
      deviceAuthorizationGrant: true,
    });
    const tokens = await idTokenAfter(browser, app);
    expect(decodeJwt(tokens.id_token)).toMatchObject({ amr: ['pwd', 'otp', 'mfa'], acr: 'mfa' });

    const started = await service.app.inject({
      method: 'POST',
      url: '/oauth/authorize_device',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: new URLSearchParams({
        client_id: app.clientId,
        client_secret: app.secret,
        scope: 'openid',
      }).toString(),
    });
    const { device_code: deviceCode, user_code: userCode } = started.json();
    await browser.get('/oauth/device');
    await browser.post('/oauth/device', { user_code: userCode });
    await browser.post('/oauth/device/decision', { user_code: userCode, decision: 'approve' });
    const device = await tokenRequest(service, {
      grant_type: 'urn:ietf:params:oauth:grant-type:device_code',
      device_code: deviceCode,
      client_id: app.clientId,
      client_secret: app.secret,
    });
    expect(decodeJwt(device.json().id_token)).toMatchObject({
      amr: ['pwd', 'otp', 'mfa'],
      acr: 'mfa',
      aud: app.clientId,
    });
  });

  it('lists the acr values and the claims in discovery', async () => {
    const metadata = (
      await service.app.inject({ url: '/.well-known/openid-configuration' })
    ).json();
    expect(metadata.acr_values_supported).toEqual(['pwd', 'mfa', 'phr']);
    expect(metadata.claims_supported).toEqual(expect.arrayContaining(['amr', 'acr']));
  });
});
