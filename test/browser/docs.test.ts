import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SERVICES_UNDER_TEST } from '../error-shapes.js';
import { baseUrl, startTestService, type TestService } from '../harness.js';
import { browserAvailable, browserSkipReason, launchChromium } from './chromium.js';

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
    });
  },
);
