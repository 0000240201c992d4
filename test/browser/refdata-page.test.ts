import { mkdirSync, readFileSync } from 'node:fs';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../codehost/helpers.js';
import {
  create,
  createLibrary,
  iriQuery,
  type Refdata,
  startRefdata,
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
      const port = await freePort();
      url = `http://127.0.0.1:${port}`;
      service = await startRefdata('sqlite', {
        REFDATA_PUBLIC_URL: url,
        REFDATA_PORT: String(port),
      });
      await service.app.listen({ host: '127.0.0.1', port });
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
          `${url}${pump.iri.slice(service.config.refdata.iriBase.length)}`,
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
        expect(links).toContain(`${url}${ontology.slice(service.config.refdata.iriBase.length)}`);
        // The name was text, not markup: no script ran.
        expect(await page.locator('script').count()).toBe(0);
        await page.click(
          `#statements a[href="${url}${ontology.slice(service.config.refdata.iriBase.length)}"]`,
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
        await page.goto(`${url}${library.slice(service.config.refdata.iriBase.length)}`);
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
      for (const iri of [library, term.iri]) {
        await service.call('PUT', `/status/submit?${iriQuery(iri)}`);
        await service.call('PUT', `/status/approve?${iriQuery(iri)}`, {
          roles: ['Reviewer'],
          body: { justification: 'Agreed' },
        });
      }
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
        await page.check('input[name="status"][value="Approved"]');
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
  },
);
