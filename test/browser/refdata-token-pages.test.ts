/**
 * Personal access tokens on refdata's account pages, as a person uses them in
 * Chromium: a refused form says why beside the field; a token is made with
 * some of the person's roles, shown once, used with curl against the API,
 * listed with its last use, and revoked, after which curl is refused; the
 * axe-core check at 1280 and 375 px, screenshots, and the page without script.
 */
import { execFile } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { promisify } from 'node:util';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Refdata, startListeningRefdata } from '../refdata/helpers.js';
import {
  accessibilityViolations,
  browserAvailable,
  browserSkipReason,
  launchChromium,
} from './chromium.js';

const OUTPUT = '.test-output';
const run = promisify(execFile);

describe.skipIf(!browserAvailable)(
  `refdata's access token pages${browserAvailable ? '' : ` (skipped: ${browserSkipReason})`}`,
  () => {
    let browser: Browser;
    let service: Refdata & { url: string };

    beforeAll(async () => {
      mkdirSync(OUTPUT, { recursive: true });
      browser = await launchChromium();
      service = await startListeningRefdata();
    });
    afterAll(async () => {
      await browser?.close();
      await service?.close();
    });

    async function signIn(page: Page, roles: ('Reader' | 'Creator')[]) {
      await page.goto(`${service.url}/sign-in`);
      await page.fill('#token', await service.token(roles, 'alice'));
      await Promise.all([
        page.waitForURL((url) => url.pathname !== '/sign-in/token'),
        page.click('button:has-text("Sign in with token")'),
      ]);
    }

    async function press(page: Page, selector: string) {
      await Promise.all([page.waitForLoadState(), page.click(selector)]);
    }

    /** curl, as a person would paste the token into a terminal: the HTTP status it gets. */
    async function curl(token: string, name: string): Promise<number> {
      const { stdout } = await run('curl', [
        '-s',
        '-o',
        '/dev/null',
        '-w',
        '%{http_code}',
        '-X',
        'POST',
        `${service.url}/ontologies/domains`,
        '-H',
        `Authorization: Bearer ${token}`,
        '-H',
        'Content-Type: application/json',
        '-d',
        JSON.stringify({ changeJustification: 'From curl', name, description: 'Made with curl' }),
      ]);
      return Number(stdout);
    }

    it('makes a token, shows it once, lets curl use it, and revokes it', async () => {
      // bypassCSP only so the accessibility engine can be injected.
      const context = await browser.newContext({
        viewport: { width: 1280, height: 900 },
        bypassCSP: true,
      });
      const page = await context.newPage();
      await signIn(page, ['Reader', 'Creator']);
      await press(page, 'nav.site a:has-text("Access tokens")');
      expect(new URL(page.url()).pathname).toBe('/account/tokens');
      expect(await page.textContent('main')).toContain('You have none.');
      expect(await accessibilityViolations(page)).toEqual([]);

      // Without a name: said beside the field, what was chosen kept.
      await page.uncheck('#role-Reader');
      await press(page, 'button:has-text("Make token")');
      expect(await page.textContent('#name-error')).toContain('name');
      expect(await page.isChecked('#role-Reader')).toBe(false);
      expect(await page.isChecked('#role-Creator')).toBe(true);
      expect(await accessibilityViolations(page)).toEqual([]);
      await page.screenshot({ path: `${OUTPUT}/refdata-tokens-refused.png`, fullPage: true });

      await page.fill('#name', 'nightly sync');
      await press(page, 'button:has-text("Make token")');
      const token = (await page.getAttribute('#new-token', 'data-copy-text')) ?? '';
      expect(token).toMatch(/^rdpat-[0-9a-f]{64}$/);
      expect(await page.textContent('main')).toContain('not shown again');
      await page.screenshot({ path: `${OUTPUT}/refdata-tokens-made.png`, fullPage: true });

      expect(await curl(token, 'Made with a personal token')).toBe(201);
      // Shown once: a reload shows the list, with the token's last use, and no token.
      await page.reload();
      expect(await page.$('#new-token')).toBeNull();
      const row = await page.textContent('#tokens');
      expect(row).toContain('nightly sync');
      expect(row).toContain('Creator');
      expect(row).not.toContain('Never');

      // At 375 px nothing is wider than the screen.
      await page.setViewportSize({ width: 375, height: 800 });
      await page.reload();
      expect(await page.evaluate('document.documentElement.scrollWidth')).toBeLessThanOrEqual(375);
      expect(await accessibilityViolations(page)).toEqual([]);
      await page.screenshot({ path: `${OUTPUT}/refdata-tokens-375.png`, fullPage: true });

      await page.setViewportSize({ width: 1280, height: 900 });
      await press(page, 'button[aria-label="Revoke nightly sync"]');
      expect(await page.textContent('main')).toContain('no longer works');
      expect(await page.textContent('#tokens')).toContain('Revoked');
      expect(await curl(token, 'Refused')).toBe(401);
      await context.close();
    });

    it('works without script, and gives no token a role the person lacks', async () => {
      const context = await browser.newContext({ javaScriptEnabled: false });
      const page = await context.newPage();
      await signIn(page, ['Reader']);
      await page.goto(`${service.url}/account/tokens`);
      // Only the person's own roles are offered.
      expect(await page.$('#role-Creator')).toBeNull();
      await page.fill('#name', 'reading');
      await press(page, 'button:has-text("Make token")');
      const token = (await page.textContent('#new-token')) ?? '';
      expect(token).toMatch(/^rdpat-/);
      // A Reader's token reads, and does not write.
      expect(await curl(token, 'Not allowed')).toBe(403);
      // A form that claims a role anyway is refused, and makes nothing.
      const before = (await service.db.selectFrom('personal_access_tokens').selectAll().execute())
        .length;
      const forged = await page.request.post(`${service.url}/account/tokens`, {
        form: {
          authenticity_token:
            (await page.getAttribute('input[name=authenticity_token]', 'value')) ?? '',
          name: 'forged',
          roles: 'Creator',
          expires_at: new Date(Date.now() + 7 * 86_400_000).toISOString().slice(0, 10),
        },
      });
      expect(forged.status()).toBe(422);
      expect(await forged.text()).toContain('You do not hold the role Creator');
      expect(
        (await service.db.selectFrom('personal_access_tokens').selectAll().execute()).length,
      ).toBe(before);
      await context.close();
    });
  },
);
