/**
 * The query page as people use it: without script (a form, the answer as a
 * table with links to the resources' pages), with script under the page's own
 * Content Security Policy (the editor served from refdata, keyboard use), each
 * example answering on real data, the working view for readers only. Checked
 * for accessibility at 1280 and 375 px, and screenshotted.
 */
import { mkdirSync } from 'node:fs';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
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
} from './chromium.js';

const OUTPUT = '.test-output';
const IMF = 'http://ns.imfid.org/imf#';

describe.skipIf(!browserAvailable)(
  `refdata's query page${browserAvailable ? '' : ` (skipped: ${browserSkipReason})`}`,
  () => {
    let browser: Browser;
    let service: Refdata & { url: string };
    const made: Record<string, string> = {};

    beforeAll(async () => {
      mkdirSync(OUTPUT, { recursive: true });
      browser = await launchChromium();
      service = await startListeningRefdata();
      const ontology = await createLibrary(service, { name: 'Rotating equipment' });
      await approve(service, ontology);
      const published = async (route: string, body: Record<string, unknown>) => {
        const resource = await create(service, route, { ontology, ...body });
        await approve(service, resource.iri);
        return resource.iri;
      };
      made.root = await published('/rdl/terms/subclass', {
        name: 'Rotating machine',
        subClassOf: ['http://example.org/Equipment'],
      });
      made.pump = await published('/rdl/terms/subclass', {
        name: 'Pump',
        subClassOf: [made.root],
      });
      made.centrifugal = await published('/rdl/terms/subclass', {
        name: 'Centrifugal pump',
        subClassOf: [made.pump],
      });
      made.draft = (
        await create(service, '/rdl/terms/subclass', {
          ontology,
          name: 'Screw pump',
          subClassOf: [made.pump],
        })
      ).iri;
      made.picklist = await published('/cfihos/picklist', {
        name: 'Seal type',
        subClassOf: 'http://example.org/Picklist',
        picklistValues: [
          { name: 'Mechanical seal', description: 'Faces pressed together' },
          { name: 'Packing', description: 'Braided rings' },
        ],
      });
      made.dimension = await published('/cfihos/dimension', {
        name: 'Pressure',
        dimensionCode: 'P',
      });
      made.unit = await published('/cfihos/unitofmeasure', {
        name: 'Bar',
        dimensionRef: made.dimension,
        measurementSystem: 'SI',
        symbol: 'bar',
      });
      made.property = await published('/general/property', {
        name: 'Seal kind',
        types: ['controlledText'],
        range: made.picklist,
      });
      made.entity = await published('/cfihos/entity', {
        name: 'Pump equipment class',
        entityType: 'equipment',
        propertyReferences: [{ propertyUri: made.property, minCardinality: 1, maxCardinality: 1 }],
      });
      made.attribute = await published('/imf/attributetypes', {
        name: 'Flow rate',
        predicate: 'http://example.org/flowRate',
      });
      made.terminal = await published('/imf/terminaltypes', {
        name: 'Outlet',
        aspect: `${IMF}productAspect`,
        direction: 'output',
        referenceTerms: [],
        attributeReferences: [],
      });
      made.block = await published('/imf/blocktypes', {
        name: 'Pump block',
        aspect: `${IMF}functionAspect`,
        referenceTerms: [],
        attributeReferences: [{ entityUri: made.attribute, minCardinality: 0 }],
        terminalReferences: [{ entityUri: made.terminal, minCardinality: 1, maxCardinality: 2 }],
        hasPartBlockReferences: [],
      });
    });
    afterAll(async () => {
      await browser?.close();
      await service?.close();
    });

    async function signIn(page: Page) {
      await page.goto(`${service.url}/sign-in`);
      await page.fill('#token', await service.token(['Reader']));
      await Promise.all([
        page.waitForURL((url) => url.pathname !== '/sign-in/token'),
        page.click('button:has-text("Sign in with token")'),
      ]);
    }

    const cells = (page: Page) => page.locator('#answer-table tbody td').allInnerTexts();

    it('answers without script: an example filled in with real data, run, its rows linked to their pages', async () => {
      const context = await browser.newContext({ javaScriptEnabled: false });
      const page = await context.newPage();
      try {
        await page.goto(`${service.url}/query`);
        await page.click('a:has-text("Classes under a class, with their labels")');
        // The example is about a class the data holds, not a placeholder.
        expect(await page.inputValue('#query-text')).toMatch(/VALUES \?root \{ <https?:\/\//);
        expect(await page.inputValue('#query-text')).not.toContain('replace-with-an-iri');
        await page.click('button:has-text("Run query")');
        const texts = (await cells(page)).join('\n');
        expect(texts).toContain('Pump');
        expect(texts).toContain('Centrifugal pump');
        // A Draft is not published.
        expect(texts).not.toContain('Screw pump');
        await Promise.all([
          page.waitForURL((url) => url.pathname === new URL(made.centrifugal ?? '').pathname),
          page.locator('#answer-table tr', { hasText: 'Centrifugal pump' }).locator('a').click(),
        ]);
        expect(await page.locator('h1').innerText()).toContain('Centrifugal pump');
      } finally {
        await context.close();
      }
    });

    it('answers every example on the data it holds', async () => {
      const context = await browser.newContext({ javaScriptEnabled: false });
      const page = await context.newPage();
      const expected: Record<string, string[]> = {
        'class-properties': ['Seal kind', '1', 'Seal type'],
        'picklist-values': ['Mechanical seal', 'Packing'],
        'block-terminals-attributes': ['terminal', 'Outlet', 'attribute', 'Flow rate'],
        'units-by-dimension': ['Pressure', 'Bar', 'bar'],
      };
      try {
        for (const [key, words] of Object.entries(expected)) {
          await page.goto(`${service.url}/query?example=${key}`);
          await page.click('button:has-text("Run query")');
          const texts = (await cells(page)).join('\n');
          for (const word of words) expect(texts, key).toContain(word);
        }
      } finally {
        await context.close();
      }
    });

    it('becomes an editor under the page’s own policy, used from the keyboard', async () => {
      const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
      const page = await context.newPage();
      const refused: string[] = [];
      page.on('console', (message) => {
        if (message.type() === 'error') refused.push(message.text());
      });
      try {
        await page.goto(`${service.url}/query?example=units-by-dimension`);
        await page.locator('.CodeMirror').waitFor();
        expect(await page.locator('#query-text').isHidden()).toBe(true);
        // The label names the editor's input; Tab leaves it for the next control.
        await page.click('label[for="query-editor-input"]');
        await page.keyboard.press('Control+End');
        await page.keyboard.type(' LIMIT 1');
        await page.keyboard.press('Tab');
        expect(await page.evaluate('document.activeElement?.textContent')).toBe('Run query');
        await page.keyboard.press('Enter');
        await page.waitForURL(/query=/);
        expect(new URL(page.url()).searchParams.get('query')).toMatch(/LIMIT 1$/);
        expect((await cells(page)).join('\n')).toContain('Bar');
        expect(refused).toEqual([]);
        await page.screenshot({ path: `${OUTPUT}/refdata-query-editor-1280.png`, fullPage: true });
      } finally {
        await context.close();
      }
    });

    it('says what is wrong with a query, and offers readers the working view only', async () => {
      const context = await browser.newContext({ javaScriptEnabled: false });
      const page = await context.newPage();
      try {
        const broken = await page.goto(
          `${service.url}/query?query=${encodeURIComponent('SELECT ?x WHERE { ?x ?p ')}`,
        );
        expect(broken?.status()).toBe(400);
        expect(await page.locator('#query-error').innerText()).toMatch(/^Line 1, column \d+: /);
        // The query stays in the box, to be mended.
        expect(await page.inputValue('#query-text')).toBe('SELECT ?x WHERE { ?x ?p ');
        expect(await page.locator('#query-view').count()).toBe(0);
        const refused = await page.goto(`${service.url}/query?query=ASK%7B%7D&view=working`);
        expect(refused?.status()).toBe(403);
        await signIn(page);
        await page.goto(`${service.url}/query?example=subtree`);
        await page.selectOption('#query-view', 'working');
        await page.click('button:has-text("Run query")');
        expect((await cells(page)).join('\n')).toContain('Screw pump');
      } finally {
        await context.close();
      }
    });

    for (const width of [1280, 375]) {
      it(`is accessible at ${width} px, with an answer and with an error`, async () => {
        // bypassCSP only so the accessibility engine can be injected.
        const context = await browser.newContext({
          bypassCSP: true,
          viewport: { width, height: 900 },
        });
        const page = await context.newPage();
        try {
          await page.goto(`${service.url}/query?example=class-properties`);
          await page.locator('.CodeMirror').waitFor();
          await page.click('button:has-text("Run query")');
          await page.locator('#answer-table').waitFor();
          expect(await accessibilityViolations(page)).toEqual([]);
          const scrollWidth = await page.evaluate('document.documentElement.scrollWidth');
          expect(scrollWidth).toBeLessThanOrEqual(width);
          await page.screenshot({ path: `${OUTPUT}/refdata-query-${width}.png`, fullPage: true });
          await page.goto(`${service.url}/query?query=${encodeURIComponent('SELECT ?x WHERE {')}`);
          expect(await accessibilityViolations(page)).toEqual([]);
          await page.screenshot({
            path: `${OUTPUT}/refdata-query-error-${width}.png`,
            fullPage: true,
          });
          // A long query, and a line longer than the page: the editor grows and wraps, and
          // what would scroll is reachable from the keyboard.
          const long = `SELECT ?x WHERE {\n${Array.from({ length: 60 }, (_, n) => `  ?x <https://rdl.example.org/${'very-long-segment/'.repeat(n % 7 === 0 ? 20 : 1)}p${n}> ?o${n} .`).join('\n')}\n}`;
          await page.goto(`${service.url}/query?query=${encodeURIComponent(long)}`);
          await page.locator('.CodeMirror').waitFor();
          expect(await accessibilityViolations(page)).toEqual([]);
          // An answer of literals alone, wider than the page: its region takes the focus.
          const wide = `SELECT * WHERE { ${Array.from({ length: 12 }, (_, n) => `BIND("a literal value wider than a column ${n}" AS ?column${n})`).join(' ')} }`;
          await page.goto(`${service.url}/query?query=${encodeURIComponent(wide)}`);
          await page.locator('#answer-table').waitFor();
          expect(await accessibilityViolations(page)).toEqual([]);
          await page.screenshot({
            path: `${OUTPUT}/refdata-query-wide-${width}.png`,
            fullPage: true,
          });
        } finally {
          await context.close();
        }
      });
    }
  },
);
