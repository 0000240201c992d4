/**
 * The webhook pages as a person uses them in Chromium: making a webhook
 * (a refused URL said beside its field, the secret shown once with a Copy
 * button), deliveries arriving at a real receiver and listed in the log with
 * each attempt, "Send again", pause and delete; keyboard use, the axe-core
 * check at 1280 and 375 px, and screenshots.
 */
import { mkdirSync } from 'node:fs';
import type { Browser, Page } from 'playwright-core';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { create, createLibrary, type Refdata, startListeningRefdata } from '../refdata/helpers.js';
import { LOOPBACK_ALLOWED, Receiver } from '../refdata/webhook-receiver.js';
import {
  accessibilityViolations,
  browserAvailable,
  browserSkipReason,
  launchChromium,
} from './chromium.js';

const OUTPUT = '.test-output';

describe.skipIf(!browserAvailable)(
  `refdata's webhook pages${browserAvailable ? '' : ` (skipped: ${browserSkipReason})`}`,
  () => {
    let browser: Browser;
    let service: Refdata & { url: string };
    let receiver: Receiver;
    let library = '';

    beforeAll(async () => {
      mkdirSync(OUTPUT, { recursive: true });
      browser = await launchChromium();
      receiver = await Receiver.start();
      service = await startListeningRefdata({
        ...LOOPBACK_ALLOWED,
        REFDATA_WEBHOOK_POLL_MS: '50',
      });
      library = await createLibrary(service, { name: 'Rotating equipment' });
    });
    afterAll(async () => {
      await browser?.close();
      await service?.close();
      await receiver?.close();
    });

    async function signIn(page: Page) {
      await page.goto(`${service.url}/sign-in`);
      await page.fill('#token', await service.token(['Reader'], 'alice'));
      await Promise.all([
        page.waitForURL((url) => url.pathname !== '/sign-in/token'),
        page.click('button:has-text("Sign in with token")'),
      ]);
    }

    async function press(page: Page, selector: string) {
      await Promise.all([page.waitForLoadState(), page.click(selector)]);
    }

    it('makes a webhook, shows its secret once, logs its deliveries and sends one again', async () => {
      // bypassCSP only so the accessibility engine can be injected.
      const context = await browser.newContext({
        viewport: { width: 1280, height: 900 },
        bypassCSP: true,
      });
      const page = await context.newPage();
      await signIn(page);
      await page.click('nav.site a:has-text("Webhooks")');
      await page.waitForURL(/\/account\/webhooks$/);
      expect(await page.textContent('main')).toContain('You have no webhooks yet');
      expect(await accessibilityViolations(page)).toEqual([]);
      await press(page, 'a:has-text("New webhook")');

      // A URL to an inside address is refused, said beside the field, and what was typed kept.
      await page.fill('#url', 'http://10.0.0.7/hooks');
      await page.fill('#description', 'Tyle sync');
      await press(page, 'button:has-text("Make webhook")');
      expect(await page.textContent('#url-error')).toContain('internal address');
      expect(await page.inputValue('#description')).toBe('Tyle sync');
      expect(await page.getAttribute('#url', 'aria-invalid')).toBe('true');
      expect(await accessibilityViolations(page)).toEqual([]);
      await page.screenshot({ path: `${OUTPUT}/refdata-webhook-refused.png`, fullPage: true });

      // With the keyboard: the URL typed, an event and the library ticked with Space.
      await page.fill('#url', receiver.url);
      await page.focus('#events-0');
      await page.keyboard.press('Space');
      await page.check('label:has-text("Rotating equipment")');
      await press(page, 'button:has-text("Make webhook")');
      const secret = (await page.getAttribute('#signing-secret', 'data-copy-text')) ?? '';
      expect(secret).toMatch(/^whsec_/);
      expect(await page.textContent('main')).toContain('not shown again');
      await page.screenshot({ path: `${OUTPUT}/refdata-webhook-secret.png`, fullPage: true });
      const address = new URL(
        (await page.getAttribute('form[action$="/pause"]', 'action')) ?? '',
        service.url,
      ).pathname.replace(/\/pause$/, '');

      // An event arrives, signed with that secret, and is in the log.
      await create(service, '/rdl/terms/subclass', {
        name: 'Pump',
        ontology: library,
        subClassOf: ['http://x.example/Equipment'],
      });
      await receiver.until((received) => received.length >= 1);
      const [first] = receiver.received;
      expect(() =>
        new Webhook(secret).verify(first?.body ?? '', first?.headers as Record<string, string>),
      ).not.toThrow();
      await page.goto(`${service.url}${address}`);
      // The secret is not on the page any more.
      expect(await page.$('#signing-secret')).toBeNull();
      expect(await page.textContent('#deliveries + ol')).toContain('resource.created');
      expect(await page.textContent('#deliveries + ol')).toContain('Delivered');
      await page.click('summary:has-text("Request and answers")');
      expect(await page.textContent('ol.deliveries details')).toContain('webhook-signature: v1,');
      expect(await accessibilityViolations(page)).toEqual([]);
      await page.screenshot({ path: `${OUTPUT}/refdata-webhook-log.png`, fullPage: true });

      // Send again: the receiver gets the same webhook-id a second time.
      await press(page, 'button:has-text("Send again")');
      await receiver.until((received) => received.length >= 2);
      expect(receiver.received[1]?.headers['webhook-id']).toBe(first?.headers['webhook-id']);
      expect(await page.textContent('main')).toContain('being sent again');

      // At 375 px nothing is wider than the screen.
      await page.setViewportSize({ width: 375, height: 800 });
      await page.reload();
      const width = await page.evaluate('document.documentElement.scrollWidth');
      expect(width).toBeLessThanOrEqual(375);
      expect(await accessibilityViolations(page)).toEqual([]);
      await page.screenshot({ path: `${OUTPUT}/refdata-webhook-375.png`, fullPage: true });

      // Paused, then deleted.
      await press(page, 'button:has-text("Pause")');
      expect(await page.textContent('main')).toContain('State: Paused');
      await press(page, 'button:has-text("Delete webhook")');
      expect(await page.textContent('main')).toContain('The webhook was deleted');
      expect(await page.textContent('main')).toContain('You have no webhooks yet');
      await context.close();
    });

    it('serves a returning person under the pages\u2019 own security policy', async () => {
      // No bypass here: the Content Security Policy is enforced, as in any browser.
      const context = await browser.newContext();
      const problems: string[] = [];
      const watch = (page: Page) => {
        page.on('console', (message) => {
          if (message.type() === 'error') problems.push(message.text());
        });
        page.on('pageerror', (error) => problems.push(error.message));
      };
      const first = await context.newPage();
      watch(first);
      await signIn(first);
      await first.goto(`${service.url}/account/webhooks/new`);
      await first.fill('#url', `${receiver.url}/returning`);
      await press(first, 'button:has-text("Make webhook")');
      // The secret's Copy button comes from the pages' own script, allowed by the policy.
      await first.waitForSelector('button:has-text("Copy secret")');
      await first.close();
      // Back later in the same browser: still signed in, straight to the list and the webhook.
      const later = await context.newPage();
      watch(later);
      await later.goto(`${service.url}/account/webhooks`);
      expect(new URL(later.url()).pathname).toBe('/account/webhooks');
      expect(await later.textContent('main')).toContain(`${receiver.url}/returning`);
      await press(later, `a:has-text("${receiver.url}/returning")`);
      expect(await later.textContent('main')).toContain('State: Active');
      expect(await later.$('#signing-secret')).toBeNull();
      expect(problems).toEqual([]);
      await press(later, 'button:has-text("Delete webhook")');
      await context.close();
    });

    it('works without script, and keeps others out', async () => {
      const context = await browser.newContext({ javaScriptEnabled: false });
      const page = await context.newPage();
      await signIn(page);
      await page.goto(`${service.url}/account/webhooks/new`);
      await page.fill('#url', receiver.url);
      await press(page, 'button:has-text("Make webhook")');
      expect(await page.textContent('#signing-secret')).toMatch(/^whsec_/);
      // Redirected after the post: reloading shows the webhook, makes no second one, and
      // the secret is not shown again.
      const list = await service.call('GET', '/webhooks', { roles: ['Reader'] });
      const [made] = list.json();
      expect(new URL(page.url()).pathname).toBe(`/account/webhooks/${made.id}`);
      await page.reload();
      expect(await page.$('#signing-secret')).toBeNull();
      expect(await page.textContent('main')).toContain('State: Active');
      expect((await service.call('GET', '/webhooks', { roles: ['Reader'] })).json()).toHaveLength(
        1,
      );
      // Someone else opening it gets "not found".
      const other = await browser.newContext();
      const stranger = await other.newPage();
      await stranger.goto(`${service.url}/sign-in`);
      await stranger.fill('#token', await service.token(['Reader'], 'mallory'));
      await Promise.all([
        stranger.waitForURL((url) => url.pathname !== '/sign-in/token'),
        stranger.click('button:has-text("Sign in with token")'),
      ]);
      const response = await stranger.goto(`${service.url}/account/webhooks/${made.id}`);
      expect(response?.status()).toBe(404);
      // A visitor is asked to sign in.
      const visitor = await browser.newContext();
      const anonymous = await visitor.newPage();
      await anonymous.goto(`${service.url}/account/webhooks`);
      expect(new URL(anonymous.url()).pathname).toBe('/sign-in');
      await Promise.all([context.close(), other.close(), visitor.close()]);
    });
  },
);
