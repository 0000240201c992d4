import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type Codehost,
  createApplication,
  createUser,
  startCodehost,
} from '../codehost/helpers.js';
import {
  browserAvailable,
  browserSkipReason,
  getOperation,
  launchChromium,
  tryItOut,
} from './chromium.js';

/**
 * codehost's own `/docs` signs in through codehost's OAuth: Authorize with an
 * application registered for the page's redirect, the sign-in and consent
 * pages in the pop-up, the code exchanged (with PKCE) for a token, and then
 * "Try it out" on a protected API route answers as the signed-in user.
 */
describe.skipIf(!browserAvailable)(
  `Signing in to codehost's API docs through its own OAuth${browserAvailable ? '' : ` (skipped: ${browserSkipReason})`}`,
  () => {
    let browser: Browser;
    let service: Codehost;
    beforeAll(async () => {
      [browser, service] = await Promise.all([
        launchChromium(),
        startCodehost('sqlite', { listen: true }),
      ]);
    });
    afterAll(async () => {
      await Promise.all([browser?.close(), service?.close()]);
    });

    it('Authorize signs in, and Try it out calls /api/v4/user with the token', async () => {
      const user = await createUser(service);
      const application = await createApplication(service, user.id, {
        name: 'API docs',
        confidential: false,
        redirectUris: `${service.url}/docs/static/oauth2-redirect.html`,
        scopes: ['api', 'read_user'],
      });
      const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
      page.setDefaultTimeout(10_000);
      try {
        await page.goto(`${service.url}/docs`);
        await page.locator('.swagger-ui .info .title').waitFor({ timeout: 15_000 });
        await page.locator('button.authorize').click();
        const oauth = page.locator('.auth-container', { hasText: 'oauth2' });
        await oauth.getByLabel('client_id:').fill(application.clientId);
        // The scopes the application was registered with (it may ask for no others).
        for (const scope of ['api', 'read_user']) {
          await oauth.locator(`label[for="${scope}-authorizationCode-checkbox-oauth2"]`).click();
        }

        const [popup] = await Promise.all([
          page.waitForEvent('popup'),
          oauth.locator('button.authorize').click(),
        ]);
        await popup.waitForLoadState();
        await popup.fill('#login', user.username);
        await popup.fill('#password', user.password);
        await popup.click('button:has-text("Sign in")');
        // The consent page, once it is there: the sign-in page counts as loaded until it goes.
        await popup.locator('#authorize').waitFor();
        await popup.screenshot({ path: '.test-output/docs-sign-in-consent.png' });
        await Promise.all([popup.waitForEvent('close'), popup.click('#authorize')]);

        // Signed in: the scheme now offers to log out, and the token works.
        await oauth.locator('button', { hasText: 'Logout' }).waitFor({ timeout: 10_000 });
        await page.screenshot({ path: '.test-output/docs-signed-in.png' });
        await page.locator('.dialog-ux button.close-modal').click();

        expect(await tryItOut(page, '/api/v4/user')).toBe('200');
        const operation = getOperation(page, '/api/v4/user');
        const body = await operation
          .locator('.live-responses-table .microlight')
          .first()
          .innerText();
        expect(JSON.parse(body)).toMatchObject({ id: user.id, username: user.username });
        const curl = await operation.locator('.curl-command').innerText();
        expect(curl).toMatch(/Authorization: Bearer [\w-]+/);
      } finally {
        await page.close();
      }
    }, 60_000);
  },
);
