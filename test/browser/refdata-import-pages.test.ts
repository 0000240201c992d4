/**
 * The import pages as a data steward uses them in Chromium: the whole CFIHOS
 * v2.0 Core set uploaded and checked first, the report read, the import run
 * while its progress bar moves, and an imported equipment class and picklist
 * opened; the axe-core check at 1280 and 375 px, and screenshots.
 */
import { mkdirSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Role } from '../../src/refdata/auth/roles.js';
import { createLibrary, type Refdata, startListeningRefdata } from '../refdata/helpers.js';
import {
  accessibilityViolations,
  browserAvailable,
  browserSkipReason,
  launchChromium,
  policyViolations,
} from './chromium.js';

const OUTPUT = '.test-output';
const CFIHOS = join(import.meta.dirname, '../../datasets/cfihos-v2.0-core');

describe.skipIf(!browserAvailable)(
  `refdata's import pages${browserAvailable ? '' : ` (skipped: ${browserSkipReason})`}`,
  () => {
    let browser: Browser;
    let service: Refdata & { url: string };

    beforeAll(async () => {
      mkdirSync(OUTPUT, { recursive: true });
      browser = await launchChromium();
      service = await startListeningRefdata({ REFDATA_IMPORT_POLL_MS: '100' });
      await createLibrary(service, {
        name: 'CFIHOS core',
        cfihosPrefix: 'CORE',
        upperOntologies: ['https://posccaesar.org/cfihos/rdl/2.0'],
      });
    });
    afterAll(async () => {
      await browser?.close();
      await service?.close();
    });

    async function signIn(page: Page, roles: Role[] = ['Creator'], subject = 'alice') {
      await page.goto(`${service.url}/sign-in`);
      await page.fill('#token', await service.token(roles, subject));
      await Promise.all([
        page.waitForURL((url) => url.pathname !== '/sign-in/token'),
        page.click('button:has-text("Sign in with token")'),
      ]);
    }

    /** The outcome of the import whose page is open, once it has ended (the page's script reloads it). */
    async function outcome(page: Page) {
      await page.waitForSelector('#import-progress[data-running="false"]', { timeout: 120_000 });
      return Object.fromEntries(
        await page.$$eval('table.counts tr', (rows) =>
          rows.map((row) => [
            row.querySelector('th')?.textContent,
            row.querySelector('td')?.textContent,
          ]),
        ),
      );
    }

    it('checks the CFIHOS files first, then imports them while the progress bar moves', async () => {
      // bypassCSP only so the accessibility engine can be injected.
      const context = await browser.newContext({
        viewport: { width: 1280, height: 900 },
        bypassCSP: true,
      });
      const page = await context.newPage();
      await signIn(page);
      await page.click('nav.site a:has-text("Imports")');
      await page.waitForURL(/\/account\/imports$/);
      expect(await page.textContent('main')).toContain('You have not imported anything yet');
      await Promise.all([page.waitForLoadState(), page.click('a:has-text("New import")')]);

      // Nothing chosen: each field says what it needs.
      await page.$eval('form.authoring', (form) => form.setAttribute('novalidate', ''));
      await Promise.all([page.waitForLoadState(), page.click('button:has-text("Check first")')]);
      expect(await page.textContent('#library-error')).toContain('Choose a library');
      expect(await page.textContent('#file-error')).toContain('Choose one or more files');
      expect(await accessibilityViolations(page)).toEqual([]);

      await page.selectOption('#library', { label: 'CFIHOS core' });
      await page.setInputFiles(
        '#file',
        readdirSync(CFIHOS)
          .filter((name) => name.endsWith('.csv'))
          .map((name) => join(CFIHOS, name)),
      );
      await page.check('#mode-valid');
      expect(await accessibilityViolations(page)).toEqual([]);
      await page.screenshot({ path: `${OUTPUT}/refdata-import-form.png`, fullPage: true });
      await Promise.all([
        page.waitForURL(/\/account\/imports\/\d+$/),
        page.click('button:has-text("Check first")'),
      ]);
      const checked = await outcome(page);
      expect(checked).toMatchObject({
        Created: '8,109',
        Updated: '0',
        Unchanged: '0',
        Refused: '12',
      });
      expect(await page.textContent('[role="status"], .notice')).toContain('nothing was written');
      expect(await page.textContent('main')).toContain(
        'Range is required for a number: the UoM dimension',
      );
      expect(await page.textContent('main')).toContain('27 blank rows left out');
      expect(await accessibilityViolations(page)).toEqual([]);
      await page.screenshot({ path: `${OUTPUT}/refdata-import-checked.png`, fullPage: true });

      // The real run: its page shows a progress bar until it has ended.
      await Promise.all([
        page.waitForURL(/\/account\/imports\/\d+$/),
        page.click('button:has-text("Import these files")'),
      ]);
      // The page it lands on shows the job running (a real run takes seconds);
      // the values the bar shows are noted until it has ended.
      expect(await page.$('#import-progress[data-running="true"] progress')).not.toBeNull();
      expect(await accessibilityViolations(page)).toEqual([]);
      await page.screenshot({ path: `${OUTPUT}/refdata-import-running.png`, fullPage: true });
      // What the bar said on landing counts: on a fast machine the job may end before the next read.
      const landed = await page
        .$eval('#import-progress progress', (bar) => bar.getAttribute('value'))
        .catch(() => null);
      const seen: number[] = landed === null ? [] : [Number(landed)];
      for (;;) {
        // The page's script reloads it once the import has ended: a read may meet a navigation.
        const value = await page
          .$eval('#import-progress[data-running="true"] progress', (bar) =>
            bar.getAttribute('value'),
          )
          .catch(() => null);
        if (
          value === null &&
          (await page.$('#import-progress[data-running="false"]').catch(() => null))
        )
          break;
        if (value !== null) seen.push(Number(value));
        await page.waitForTimeout(100);
      }
      expect(seen.length).toBeGreaterThan(0);
      const imported = await outcome(page);
      expect(imported).toMatchObject({ Created: '8,109', Refused: '12' });
      expect(await page.textContent('.notice')).toContain('Imported.');
      const report = await Promise.all([
        page.waitForEvent('download'),
        page.click('a:has-text("Download the report")'),
      ]);
      expect(report[0].suggestedFilename()).toMatch(/^import-\d+-report\.csv$/);

      // An imported equipment class, with its properties; a picklist with its values.
      await page.goto(`${service.url}/cfihos/equipmentClass/CFIHOS-30000521`);
      expect(await page.textContent('h1')).toContain('centrifugal pump');
      expect(await page.textContent('main')).toContain('CFIHOS-40001229');
      await page.screenshot({ path: `${OUTPUT}/refdata-import-class.png`, fullPage: true });
      await page.goto(`${service.url}/cfihos/propertyPicklist/CFIHOS-50000073`);
      expect(await page.textContent('h1')).toContain('material specification');
      expect(await page.textContent('main')).toContain('.5CR-.5MO');

      // At 375 px, the list of imports reads without scrolling sideways.
      await page.setViewportSize({ width: 375, height: 800 });
      await page.goto(`${service.url}/account/imports`);
      expect(await page.textContent('main')).toContain(
        'created 8109, updated 0, unchanged 0, refused 12',
      );
      expect(await accessibilityViolations(page)).toEqual([]);
      expect(
        await page.evaluate<number>('document.documentElement.scrollWidth'),
      ).toBeLessThanOrEqual(375);
      await page.screenshot({ path: `${OUTPUT}/refdata-import-list-375.png`, fullPage: true });
      await context.close();
    }, 300_000);

    it('works under the enforced security policy for a returning Creator', async () => {
      const context = await browser.newContext({ viewport: { width: 375, height: 800 } });
      const page = await context.newPage();
      const violations = policyViolations(page);
      await signIn(page, ['Creator'], 'carol');
      await page.goto(`${service.url}/account/imports/new`);
      await page.selectOption('#library', { label: 'CFIHOS core' });
      await page.setInputFiles('#file', {
        name: 'units.csv',
        mimeType: 'text/csv',
        buffer: Buffer.from(
          'unit of measure dimension code CFIHOS unique code,unit of measure dimension code,unit of measure dimension name,unit of measure dimension definition\r\nD-CAROL,CAROL,carol length,How long as Carol measures it\r\n',
        ),
      });
      await Promise.all([
        page.waitForURL(/\/account\/imports\/\d+$/),
        page.click('button:has-text("Import now")'),
      ]);
      expect(await outcome(page)).toMatchObject({ Created: '1', Refused: '0' });
      expect(violations).toEqual([]);
      expect(
        await page.evaluate<number>('document.documentElement.scrollWidth'),
      ).toBeLessThanOrEqual(375);
      await context.close();
    });

    it('turns away a visitor, a reader, and a stranger from someone else’s import', async () => {
      const context = await browser.newContext();
      const page = await context.newPage();
      await page.goto(`${service.url}/account/imports/new`);
      expect(new URL(page.url()).pathname).toBe('/sign-in');
      await signIn(page, ['Reader'], 'bob');
      expect(await page.$('nav.site a:has-text("Imports")')).toBeNull();
      const response = await page.goto(`${service.url}/account/imports/1`);
      expect(response?.status()).toBe(403);
      await context.close();
    });

    it('says what the import pages take to a reader, at 1280 and 375 px, and lets the Creator who signs in next back to where they were', async () => {
      for (const width of [1280, 375]) {
        // bypassCSP only so the accessibility engine can be injected.
        const context = await browser.newContext({
          viewport: { width, height: 800 },
          bypassCSP: true,
        });
        const page = await context.newPage();
        await signIn(page, ['Reader'], 'bob');
        const refused = await page.goto(`${service.url}/account/imports/new`);
        expect(refused?.status()).toBe(403);
        expect(await page.textContent('main')).toContain('Importing takes the Creator role');
        expect(await accessibilityViolations(page)).toEqual([]);
        expect(
          await page.evaluate<number>('document.documentElement.scrollWidth'),
        ).toBeLessThanOrEqual(width);
        await page.screenshot({
          path: `${OUTPUT}/refdata-${width}-import-refused.png`,
          fullPage: true,
        });
        await context.close();
      }
      // A visitor sent to sign in comes back to the page asked for, as a Creator;
      // signed in already, the next visit goes straight there.
      const context = await browser.newContext();
      const page = await context.newPage();
      const blocked = policyViolations(page);
      await page.goto(`${service.url}/account/imports/new`);
      expect(new URL(page.url()).pathname).toBe('/sign-in');
      await page.fill('#token', await service.token(['Creator'], 'carol'));
      await Promise.all([
        page.waitForURL((url) => url.pathname === '/account/imports/new'),
        page.click('button:has-text("Sign in with token")'),
      ]);
      expect(await page.isVisible('form.authoring')).toBe(true);
      const again = await page.goto(`${service.url}/account/imports/new`);
      expect(again?.status()).toBe(200);
      expect(blocked).toEqual([]);
      await context.close();
    });
  },
);
