import { existsSync } from 'node:fs';
import { type Browser, chromium, type Locator, type Page } from 'playwright-core';

/** Debian's chromium; CHROMIUM_PATH points elsewhere when it lives elsewhere. */
export const CHROMIUM_PATH = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

/**
 * Browser suites run whenever Chromium is installed. Without it they are skipped
 * with this reason, unless REQUIRE_BROWSER=1 (CI), in which case they fail.
 */
export const browserAvailable = existsSync(CHROMIUM_PATH) || process.env.REQUIRE_BROWSER === '1';
export const browserSkipReason = `Chromium not found at ${CHROMIUM_PATH}; install Debian's chromium or set CHROMIUM_PATH`;

export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM_PATH,
    headless: true,
    // The machine's network is closed: without these Chromium keeps trying to
    // reach Google's services in the background.
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
}

/**
 * axe-core's WCAG 2.1 A and AA rules on the page as it is now; returns each
 * violation as "rule: target". Pages carry a strict CSP, so the context that
 * runs this needs `bypassCSP: true` to inject the engine.
 */
export async function accessibilityViolations(page: Page): Promise<string[]> {
  const { source } = (await import('axe-core')).default;
  await page.addScriptTag({ content: source });
  const results = (await page.evaluate(() =>
    (
      globalThis as unknown as {
        axe: { run(context: unknown, options: unknown): Promise<unknown> };
      }
    ).axe.run((globalThis as unknown as { document: unknown }).document, {
      runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21aa', 'best-practice'] },
    }),
  )) as { violations: { id: string; nodes: { target: string[] }[] }[] };
  return results.violations.flatMap((violation) =>
    violation.nodes.map((node) => `${violation.id}: ${node.target.join(' ')}`),
  );
}

/**
 * What the browser says the pages' Content Security Policy blocked, from now
 * on: a page walked under the enforced policy (no `bypassCSP`) must leave this empty.
 */
export function policyViolations(page: Page): string[] {
  const violations: string[] = [];
  page.on('console', (message) => {
    if (/Content Security Policy/i.test(message.text())) violations.push(message.text());
  });
  return violations;
}

/**
 * Swagger UI's "Try it out" on one GET operation of `/docs` (a parameterless
 * one): opens it, sends it, and returns the status the page shows.
 */
export async function tryItOut(page: Page, path: string): Promise<string> {
  const operation = getOperation(page, path);
  await operation.locator('.opblock-summary').click();
  await operation.locator('button.try-out__btn').click();
  await operation.locator('button.execute').click();
  const status = operation.locator('.live-responses-table .response .response-col_status').first();
  await status.waitFor({ timeout: 10_000 });
  return (await status.innerText()).trim();
}

/** The operation of `/docs` for a GET of `path`. */
export function getOperation(page: Page, path: string): Locator {
  return page.locator('.opblock-get').filter({ has: page.locator(`[data-path="${path}"]`) });
}
