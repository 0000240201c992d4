/**
 * The device verification page in Chromium: a person opens the link a device
 * shows, signs in, checks the code, and authorizes; the device's next poll
 * gets its token. Walked under the enforced security policy, and checked with
 * axe at 1280 and 375 pixels.
 */

import { mkdirSync } from 'node:fs';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ResourceServerStore } from '../../src/codehost/oauth/resource-servers.js';
import {
  type Codehost,
  createApplication,
  createUser,
  startCodehost,
  tokenRequest,
} from '../codehost/helpers.js';
import {
  accessibilityViolations,
  browserAvailable,
  browserSkipReason,
  launchChromium,
  policyViolations,
} from './chromium.js';

const OUTPUT = '.test-output';

async function press(page: Page, selector: string): Promise<void> {
  await Promise.all([page.waitForLoadState(), page.click(selector)]);
}

describe.skipIf(!browserAvailable)(
  `the device verification page in Chromium${browserAvailable ? '' : ` (skipped: ${browserSkipReason})`}`,
  () => {
    let browser: Browser;
    let service: Codehost;
    beforeAll(async () => {
      browser = await launchChromium();
      service = await startCodehost('sqlite', { listen: true });
      // The device asks for a token for another API (RFC 8707): the page says which.
      await new ResourceServerStore(service.db).ensure({
        identifier: 'https://refdata.example',
        name: 'refdata',
      });
      mkdirSync(OUTPUT, { recursive: true });
    });
    afterAll(async () => {
      await browser?.close();
      await service?.close();
    });

    async function startDevice() {
      const owner = await createUser(service);
      const app = await createApplication(service, owner.id, {
        name: 'Terminal tool',
        confidential: false,
        deviceAuthorizationGrant: true,
      });
      const response = await fetch(`${service.url}/oauth/authorize_device`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({
          client_id: app.clientId,
          scope: 'api read_user',
          resource: 'https://refdata.example',
        }),
      });
      const started = (await response.json()) as {
        device_code: string;
        user_code: string;
        verification_uri_complete: string;
      };
      return { app, started };
    }

    for (const { width, enforced } of [
      { width: 1280, enforced: true },
      { width: 375, enforced: false },
    ]) {
      it(`authorizes a device from its link at ${width} px${enforced ? ' under the enforced policy' : ''}`, async () => {
        const { app, started } = await startDevice();
        const user = await createUser(service);
        // bypassCSP only where the accessibility engine is injected.
        const context = await browser.newContext({
          viewport: { width, height: 900 },
          bypassCSP: !enforced,
        });
        const page = await context.newPage();
        const violations = policyViolations(page);
        try {
          await page.goto(started.verification_uri_complete);
          expect(new URL(page.url()).pathname).toBe('/users/sign_in');
          await page.fill('#login', user.username);
          await page.fill('#password', user.password);
          await press(page, 'button:has-text("Sign in")');
          // Back on the page with the code filled in, to check against the device.
          expect(new URL(page.url()).pathname).toBe('/oauth/device');
          expect(await page.inputValue('#user_code')).toBe(started.user_code);
          if (!enforced) expect(await accessibilityViolations(page)).toEqual([]);
          await page.screenshot({ path: `${OUTPUT}/device-code-${width}.png` });
          await press(page, '#continue');
          // Continue redirected: the confirmation is a page of its own (Post/Redirect/Get).
          expect(new URL(page.url()).pathname).toBe('/oauth/device/confirm');
          expect(await page.locator('#application-name').innerText()).toBe('Terminal tool');
          expect(await page.locator('#user-code').innerText()).toBe(started.user_code);
          expect(await page.locator('#scopes').innerText()).toContain('read_user');
          expect(await page.locator('#resource').innerText()).toContain('refdata');
          if (!enforced) expect(await accessibilityViolations(page)).toEqual([]);
          await page.screenshot({ path: `${OUTPUT}/device-confirm-${width}.png`, fullPage: true });
          // Keyboard only: Authorize is reachable and pressed with Enter.
          await page.focus('#approve');
          await Promise.all([
            page.waitForURL('**/oauth/device?done=approved'),
            page.keyboard.press('Enter'),
          ]);
          expect(await page.locator('.notice.ok').innerText()).toContain('The device is connected');
          // The code field has the focus, for the next device.
          expect(
            await page.evaluate(
              () =>
                (globalThis as unknown as { document: { activeElement: { id: string } | null } })
                  .document.activeElement?.id,
            ),
          ).toBe('user_code');
          if (!enforced) expect(await accessibilityViolations(page)).toEqual([]);
          // Back after Authorize: the confirmation again, by GET, saying the code was
          // answered; no form is posted again, no resubmission prompt.
          await page.goBack();
          expect(new URL(page.url()).pathname).toBe('/oauth/device/confirm');
          expect(await page.locator('.notice.error').innerText()).toContain(
            'You authorized this code already',
          );
          expect(await page.locator('#approve').count()).toBe(0);
          if (!enforced) expect(await accessibilityViolations(page)).toEqual([]);
          await page.screenshot({ path: `${OUTPUT}/device-back-${width}.png`, fullPage: true });

          const polled = await tokenRequest(service, {
            grant_type: 'urn:ietf:params:oauth:grant-type:device_code',
            device_code: started.device_code,
            client_id: app.clientId,
          });
          expect(polled.statusCode).toBe(200);
          expect(polled.json().scope).toBe('api read_user');
          // For the API named: a JWT access token (RFC 9068), not codehost's opaque one.
          expect(polled.json().access_token.split('.')).toHaveLength(3);

          // A returning user: still signed in, the application authorized before. A
          // new device of the same application asks again (each device is a new
          // request) but needs no sign-in.
          const again = await fetch(`${service.url}/oauth/authorize_device`, {
            method: 'POST',
            headers: { 'content-type': 'application/x-www-form-urlencoded' },
            body: new URLSearchParams({ client_id: app.clientId }),
          });
          const second = (await again.json()) as { user_code: string; device_code: string };
          await page.goto(`${service.url}/oauth/device?user_code=${second.user_code}`);
          expect(new URL(page.url()).pathname).toBe('/oauth/device');
          await press(page, '#continue');
          expect(await page.locator('#user-code').innerText()).toBe(second.user_code);
          await Promise.all([page.waitForURL('**/oauth/device?done=denied'), page.click('#deny')]);
          expect(await page.locator('.notice.ok').innerText()).toContain('Denied');
          const denied = await tokenRequest(service, {
            grant_type: 'urn:ietf:params:oauth:grant-type:device_code',
            device_code: second.device_code,
            client_id: app.clientId,
          });
          expect(denied.json().error).toBe('access_denied');
          expect(violations).toEqual([]);
        } finally {
          await context.close();
        }
      });
    }

    it('says beside the field what is wrong with a mistyped code', async () => {
      const user = await createUser(service);
      const context = await browser.newContext({
        viewport: { width: 375, height: 800 },
        bypassCSP: true,
      });
      const page = await context.newPage();
      try {
        await page.goto(`${service.url}/oauth/device`);
        await page.fill('#login', user.username);
        await page.fill('#password', user.password);
        await press(page, 'button:has-text("Sign in")');
        await page.fill('#user_code', 'WDJB-MJH');
        await press(page, '#continue');
        expect(await page.locator('#user_code-error').innerText()).toContain('eight letters');
        expect(await page.inputValue('#user_code')).toBe('WDJB-MJH');
        expect(await accessibilityViolations(page)).toEqual([]);
        await page.screenshot({ path: `${OUTPUT}/device-refused-375.png` });
      } finally {
        await context.close();
      }
    });
  },
);
