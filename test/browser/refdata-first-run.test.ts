/**
 * A new instance in Chromium: the home page of an instance with no library
 * says what CFIHOS v2.0 Core gives and offers a Creator the button that
 * imports it; pressing it leads to the import's page, which ends with the
 * library made; its page offers to submit every Draft as one package, which a
 * Reviewer reads family by family, approves at once and releases. The axe-core check at 1280 and 375 px, screenshots, and the
 * enforced security policy.
 */
import { mkdirSync } from 'node:fs';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Role } from '../../src/refdata/auth/roles.js';
import { type Refdata, startListeningRefdata } from '../refdata/helpers.js';
import {
  accessibilityViolations,
  browserAvailable,
  browserSkipReason,
  launchChromium,
  policyViolations,
} from './chromium.js';

const OUTPUT = '.test-output';

describe.skipIf(!browserAvailable)(
  `refdata's first run${browserAvailable ? '' : ` (skipped: ${browserSkipReason})`}`,
  () => {
    let browser: Browser;
    let service: Refdata & { url: string };

    beforeAll(async () => {
      mkdirSync(OUTPUT, { recursive: true });
      browser = await launchChromium();
      service = await startListeningRefdata({ REFDATA_IMPORT_POLL_MS: '100' });
    });
    afterAll(async () => {
      await browser?.close();
      await service?.close();
    });

    async function signIn(page: Page, subject: string, roles: Role[] = ['Creator']) {
      await page.goto(`${service.url}/sign-in`);
      await page.fill('#token', await service.token(roles, subject));
      await Promise.all([
        page.waitForURL((url) => url.pathname !== '/sign-in/token'),
        page.click('button:has-text("Sign in with token")'),
      ]);
    }

    it('offers CFIHOS v2.0 Core on an empty instance and imports it with one button', async () => {
      for (const width of [1280, 375]) {
        // bypassCSP only so the accessibility engine can be injected.
        const context = await browser.newContext({
          bypassCSP: true,
          viewport: { width, height: 900 },
        });
        const page = await context.newPage();
        await page.goto(service.url);
        expect(await page.textContent('#first-run-heading')).toBe('Start from CFIHOS v2.0 Core');
        expect(await page.locator('#first-run a:has-text("Sign in")').count()).toBe(1);
        expect(await accessibilityViolations(page)).toEqual([]);
        await signIn(page, 'cleo');
        await page.goto(service.url);
        expect(await page.locator('#first-run button').textContent()).toBe(
          'Import CFIHOS v2.0 Core',
        );
        expect(await accessibilityViolations(page)).toEqual([]);
        expect(
          await page.evaluate<number>('document.documentElement.scrollWidth'),
        ).toBeLessThanOrEqual(width);
        await page.screenshot({ path: `${OUTPUT}/refdata-first-run-${width}.png`, fullPage: true });
        await context.close();
      }
    });

    it('works under the enforced security policy: the button, the job, the library', async () => {
      const context = await browser.newContext({ viewport: { width: 375, height: 800 } });
      const page = await context.newPage();
      const violations = policyViolations(page);
      await signIn(page, 'cleo');
      await page.goto(service.url);
      await Promise.all([
        page.waitForURL(/\/account\/imports\/\d+$/),
        page.click('#first-run button'),
      ]);
      await page.waitForSelector('#import-progress[data-running="false"]', { timeout: 120_000 });
      const created = await page.$$eval('table.counts tr', (rows) =>
        rows
          .map((row) => [
            row.querySelector('th')?.textContent,
            row.querySelector('td')?.textContent,
          ])
          .find(([label]) => label === 'Created'),
      );
      expect(created?.[1]).toBe('8,109');
      await page.screenshot({
        path: `${OUTPUT}/refdata-first-run-imported-375.png`,
        fullPage: false,
      });
      await page.goto(service.url);
      expect(await page.locator('#first-run').count()).toBe(0);
      expect(await page.locator('#libraries a:has-text("CFIHOS v2.0 Core")').count()).toBe(1);
      // What comes next is on the import's page: every Draft submitted as one package.
      await page.goBack();
      await Promise.all([
        page.waitForURL(/\/review\/packages\/\d+$/),
        page.click('#submit-library button'),
      ]);
      expect(await page.textContent('#families caption')).toContain('5,083 resources, by family');
      expect(violations).toEqual([]);
      await context.close();
    }, 180_000);

    it('lets a Reviewer read the package family by family, approve it and release the library', async () => {
      for (const width of [1280, 375]) {
        // bypassCSP only so the accessibility engine can be injected.
        const context = await browser.newContext({
          bypassCSP: true,
          viewport: { width, height: 900 },
        });
        const page = await context.newPage();
        await signIn(page, 'rita', ['Reviewer']);
        await page.goto(`${service.url}/review`);
        expect(await page.textContent('#queue-count')).toBe(
          '5,083 waiting in one item, oldest first.',
        );
        expect(await accessibilityViolations(page)).toEqual([]);
        await page.screenshot({
          path: `${OUTPUT}/refdata-queue-package-${width}.png`,
          fullPage: true,
        });
        await Promise.all([page.waitForLoadState(), page.click('#queue a')]);
        expect(await page.locator('#families tbody tr').count()).toBe(6);
        expect(await accessibilityViolations(page)).toEqual([]);
        expect(
          await page.evaluate<number>('document.documentElement.scrollWidth'),
        ).toBeLessThanOrEqual(width);
        await page.screenshot({
          path: `${OUTPUT}/refdata-package-families-${width}.png`,
          fullPage: true,
        });
        await context.close();
      }
      const context = await browser.newContext({ viewport: { width: 375, height: 800 } });
      const page = await context.newPage();
      const violations = policyViolations(page);
      await signIn(page, 'rita', ['Reviewer']);
      await page.goto(`${service.url}/review`);
      await Promise.all([page.waitForLoadState(), page.click('#queue a')]);
      await page.fill('#decision-text', 'CFIHOS v2.0 Core as IOGP publishes it');
      await Promise.all([page.waitForLoadState(), page.click('button:has-text("Approve all")')]);
      expect(await page.textContent('#package-state')).toBe('Decided');
      await page.goto(`${service.url}/ontology/cfihos-v2-0-core`);
      await Promise.all([page.waitForLoadState(), page.click('a:has-text("Release it")')]);
      await page.fill('#version', '2.0.0');
      await page.fill('#notes', 'CFIHOS v2.0 Core as IOGP publishes it.');
      await Promise.all([page.waitForLoadState(), page.click('button:has-text("Release")')]);
      expect(new URL(page.url()).pathname).toBe('/ontology/cfihos-v2-0-core/releases/2.0.0');
      await page.goto(`${service.url}/ontology/cfihos-v2-0-core`);
      expect(await page.textContent('#release-standing')).toBe(' in release 2.0.0');
      await page.screenshot({ path: `${OUTPUT}/refdata-first-release-375.png`, fullPage: false });
      expect(violations).toEqual([]);
      await context.close();
    }, 180_000);
  },
);
