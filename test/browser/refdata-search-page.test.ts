/**
 * The search page as each kind of visitor sees it: signed out, signed in with
 * a token that holds Reader only, and as a Creator. Each hit's label,
 * description and library come from the search index alone; Drafts are shown
 * to people who are signed in. Every view is checked for accessibility at 1280
 * and 375 px, and screenshotted.
 */
import { mkdirSync } from 'node:fs';
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
} from './chromium.js';

const OUTPUT = '.test-output';

describe.skipIf(!browserAvailable)(
  `refdata's search page for each visitor${browserAvailable ? '' : ` (skipped: ${browserSkipReason})`}`,
  () => {
    let browser: Browser;
    let service: Refdata & { url: string };
    beforeAll(async () => {
      mkdirSync(OUTPUT, { recursive: true });
      browser = await launchChromium();
      service = await startListeningRefdata();
      const library = await createLibrary(service, { name: 'Sealing library' });
      await approve(service, library, 'Reviewed');
      const published = await create(service, '/rdl/terms/subclass', {
        name: 'Labyrinth seal',
        description: 'A seal without contact, for <turbines> & compressors',
        ontology: library,
        subClassOf: ['http://example.org/E'],
      });
      await approve(service, published.iri, 'Reviewed');
      await create(service, '/rdl/terms/subclass', {
        name: 'Labyrinth seal ring',
        description: 'Still being written',
        ontology: library,
        subClassOf: ['http://example.org/E'],
      });
    });
    afterAll(async () => {
      await browser?.close();
      await service?.close();
    });

    async function signIn(page: Page, roles: Role[]) {
      await page.goto(`${service.url}/sign-in`);
      await page.fill('#token', await service.token(roles));
      await Promise.all([
        page.waitForURL((url) => url.pathname !== '/sign-in/token'),
        page.click('button:has-text("Sign in with token")'),
      ]);
    }

    it('shows the header search’s whole placeholder at 1280 px, signed in with a name of any length', async () => {
      const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
      const page = await context.newPage();
      try {
        // Each length squeezes the header differently, until the account wraps.
        for (let length = 3; length <= 45; length += 3) {
          const name = 'Alexandra Konstantinopoulou-Papadimitriou'.padEnd(45, 'x').slice(0, length);
          await page.goto(`${service.url}/sign-in`);
          await page.fill('#token', await service.token(['Creator', 'Reviewer'], name));
          await Promise.all([
            page.waitForURL((url) => url.pathname !== '/sign-in/token'),
            page.click('button:has-text("Sign in with token")'),
          ]);
          const { needed, room } = (await page.evaluate(`(() => {
            const input = document.querySelector('#site-search');
            const style = getComputedStyle(input);
            const context = document.createElement('canvas').getContext('2d');
            context.font = style.font;
            return {
              needed: context.measureText(input.placeholder).width,
              room: input.clientWidth - parseFloat(style.paddingLeft) - parseFloat(style.paddingRight),
            };
          })()`)) as { needed: number; room: number };
          if (needed > room) {
            await page.screenshot({ path: `${OUTPUT}/refdata-header-cut-1280.png` });
          }
          expect(needed, name).toBeLessThanOrEqual(room);
          await Promise.all([
            page.waitForURL(/done=signed_out/),
            page.click('header button:has-text("Sign out")'),
          ]);
        }
      } finally {
        await context.close();
      }
    });

    for (const [visitor, roles] of [
      ['signed-out', undefined],
      ['reader', ['Reader']],
      ['creator', ['Creator']],
      ['reviewer', ['Creator', 'Reviewer']],
    ] as const satisfies readonly (readonly [string, readonly Role[] | undefined])[]) {
      it(`shows ${visitor} the hits from the index, accessible at 1280 and 375 px`, async () => {
        // bypassCSP only so the accessibility engine can be injected.
        const context = await browser.newContext({ bypassCSP: true });
        const page = await context.newPage();
        try {
          if (roles) await signIn(page, [...roles]);
          for (const width of [1280, 375]) {
            await page.setViewportSize({ width, height: 900 });
            await page.goto(`${service.url}/search?q=labyrinth`);
            const results = page.locator('main li');
            const text = await results.allInnerTexts();
            expect(text.join('\n')).toContain('Labyrinth seal');
            expect(text.join('\n')).toContain(
              'A seal without contact, for <turbines> & compressors',
            );
            expect(text.join('\n')).toContain('Sealing library');
            // Drafts are shown to people who are signed in.
            expect(text.join('\n').includes('Labyrinth seal ring'), visitor).toBe(
              roles !== undefined,
            );
            expect(await accessibilityViolations(page)).toEqual([]);
            const scrollWidth = await page.evaluate(
              () =>
                (
                  globalThis as unknown as {
                    document: { documentElement: { scrollWidth: number } };
                  }
                ).document.documentElement.scrollWidth,
            );
            expect(scrollWidth).toBeLessThanOrEqual(width);
            await page.screenshot({
              path: `${OUTPUT}/refdata-search-${visitor}-${width}.png`,
              fullPage: true,
            });
          }
        } finally {
          await context.close();
        }
      });
    }
  },
);
