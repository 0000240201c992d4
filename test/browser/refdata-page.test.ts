import { mkdirSync, readFileSync } from 'node:fs';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  approve,
  create,
  createLibrary,
  iriQuery,
  type Refdata,
  startListeningRefdata,
  uniqueName,
} from '../refdata/helpers.js';
import {
  accessibilityViolations,
  browserAvailable,
  browserSkipReason,
  launchChromium,
} from './chromium.js';

describe.skipIf(!browserAvailable)(
  `refdata resource pages in Chromium${browserAvailable ? '' : ` (skipped: ${browserSkipReason})`}`,
  () => {
    let browser: Browser;
    let service: Refdata;
    let url: string;
    beforeAll(async () => {
      browser = await launchChromium();
      const started = await startListeningRefdata();
      service = started;
      url = started.url;
    });
    afterAll(async () => {
      await browser?.close();
      await service?.close();
    });

    it('shows a Submitted class as Pending review, with its relations as links', async () => {
      const ontology = await createLibrary(service);
      const pump = await create(service, '/rdl/terms/subclass', {
        name: uniqueName('Pump <script>'),
        description: 'Moves fluid',
        ontology,
        subClassOf: ['http://example.org/Equipment'],
      });
      expect((await service.call('PUT', `/status/submit?${iriQuery(pump.iri)}`)).statusCode).toBe(
        204,
      );
      const context = await browser.newContext({
        extraHTTPHeaders: { authorization: `Bearer ${await service.token(['Reader'])}` },
      });
      const page = await context.newPage();
      const problems: string[] = [];
      page.on('console', (message) => {
        if (message.type() === 'error') problems.push(message.text());
      });
      page.on('pageerror', (error) => problems.push(error.message));
      try {
        // A browser asks for text/html first, as every browser does.
        const response = await page.goto(
          `${url}${pump.iri.slice(service.config.settings.refdata.iriBase.length)}`,
        );
        expect(response?.headers()['content-type']).toMatch(/^text\/html/);
        expect(await page.locator('h1').innerText()).toBe(pump.name);
        expect(await page.locator('#status').innerText()).toBe('Pending review');
        expect(await page.locator('#definition').innerText()).toBe('Moves fluid');
        const links: (string | null)[] = [];
        for (const anchor of await page.locator('#statements a').all()) {
          links.push(await anchor.getAttribute('href'));
        }
        expect(links).toContain('http://example.org/Equipment');
        expect(links).toContain(
          `${url}${ontology.slice(service.config.settings.refdata.iriBase.length)}`,
        );
        // The name was text, not markup: no script ran.
        expect(await page.locator('script').count()).toBe(0);
        await page.click(
          `#statements a[href="${url}${ontology.slice(service.config.settings.refdata.iriBase.length)}"]`,
        );
        expect(await page.locator('#status').innerText()).toBe('Draft');
        expect(problems).toEqual([]);
      } finally {
        await context.close();
      }
    });

    it('publishes the vocabulary as a readable, accessible page, and links terms to it', async () => {
      const context = await browser.newContext({
        viewport: { width: 375, height: 800 },
        // Only so that the accessibility engine can be injected.
        bypassCSP: true,
      });
      const page = await context.newPage();
      try {
        const response = await page.goto(`${url}/vocab`);
        expect(response?.headers()['content-type']).toBe('text/html; charset=utf-8');
        expect(await page.locator('#status').count()).toBe(1);
        mkdirSync('.test-output', { recursive: true });
        await page.screenshot({ path: '.test-output/refdata-vocab-375.png', fullPage: true });
        expect(await accessibilityViolations(page)).toEqual([]);
        // A resource page's rdl:status leads to its definition.
        const library = await createLibrary(service);
        await context.setExtraHTTPHeaders({
          authorization: `Bearer ${await service.token(['Reader'])}`,
        });
        await page.goto(`${url}${library.slice(service.config.settings.refdata.iriBase.length)}`);
        expect(await accessibilityViolations(page)).toEqual([]);
        await page.click(`#statements a[href="${url}/vocab#status"]`);
        expect(new URL(page.url()).hash).toBe('#status');
      } finally {
        await context.close();
      }
    });

    it('lets an anonymous visitor search, filter, open a result and download its Turtle, every page accessible at 375 px', async () => {
      const name = uniqueName('Centrifugal compressor');
      const library = await createLibrary(service, { name: uniqueName('Rotating equipment') });
      const term = await create(service, '/rdl/terms/subclass', {
        name,
        description: 'Raises the pressure of a gas by a rotating impeller.',
        ontology: library,
        subClassOf: ['http://example.org/Equipment'],
      });
      for (const iri of [library, term.iri]) await approve(service, iri, 'Agreed');
      const context = await browser.newContext({
        viewport: { width: 375, height: 800 },
        acceptDownloads: true,
        // Only so that the accessibility engine can be injected.
        bypassCSP: true,
      });
      const page = await context.newPage();
      const check = async (shot: string) => {
        await page.screenshot({ path: `.test-output/refdata-${shot}-375.png`, fullPage: true });
        expect(await accessibilityViolations(page), shot).toEqual([]);
        const width = await page.evaluate(
          () =>
            (globalThis as unknown as { document: { documentElement: { scrollWidth: number } } })
              .document.documentElement.scrollWidth,
        );
        expect(width, shot).toBeLessThanOrEqual(375);
      };
      try {
        mkdirSync('.test-output', { recursive: true });
        await page.goto(`${url}/`);
        await check('home');
        await page.fill('#home-q', 'centrifugal');
        await Promise.all([page.waitForLoadState(), page.click('main button:has-text("Search")')]);
        expect(new URL(page.url()).searchParams.get('q')).toBe('centrifugal');
        // The status filter shows what applies (all a visitor may see but Rejected); keep Approved.
        const ticked = await page
          .locator('input[name="status"]:checked')
          .evaluateAll((boxes) => boxes.map((box) => (box as unknown as { value: string }).value));
        expect(ticked).toContain('Approved');
        for (const value of ticked.filter((value) => value !== 'Approved'))
          await page.uncheck(`input[name="status"][value="${value}"]`);
        expect(await page.locator('input[name="status"][value="Approved"]').isChecked()).toBe(true);
        await Promise.all([
          page.waitForLoadState(),
          page.click('button:has-text("Apply filters")'),
        ]);
        expect(new URL(page.url()).searchParams.getAll('status')).toEqual(['Approved']);
        expect(await page.locator('#results').innerText()).toContain(name);
        await check('search');
        await Promise.all([page.waitForLoadState(), page.click(`#results a:has-text("${name}")`)]);
        expect(await page.locator('h1').innerText()).toBe(name);
        expect(await page.locator('#history').innerText()).toContain('approved');
        await check('class');
        const [download] = await Promise.all([
          page.waitForEvent('download'),
          page.click('#downloads a:has-text("Turtle")'),
        ]);
        const saved = `.test-output/${download.suggestedFilename()}`;
        await download.saveAs(saved);
        expect(readFileSync(saved, 'utf8')).toContain(term.iri);
        await page.goto(`${url}/sign-in`);
        await check('sign-in');
        await page.goto(`${url}/no/such/page`);
        expect(await page.locator('h1').innerText()).toBe('Page not found');
        await check('not-found');
      } finally {
        await context.close();
      }
    });

    it('walks from the home page through a library to a class, a picklist, an IMF block and a symbol drawing', async () => {
      const IMF = 'http://ns.imfid.org/imf#';
      const libraryName = uniqueName('Process plant');
      const library = await createLibrary(service, { name: libraryName });
      await approve(service, library, 'Agreed');
      const equipment = await create(service, '/rdl/terms/subclass', {
        name: uniqueName('Equipment'),
        ontology: library,
        subClassOf: ['http://example.org/Thing'],
      });
      const pump = await create(service, '/rdl/terms/subclass', {
        name: uniqueName('Pump'),
        ontology: library,
        subClassOf: [equipment.iri],
      });
      const picklist = await create(service, '/cfihos/picklist', {
        name: uniqueName('Seal types'),
        ontology: library,
        subClassOf: 'http://x.example/picklist',
        picklistValues: [
          { name: 'Mechanical', description: 'A mechanical seal' },
          { name: 'Packing', description: 'Gland packing' },
        ],
      });
      const attribute = await create(service, '/imf/attributetypes', {
        name: uniqueName('Flow rate'),
        ontology: library,
        predicate: 'http://example.org/flow',
      });
      const terminal = await create(service, '/imf/terminaltypes', {
        name: uniqueName('Suction'),
        ontology: library,
        aspect: `${IMF}productAspect`,
        direction: 'input',
        referenceTerms: [],
        attributeReferences: [{ entityUri: attribute.iri, minCardinality: 1, maxCardinality: 1 }],
      });
      const block = await create(service, '/imf/blocktypes', {
        name: uniqueName('Pump unit'),
        ontology: library,
        aspect: `${IMF}productAspect`,
        referenceTerms: [],
        attributeReferences: [{ entityUri: attribute.iri, minCardinality: 0 }],
        terminalReferences: [{ entityUri: terminal.iri, minCardinality: 1, maxCardinality: 1 }],
        hasPartBlockReferences: [],
      });
      const symbol = await create(service, '/esl/engineeringSymbols', {
        name: uniqueName('Centrifugal pump symbol'),
        dcIdentifier: `P${Date.now()}`,
        width: 48,
        height: 48,
        shape:
          '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 48 48"><path d="M0 24 A24 24 0 1 0 48 24 A24 24 0 1 0 0 24 Z M24 0 L48 24"/></svg>',
        centerOfRotation: { x: 24, y: 24 },
        connectionPoints: [
          { id: 'suction', x: 0, y: 24, direction: 180 },
          { id: 'discharge', x: 24, y: 0, direction: 90 },
        ],
      });
      for (const iri of [
        equipment.iri,
        pump.iri,
        picklist.iri,
        attribute.iri,
        terminal.iri,
        block.iri,
        symbol.iri,
      ]) {
        await approve(service, iri, 'Agreed');
      }

      const context = await browser.newContext({
        viewport: { width: 375, height: 800 },
        // Only so that the accessibility engine can be injected.
        bypassCSP: true,
      });
      const page = await context.newPage();
      const check = async (shot: string) => {
        await page.screenshot({ path: `.test-output/refdata-${shot}-375.png`, fullPage: true });
        expect(await accessibilityViolations(page), shot).toEqual([]);
      };
      try {
        mkdirSync('.test-output', { recursive: true });
        await page.goto(`${url}/`);
        await Promise.all([
          page.waitForLoadState(),
          page.click(`#libraries a:has-text("${libraryName}")`),
        ]);
        await check('library');
        // The hierarchy opens without script: Equipment, then Pump under it.
        const tree = page.locator('#hierarchy');
        await tree.locator(`summary:has-text("of ${equipment.name}")`).click();
        await Promise.all([
          page.waitForLoadState(),
          tree.locator(`a:has-text("${pump.name}")`).click(),
        ]);
        expect(await page.locator('h1').innerText()).toBe(pump.name);
        await page.goBack();
        await Promise.all([
          page.waitForLoadState(),
          page.click(`#term-list a:has-text("${picklist.name}")`),
        ]);
        expect(await page.locator('#picklist-values').innerText()).toContain('Gland packing');
        await check('picklist');
        await page.goBack();
        await Promise.all([
          page.waitForLoadState(),
          page.click(`#term-list a:has-text("${block.name}")`),
        ]);
        const terminals = await page.locator('#imf-terminals').innerText();
        expect(terminals).toContain(terminal.name);
        expect(terminals).toContain('→ in');
        await check('imf-block');
        await Promise.all([page.waitForLoadState(), page.click('header a:has-text("Symbols")')]);
        await check('symbols');
        await Promise.all([
          page.waitForLoadState(),
          page.click(`#symbol-gallery a:has-text("${symbol.name}")`),
        ]);
        const drawing = await page.locator('#symbol-drawing svg').boundingBox();
        expect(drawing?.width).toBeGreaterThan(100);
        expect(await page.locator('#symbol-drawing .connection-point').count()).toBe(2);
        await check('symbol');
        // And on a wide screen.
        await page.setViewportSize({ width: 1280, height: 900 });
        await page.screenshot({ path: '.test-output/refdata-symbol-1280.png', fullPage: true });
        await page.goto(`${url}/search?q=pump`);
        await page.screenshot({ path: '.test-output/refdata-search-1280.png', fullPage: true });
        expect(await accessibilityViolations(page)).toEqual([]);
      } finally {
        await context.close();
      }
    });
  },
);
