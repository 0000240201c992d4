import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SERVICES_UNDER_TEST } from '../error-shapes.js';
import { baseUrl, startTestService, type TestService } from '../harness.js';
import {
  browserAvailable,
  browserSkipReason,
  getOperation,
  launchChromium,
  tryItOut,
} from './chromium.js';

describe.skipIf(!browserAvailable)(
  `API documentation pages in Chromium${browserAvailable ? '' : ` (skipped: ${browserSkipReason})`}`,
  () => {
    let browser: Browser;
    beforeAll(async () => {
      browser = await launchChromium();
    });
    afterAll(async () => browser?.close());

    describe.each(SERVICES_UNDER_TEST)('$definition.name /docs', ({ definition }) => {
      let service: TestService;
      beforeAll(async () => {
        service = await startTestService(definition, 'sqlite', { listen: true });
      });
      afterAll(async () => service?.close());

      it("renders the API description with the service's operations, within its CSP", async () => {
        const page = await browser.newPage();
        const problems: string[] = [];
        page.on('console', (message) => {
          if (message.type() === 'error') problems.push(message.text());
        });
        page.on('pageerror', (error) => problems.push(error.message));
        try {
          await page.goto(`${baseUrl(service)}/docs`);
          const title = page.locator('.swagger-ui .info .title');
          await title.waitFor({ timeout: 15_000 });
          expect(await title.innerText()).toContain(definition.name);
          const paths = await page.locator('.opblock-summary-path').allInnerTexts();
          expect(paths.map((path) => path.replace(/\u200b/g, ''))).toEqual(
            expect.arrayContaining(['/-/health', '/-/ready']),
          );
          // Content-Security-Policy violations and script errors show up here.
          expect(problems).toEqual([]);
        } finally {
          await page.close();
        }
      });

      // Swagger UI lays out the whole description before anything can be clicked:
      // on a machine busy with the rest of the suite that alone has taken 15 s.
      it('has a working Authorize, and Try it out reaches the server at the address the page was opened at', {
        timeout: 60_000,
      }, async () => {
        const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
        try {
          // Opened at 127.0.0.1, while the configured public address says localhost.
          await page.goto(`${baseUrl(service)}/docs`);
          await page.locator('.swagger-ui .info .title').waitFor({ timeout: 45_000 });
          await page.locator('button.authorize').click();
          const dialog = page.locator('.dialog-ux .modal-ux');
          await dialog.waitFor();
          const schemes = await dialog.locator('h4, h6').allInnerTexts();
          expect(schemes.join(' ')).toContain(definition.name === 'codehost' ? 'oauth2' : 'bearer');
          await page.screenshot({ path: `.test-output/docs-authorize-${definition.name}.png` });
          await dialog.locator('button.close-modal').click();

          expect(await tryItOut(page, '/-/health')).toBe('200');
          const requestUrl = await getOperation(page, '/-/health')
            .locator('.request-url pre')
            .innerText();
          expect(requestUrl.trim()).toBe(`${baseUrl(service)}/-/health`);
        } finally {
          await page.close();
        }
      });
    });
  },
);
