/**
 * An engineer looking a class up, in Chromium: the hierarchy walked from a
 * library down three levels with script and without, a CFIHOS class's
 * properties read by a visitor with a picklist's values, and a class in
 * Norwegian for a browser that asks for it.
 */
import { mkdirSync } from 'node:fs';
import type { Browser, BrowserContextOptions, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  approve,
  create,
  createLibrary,
  type Refdata,
  startListeningRefdata,
  uniqueName,
} from '../refdata/helpers.js';
import {
  accessibilityViolations,
  browserAvailable,
  browserSkipReason,
  launchChromium,
  policyViolations,
} from './chromium.js';

describe.skipIf(!browserAvailable)(
  `refdata pages read at a glance in Chromium${browserAvailable ? '' : ` (skipped: ${browserSkipReason})`}`,
  () => {
    let browser: Browser;
    let service: Refdata & { url: string };
    const data = {} as {
      library: { iri: string; name: string };
      rotating: { iri: string; name: string };
      pump: { iri: string; name: string };
      centrifugal: { iri: string; name: string };
      picklist: { iri: string; name: string };
      sealKind: { iri: string; name: string };
      pressure: { iri: string; name: string };
    };
    const pathOf = (iri: string) => iri.slice(service.config.settings.refdata.iriBase.length);

    beforeAll(async () => {
      browser = await launchChromium();
      service = await startListeningRefdata();
      const libraryName = uniqueName('Rotating equipment library');
      const library = await createLibrary(service, { name: libraryName });
      await approve(service, library);
      data.library = { iri: library, name: libraryName };
      const made = async (route: string, body: Record<string, unknown>) => {
        const created = await create(service, route, { ontology: library, ...body });
        await approve(service, created.iri);
        return { iri: created.iri, name: created.name as string };
      };
      const dimension = await made('/cfihos/dimension', {
        name: uniqueName('Pressure'),
        dimensionCode: 'P',
      });
      data.picklist = await made('/cfihos/picklist', {
        name: uniqueName('Seal kinds'),
        subClassOf: 'http://x.example/picklist',
        picklistValues: [
          { name: 'Mechanical seal', description: 'Faces that slide on each other' },
          { name: 'Gland packing', description: 'Rings pressed round the shaft' },
        ],
      });
      data.sealKind = await made('/general/property', {
        name: uniqueName('Seal kind'),
        types: ['controlledText'],
        range: data.picklist.iri,
      });
      data.pressure = await made('/general/property', {
        name: uniqueName('Design pressure'),
        types: ['number'],
        range: dimension.iri,
      });
      data.rotating = await made('/cfihos/entity', {
        name: uniqueName('Rotating equipment'),
        entityType: 'equipment',
        propertyReferences: [
          { propertyUri: data.pressure.iri, minCardinality: 1, maxCardinality: 1 },
        ],
      });
      data.pump = await made('/cfihos/entity', {
        name: uniqueName('Pump'),
        entityType: 'equipment',
        superEntity: data.rotating.iri,
        propertyReferences: [
          { propertyUri: data.sealKind.iri, minCardinality: 0, maxCardinality: 1 },
        ],
      });
      data.centrifugal = await made('/cfihos/entity', {
        name: uniqueName('Centrifugal pump'),
        description: 'A pump that moves fluid with a rotating impeller',
        entityType: 'equipment',
        superEntity: data.pump.iri,
        propertyReferences: [],
        translations: [
          {
            language: 'nb',
            name: 'Sentrifugalpumpe',
            description: 'En pumpe som flytter væske med et roterende løpehjul',
          },
        ],
        synonyms: [{ language: 'de', label: 'Kreiselpumpe' }],
      });
    });
    afterAll(async () => {
      await browser?.close();
      await service?.close();
    });

    /** A visitor's page: not signed in, axe allowed in (`bypassCSP`), script on or off. */
    const visitor = async (options: BrowserContextOptions, work: (page: Page) => Promise<void>) => {
      const context = await browser.newContext({ bypassCSP: true, ...options });
      const page = await context.newPage();
      const errors: string[] = [];
      page.on('pageerror', (error) => errors.push(error.message));
      try {
        await work(page);
        expect(errors).toEqual([]);
      } finally {
        await context.close();
      }
    };
    /** A screenshot to look at, and axe's check (which needs script to run). */
    const look = async (page: Page, shot: string, axe = true) => {
      mkdirSync('.test-output', { recursive: true });
      await page.screenshot({ path: `.test-output/refdata-reading-${shot}.png`, fullPage: true });
      if (axe) expect(await accessibilityViolations(page), shot).toEqual([]);
    };
    const heading = (page: Page) => page.locator('h1').innerText();

    it('walks the hierarchy from the library down three levels without script', async () => {
      await visitor(
        { javaScriptEnabled: false, viewport: { width: 1280, height: 900 } },
        async (page) => {
          await page.goto(`${service.url}${pathOf(data.library.iri)}`);
          const tree = page.locator('#hierarchy');
          await tree.locator(`summary:has-text("of ${data.rotating.name}")`).click();
          await look(page, 'tree-no-script-1280', false);
          // The opened level holds a link to the class's page, which lists the level.
          await Promise.all([
            page.waitForLoadState(),
            tree.locator(`a:has-text("Show the 1 subclass of ${data.rotating.name}")`).click(),
          ]);
          expect(await heading(page)).toBe(data.rotating.name);
          const subclasses = page.locator('#subclass-tree');
          await subclasses.locator(`summary:has-text("of ${data.pump.name}")`).click();
          await Promise.all([
            page.waitForLoadState(),
            subclasses.locator(`a:has-text("Show the 1 subclass of ${data.pump.name}")`).click(),
          ]);
          expect(await heading(page)).toBe(data.pump.name);
          await Promise.all([
            page.waitForLoadState(),
            page
              .locator('#subclass-tree')
              .locator(`a:has-text("${data.centrifugal.name}")`)
              .click(),
          ]);
          expect(await heading(page)).toBe(data.centrifugal.name);
          // The way back up, from the library down.
          const trail = await page.locator('#breadcrumbs ol li').allInnerTexts();
          expect(trail).toEqual([
            data.library.name,
            data.rotating.name,
            data.pump.name,
            data.centrifugal.name,
          ]);
          await look(page, 'class-no-script-1280', false);
        },
      );
    });

    it('walks it with script, each level fetched as it opens, at 375 px', async () => {
      await visitor({ viewport: { width: 375, height: 800 } }, async (page) => {
        await page.goto(`${service.url}${pathOf(data.library.iri)}`);
        const tree = page.locator('#hierarchy');
        await tree.locator(`summary:has-text("of ${data.rotating.name}")`).click();
        const pump = tree.locator(`a:text-is("${data.pump.name}")`);
        await pump.waitFor();
        await tree.locator(`summary:has-text("of ${data.pump.name}")`).click();
        const centrifugal = tree.locator(`a:text-is("${data.centrifugal.name}")`);
        await centrifugal.waitFor();
        // No link to another page was needed on the way down.
        expect(await tree.locator('.subtree-link').count()).toBe(0);
        await look(page, 'tree-script-375');
        // The toggles are reached and opened from the keyboard.
        await Promise.all([page.waitForLoadState(), centrifugal.click()]);
        expect(await heading(page)).toBe(data.centrifugal.name);
      });
    });

    it("shows a visitor a CFIHOS class's properties, inherited ones with their source and a picklist's values", async () => {
      for (const width of [1280, 375]) {
        await visitor({ viewport: { width, height: 900 } }, async (page) => {
          await page.goto(`${service.url}${pathOf(data.centrifugal.iri)}`);
          const table = page.locator('#class-properties');
          const rows = table.locator('tbody tr');
          expect(await rows.count()).toBe(2);
          const seal = rows.filter({ hasText: data.sealKind.name });
          expect(await seal.locator('td').nth(0).innerText()).toBe('Picklist');
          expect(await seal.locator('td').nth(3).innerText()).toBe(data.pump.name);
          const values = seal.locator('details.picklist-values');
          expect(await values.locator('li').first().isVisible()).toBe(false);
          await values.locator('summary').click();
          expect(await values.innerText()).toContain('Gland packing');
          const pressure = rows.filter({ hasText: data.pressure.name });
          expect(await pressure.locator('td').nth(0).innerText()).toBe('Number');
          expect(await pressure.locator('td').nth(3).innerText()).toBe(data.rotating.name);
          // The raw restrictions are there for those who want them, folded away.
          expect(await page.locator('#rdf-view').getAttribute('open')).toBeNull();
          await look(page, `cfihos-class-${width}`);
          await Promise.all([
            page.waitForLoadState(),
            seal.locator(`a:has-text("${data.sealKind.name}")`).click(),
          ]);
          expect(await page.locator('dd[data-field="range"]').innerText()).toBe(data.picklist.name);
        });
      }
    });

    it('works under the enforced security policy, for a returning Reader and for one without a role', async () => {
      for (const roles of [['Reader'], []] as const) {
        // No bypassCSP: the pages' own policy is enforced, as in any browser.
        const context = await browser.newContext({
          locale: 'nb-NO',
          viewport: { width: 375, height: 800 },
        });
        const page = await context.newPage();
        const blocked = policyViolations(page);
        try {
          for (let visit = 0; visit < 2; visit += 1) {
            // The second time as a returning user, whose session is already there.
            if (visit === 0) {
              await page.goto(`${service.url}/sign-in`);
              await page.fill('#token', await service.token([...roles], 'ruth', 3600));
              await Promise.all([
                page.waitForURL(/\/$|\/sign-in/),
                page.click('button:has-text("Sign in with token")'),
              ]);
            }
            await page.goto(`${service.url}${pathOf(data.library.iri)}`);
            const tree = page.locator('#hierarchy');
            await tree.locator(`summary:has-text("of ${data.rotating.name}")`).click();
            // The level comes from the tree script, which the policy lets run.
            await tree.locator(`a:text-is("${data.pump.name}")`).waitFor();
            await page.goto(`${service.url}${pathOf(data.centrifugal.iri)}`);
            expect(await heading(page)).toBe('Sentrifugalpumpe');
            expect(await page.locator('#class-properties tbody tr').count()).toBe(2);
            await page.goto(`${service.url}/search?q=Kreiselpumpe&language=de`);
            expect(await page.locator('#results').innerText()).toContain(data.centrifugal.name);
          }
          expect(blocked).toEqual([]);
        } finally {
          await context.close();
        }
      }
    });

    it('shows a class in Norwegian to a browser that asks for it, and in English to one that does not', async () => {
      const address = `${service.url}${pathOf(data.centrifugal.iri)}`;
      await visitor({ locale: 'nb-NO', viewport: { width: 1280, height: 900 } }, async (page) => {
        await page.goto(address);
        expect(await heading(page)).toBe('Sentrifugalpumpe');
        expect(await page.locator('h1').getAttribute('lang')).toBe('nb');
        expect(await page.locator('#definition').getAttribute('lang')).toBe('nb');
        await look(page, 'class-nb-1280');
        // The chooser shows it in English instead, without script needed.
        await page.selectOption('#lang', 'en');
        await Promise.all([page.waitForLoadState(), page.click('#language-choice button')]);
        expect(await heading(page)).toBe(data.centrifugal.name);
        expect(await page.locator('#label-table').innerText()).toContain('Kreiselpumpe');
      });
      await visitor({ locale: 'en-GB', viewport: { width: 375, height: 800 } }, async (page) => {
        await page.goto(address);
        expect(await heading(page)).toBe(data.centrifugal.name);
        await look(page, 'class-en-375');
      });
    });
  },
);
