/**
 * Releasing a library in Chromium as a Reviewer: the quality report stops the
 * first try and says what to mend, the release then succeeds, a file is
 * downloaded and checked against the SHA-256 the page shows, and a second
 * release shows what changed; the axe-core check at 1280 and 375 px, and
 * screenshots.
 */
import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync } from 'node:fs';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Role } from '../../src/refdata/auth/roles.js';
import {
  approve,
  create,
  createLibrary,
  type Refdata,
  startListeningRefdata,
} from '../refdata/helpers.js';
import {
  accessibilityViolations,
  browserAvailable,
  browserSkipReason,
  launchChromium,
  policyViolations,
} from './chromium.js';

const OUTPUT = '.test-output';

describe.skipIf(!browserAvailable)(
  `refdata's release pages${browserAvailable ? '' : ` (skipped: ${browserSkipReason})`}`,
  () => {
    let browser: Browser;
    let service: Refdata & { url: string };
    let library: string;
    let picklist: string;
    let pump: string;

    beforeAll(async () => {
      mkdirSync(OUTPUT, { recursive: true });
      browser = await launchChromium();
      service = await startListeningRefdata();
      library = await createLibrary(service, { name: 'Plant equipment' });
      await approve(service, library);
      pump = (
        await create(service, '/rdl/terms/subclass', {
          name: 'Pump',
          description: 'Moves fluids',
          ontology: library,
          subClassOf: ['http://x.example/Equipment'],
        })
      ).iri;
      await approve(service, pump);
      // An Approved property whose picklist is still a Draft: the report's error.
      // An approval now waits for the picklist, so the property is approved in
      // storage, as data approved before that rule would be.
      picklist = (
        await create(service, '/cfihos/picklist', {
          name: 'Seal types',
          ontology: library,
          subClassOf: 'https://example.org/SealType',
          picklistValues: [{ name: 'Mechanical', description: 'A mechanical seal' }],
        })
      ).iri;
      const property = await create(service, '/general/property', {
        name: 'Seal type',
        ontology: library,
        types: ['controlledText'],
        range: picklist,
      });
      await service.db
        .updateTable('resources')
        .set({ status: 'Approved' })
        .where('iri', '=', property.iri)
        .execute();
    });
    afterAll(async () => {
      await browser?.close();
      await service?.close();
    });

    async function signIn(page: Page, roles: Role[], subject: string) {
      await page.goto(`${service.url}/sign-in`);
      await page.fill('#token', await service.token(roles, subject));
      await Promise.all([
        page.waitForURL((url) => url.pathname !== '/sign-in/token'),
        page.click('button:has-text("Sign in with token")'),
      ]);
    }

    async function release(page: Page, version: string, notes: string) {
      await page.fill('#version', version);
      await page.fill('#notes', notes);
      await Promise.all([page.waitForLoadState(), page.click('button:has-text("Release")')]);
    }

    it('is refused while the quality report finds an error, then releases, downloads and shows the changes', async () => {
      // bypassCSP only so the accessibility engine can be injected.
      const context = await browser.newContext({
        viewport: { width: 1280, height: 900 },
        bypassCSP: true,
        acceptDownloads: true,
      });
      const page = await context.newPage();
      await signIn(page, ['Reviewer'], 'rita');
      await page.goto(`${service.url}${new URL(library).pathname}`);
      expect(await page.textContent('#releases + p')).toContain('Not released yet');
      await Promise.all([page.waitForLoadState(), page.click('a:has-text("Release it")')]);
      expect(await page.textContent('#quality-summary')).toContain('1 error');
      expect(await page.textContent('table.findings')).toContain('Seal types');
      expect(await accessibilityViolations(page)).toEqual([]);

      await release(page, '1.0.0', 'The first release.');
      expect(await page.textContent('.notice')).toContain('Not released');
      expect(await page.inputValue('#notes')).toBe('The first release.');
      expect(await accessibilityViolations(page)).toEqual([]);
      await page.screenshot({ path: `${OUTPUT}/refdata-release-refused.png`, fullPage: true });

      // Mended: the picklist approved, the release goes through.
      await approve(service, picklist);
      await release(page, '1.0.0', 'The first release.');
      expect(new URL(page.url()).pathname).toBe(`${new URL(library).pathname}/releases/1.0.0`);
      expect(await page.textContent('h1')).toContain('Plant equipment 1.0.0');
      expect(await page.textContent('#changes + p')).toContain('first release');
      const row = page.locator('table.stack tbody tr', { hasText: 'Turtle' });
      const shown = (await row.locator('code.checksum').textContent())?.trim();
      const [download] = await Promise.all([
        page.waitForEvent('download'),
        row.locator('a').click(),
      ]);
      const saved = await download.path();
      expect(createHash('sha256').update(readFileSync(saved)).digest('hex')).toBe(shown);
      expect(readFileSync(saved, 'utf8')).toContain('owl:versionIRI');
      expect(await accessibilityViolations(page)).toEqual([]);
      await page.screenshot({ path: `${OUTPUT}/refdata-release.png`, fullPage: true });

      // A replacement approved, then the next release: its page shows what changed.
      await approve(
        service,
        (
          await create(service, '/rdl/terms/subclass', {
            name: 'Centrifugal pump',
            description: 'Moves fluids with an impeller',
            ontology: library,
            subClassOf: ['http://x.example/Equipment'],
            replaces: pump,
          })
        ).iri,
      );
      await page.goto(`${service.url}/releases/new?library=${encodeURIComponent(library)}`);
      expect(await page.textContent('#quality-summary')).toContain('nothing to mend');
      await release(page, '1.1.0', 'Pump is now Centrifugal pump.');
      expect(await page.textContent('#change-counts')).toBe(
        '1 added, 1 deprecated, 0 changed, 0 removed.',
      );
      const deprecated = page.locator('section.change', { hasText: 'Pump' });
      expect(await deprecated.locator('table.diff').textContent()).toContain('Centrifugal pump');
      expect(await accessibilityViolations(page)).toEqual([]);
      await page.setViewportSize({ width: 375, height: 800 });
      expect(
        await page.evaluate(
          () =>
            (globalThis as unknown as { document: { documentElement: { scrollWidth: number } } })
              .document.documentElement.scrollWidth,
        ),
      ).toBeLessThanOrEqual(375);
      expect(await accessibilityViolations(page)).toEqual([]);
      await page.screenshot({ path: `${OUTPUT}/refdata-release-changes-375.png`, fullPage: true });

      // The library page lists both, the latest first; the latest address leads to 1.1.0.
      await page.goto(`${service.url}${new URL(library).pathname}`);
      const listed = await page.$$eval('ul.releases li a', (links) =>
        links.map((link) => link.textContent),
      );
      expect(listed).toEqual(['1.1.0', '1.0.0']);
      expect(await accessibilityViolations(page)).toEqual([]);
      await page.screenshot({
        path: `${OUTPUT}/refdata-library-releases-375.png`,
        fullPage: false,
      });
      await Promise.all([page.waitForLoadState(), page.click('a:has-text("The latest release")')]);
      expect(new URL(page.url()).pathname).toBe(`${new URL(library).pathname}/releases/1.1.0`);
      await context.close();
    }, 120_000);

    it('says where a class stands with the releases, and explains the DCAT description and the change feed as pages', async () => {
      for (const width of [1280, 375]) {
        // bypassCSP only so the accessibility engine can be injected.
        const context = await browser.newContext({
          bypassCSP: true,
          viewport: { width, height: 900 },
        });
        const page = await context.newPage();
        const fits = async () =>
          expect(
            await page.evaluate<number>('document.documentElement.scrollWidth'),
          ).toBeLessThanOrEqual(width);
        // Pump was replaced after 1.0.0, in 1.1.0 as Deprecated.
        await page.goto(`${service.url}${new URL(pump).pathname}`);
        expect(await page.textContent('#release-standing')).toMatch(/^ in release 1\.1\.\d$/);
        expect(await accessibilityViolations(page)).toEqual([]);
        await fits();
        await page.screenshot({ path: `${OUTPUT}/refdata-class-standing-${width}.png` });
        // The release's DCAT, followed from its page, is a page with each format to save.
        await page.goto(`${service.url}${new URL(library).pathname}/releases/1.0.0`);
        await Promise.all([
          page.waitForLoadState(),
          page.click('a:has-text("Its DCAT description")'),
        ]);
        expect(await page.textContent('h1')).toBe('DCAT description of Plant equipment 1.0.0');
        expect(await page.locator('#for-machines + p a').count()).toBe(4);
        expect(await accessibilityViolations(page)).toEqual([]);
        await fits();
        await page.screenshot({ path: `${OUTPUT}/refdata-dcat-${width}.png`, fullPage: true });
        // The library's change feed link leads to a page that explains it.
        await page.goto(`${service.url}${new URL(library).pathname}`);
        await Promise.all([page.waitForLoadState(), page.click('a[href^="/changes?library="]')]);
        expect(await page.textContent('h1')).toBe('Changes to Plant equipment');
        expect(await page.locator('#latest-changes li').count()).toBeGreaterThan(2);
        expect(await accessibilityViolations(page)).toEqual([]);
        await fits();
        await page.screenshot({ path: `${OUTPUT}/refdata-changes-${width}.png`, fullPage: true });
        await context.close();
      }
    });

    it('shows a visitor the releases, but neither the report (it names Drafts) nor the way to release', async () => {
      const context = await browser.newContext({ bypassCSP: true });
      const page = await context.newPage();
      await page.goto(`${service.url}${new URL(library).pathname}`);
      expect(await page.$$eval('ul.releases li a', (links) => links.length)).toBe(2);
      expect(await page.locator('a:has-text("Release it")').count()).toBe(0);
      expect(await page.locator('a:has-text("Quality report")').count()).toBe(0);
      expect(await accessibilityViolations(page)).toEqual([]);
      await page.goto(`${service.url}/quality?library=${encodeURIComponent(library)}`);
      expect(new URL(page.url()).pathname).toBe('/sign-in');
      const form = await page.goto(
        `${service.url}/releases/new?library=${encodeURIComponent(library)}`,
      );
      expect(new URL(page.url()).pathname).toBe('/sign-in');
      expect(form?.status()).toBe(200);
      await context.close();
    });

    it('is not offered to a Reader, who reads the report under the enforced security policy', async () => {
      const context = await browser.newContext({ viewport: { width: 375, height: 800 } });
      const page = await context.newPage();
      const violations = policyViolations(page);
      await signIn(page, ['Reader'], 'bob');
      await page.goto(`${service.url}${new URL(library).pathname}`);
      expect(await page.locator('a:has-text("Release it")').count()).toBe(0);
      await Promise.all([page.waitForLoadState(), page.click('a:has-text("Quality report")')]);
      expect(await page.textContent('#quality-summary')).toContain('nothing to mend');
      const refused = await page.goto(
        `${service.url}/releases/new?library=${encodeURIComponent(library)}`,
      );
      expect(refused?.status()).toBe(403);
      expect(violations).toEqual([]);
      await context.close();
    });

    it('works under the enforced security policy for a returning Reviewer', async () => {
      const context = await browser.newContext({ viewport: { width: 375, height: 800 } });
      const page = await context.newPage();
      const violations = policyViolations(page);
      await signIn(page, ['Reviewer'], 'rita');
      await page.goto(`${service.url}/releases/new?library=${encodeURIComponent(library)}`);
      await release(page, '1.1.1', 'A patch.');
      expect(new URL(page.url()).pathname).toBe(`${new URL(library).pathname}/releases/1.1.1`);
      expect(await page.textContent('#changes + p')).toBe('Nothing changed.');
      // Its DCAT page and the library's change feed, under the same enforced policy.
      await Promise.all([
        page.waitForLoadState(),
        page.click('a:has-text("Its DCAT description")'),
      ]);
      expect(await page.locator('#distributions + .table-scroll tbody tr').count()).toBe(4);
      await page.goto(`${service.url}/changes?${new URLSearchParams({ library })}`);
      expect(await page.locator('#latest-changes li').count()).toBeGreaterThan(2);
      expect(violations).toEqual([]);
      expect(
        await page.evaluate<number>('document.documentElement.scrollWidth'),
      ).toBeLessThanOrEqual(375);
      await context.close();
    });
  },
);
