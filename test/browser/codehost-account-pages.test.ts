import { mkdirSync, readFileSync } from 'node:fs';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { currentCode, TwoFactorStore } from '../../src/codehost/accounts/two-factor.js';
import { MemberStore } from '../../src/codehost/namespaces/members.js';
import {
  apiToken,
  type Codehost,
  createApplication,
  createGroup,
  createProject,
  createUser,
  startCodehost,
} from '../codehost/helpers.js';
import {
  accessibilityViolations,
  browserAvailable,
  browserSkipReason,
  launchChromium,
} from './chromium.js';

const OUTPUT = '.test-output';

async function signIn(page: Page, url: string, login: string, password: string): Promise<void> {
  await page.goto(`${url}/users/sign_in`);
  await page.fill('#login', login);
  await page.fill('#password', password);
  await Promise.all([page.waitForLoadState(), page.click('button:has-text("Sign in")')]);
}

/** Submits the form a button belongs to and waits for the page that answers. */
async function press(page: Page, selector: string): Promise<void> {
  await Promise.all([page.waitForLoadState(), page.click(selector)]);
}

async function pageWidth(page: Page): Promise<number> {
  return page.evaluate(
    () =>
      (globalThis as unknown as { document: { documentElement: { scrollWidth: number } } }).document
        .documentElement.scrollWidth,
  );
}

describe.skipIf(!browserAvailable)(
  `codehost account pages in Chromium${browserAvailable ? '' : ` (skipped: ${browserSkipReason})`}`,
  () => {
    let browser: Browser;
    let service: Codehost;
    beforeAll(async () => {
      browser = await launchChromium();
      service = await startCodehost('sqlite', { listen: true });
      mkdirSync(OUTPUT, { recursive: true });
    });
    afterAll(async () => {
      await browser?.close();
      await service?.close();
    });

    async function context(width = 1024): Promise<BrowserContext> {
      // bypassCSP only so the accessibility engine can be injected.
      return browser.newContext({ viewport: { width, height: 800 }, bypassCSP: true });
    }

    it('edits the profile, which the API then returns, and adds an address used for notifications', async () => {
      const user = await createUser(service);
      const browserContext = await context();
      const page = await browserContext.newPage();
      try {
        await signIn(page, service.url, user.username, user.password);
        await page.goto(`${service.url}/profile/emails`);
        await page.fill('#email', `work-${user.id}@example.org`);
        await press(page, 'button:has-text("Add email address")');
        expect(await page.locator('#emails').innerText()).toContain(`work-${user.id}@example.org`);

        await page.click('a:has-text("Notifications")');
        await page.selectOption('#notification_email', `work-${user.id}@example.org`);
        await press(page, '#global-save');
        expect(await page.locator('.notice.ok').innerText()).toContain('saved');

        await page.click('nav.settings a:has-text("Profile")');
        // A refused form keeps everything typed and says what is wrong beside the field.
        await page.fill('#name', 'Grace Hopper');
        await page.fill('#website_url', 'ftp://grace.example');
        await page.fill('#bio', 'Compilers');
        await press(page, 'button:has-text("Update profile settings")');
        expect(await page.locator('#website_url-error').innerText()).toContain('http://');
        expect(await page.inputValue('#name')).toBe('Grace Hopper');
        expect(await page.inputValue('#bio')).toBe('Compilers');
        expect(await accessibilityViolations(page)).toEqual([]);
        await page.fill('#website_url', 'https://grace.example');
        await page.selectOption('#public_email', `work-${user.id}@example.org`);
        await press(page, 'button:has-text("Update profile settings")');
        expect(await page.locator('.notice.ok').innerText()).toContain('updated');

        const token = await apiToken(service, user.id);
        const me = (await (
          await fetch(`${service.url}/api/v3/user`, { headers: { 'private-token': token } })
        ).json()) as Record<string, string>;
        expect(me).toMatchObject({
          name: 'Grace Hopper',
          website_url: 'https://grace.example',
          bio: 'Compilers',
          public_email: `work-${user.id}@example.org`,
        });
        const notifications = (await (
          await fetch(`${service.url}/api/v3/notification_settings`, {
            headers: { 'private-token': token },
          })
        ).json()) as Record<string, string>;
        expect(notifications.notification_email).toBe(`work-${user.id}@example.org`);

        // web_url is a page, and it shows what was just saved.
        await page.goto(me.web_url ?? '');
        expect(await page.locator('h1').innerText()).toBe('Grace Hopper');
        expect(await page.locator('dl.facts').innerText()).toContain('https://grace.example');
        expect(await accessibilityViolations(page)).toEqual([]);
      } finally {
        await browserContext.close();
      }
    });

    it('ends another session from the active-sessions page', async () => {
      const user = await createUser(service);
      const laptop = await context();
      const phone = await browser.newContext({
        userAgent:
          'Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.0 Mobile/15E148 Safari/604.1',
      });
      try {
        const here = await laptop.newPage();
        const there = await phone.newPage();
        await signIn(there, service.url, user.username, user.password);
        await signIn(here, service.url, user.username, user.password);
        await here.goto(`${service.url}/profile/active_sessions`);
        const table = await here.locator('#active-sessions').innerText();
        expect(table).toContain('This browser');
        expect(table).toContain('Safari 17 on iOS');
        expect(table).toMatch(/just now/);
        expect(await accessibilityViolations(here)).toEqual([]);
        await press(here, '#active-sessions button:has-text("End")');
        expect(await here.locator('.notice.ok').innerText()).toContain('The session was ended.');

        await there.goto(`${service.url}/profile`);
        expect(new URL(there.url()).pathname).toBe('/users/sign_in');
        await here.goto(`${service.url}/profile`);
        expect(new URL(here.url()).pathname).toBe('/profile');
      } finally {
        await laptop.close();
        await phone.close();
      }
    });

    it('offers, on turning two-factor on, to end the sessions that signed in with the password alone', async () => {
      const user = await createUser(service);
      const laptop = await context();
      const phone = await context(375);
      try {
        const here = await laptop.newPage();
        const there = await phone.newPage();
        await signIn(there, service.url, user.username, user.password);
        await signIn(here, service.url, user.username, user.password);
        await here.goto(`${service.url}/profile/two_factor_auth`);
        const secret = (await here.locator('#otp-secret').getAttribute('data-copy-text')) ?? '';
        await here.fill('#current_password', user.password);
        await here.fill('#pin_code', currentCode(secret));
        await press(here, 'button:has-text("Register")');
        const offer = here.locator('#password-only-sessions');
        expect(await offer.innerText()).toContain(
          'One other session is still signed in with your password alone',
        );
        await here.screenshot({
          path: `${OUTPUT}/codehost-two-factor-on-offer.png`,
          fullPage: true,
        });
        expect(await accessibilityViolations(here)).toEqual([]);
        await press(here, '#password-only-sessions button');
        expect(await here.locator('.notice.ok').innerText()).toMatch(/other sessions/i);
        // The phone's session, signed in with the password alone, is over.
        await there.goto(`${service.url}/profile`);
        expect(new URL(there.url()).pathname).toBe('/users/sign_in');
        await here.goto(`${service.url}/profile`);
        expect(new URL(here.url()).pathname).toBe('/profile');
      } finally {
        await laptop.close();
        await phone.close();
      }
    });

    it('goes on to the profile after a password change someone else required', async () => {
      const user = await createUser(service);
      await service.db
        .updateTable('users')
        .set({ password_change_required: 1 })
        .where('id', '=', user.id)
        .execute();
      const browserContext = await context();
      const page = await browserContext.newPage();
      try {
        await signIn(page, service.url, user.username, user.password);
        expect(new URL(page.url()).pathname).toBe('/profile/password/edit');
        await page.fill('#current_password', user.password);
        await page.fill('#new_password', 'a brand new passphrase 42');
        await page.fill('#password_confirmation', 'a brand new passphrase 42');
        await press(page, 'button[type="submit"]:has-text("password")');
        expect(new URL(page.url()).pathname).toBe('/profile');
        expect(await page.locator('.notice.ok').innerText()).toContain(
          'Your password was changed.',
        );
        expect(await accessibilityViolations(page)).toEqual([]);
      } finally {
        await browserContext.close();
      }
    });

    it('sets custom events on a project, as the API then reads them', async () => {
      const user = await createUser(service);
      const group = await createGroup(service, user.id, { name: 'Docs team' });
      const project = await createProject(service, user.id, group, { path: 'handbook' });
      const browserContext = await context();
      const page = await browserContext.newPage();
      try {
        await signIn(page, service.url, user.username, user.password);
        await page.goto(`${service.url}/profile/notifications`);
        expect(await page.locator('#project-settings').innerText()).toContain(
          'Docs team / handbook',
        );
        await page.selectOption(`#project-${project.id}-level`, 'custom');
        await press(page, `#project-${project.id}-save`);
        // Choosing custom opens the ten events.
        expect(new URL(page.url()).pathname).toBe(
          `/profile/notifications/projects/${project.id}/custom`,
        );
        expect(await page.locator('input[name="events"]').count()).toBe(10);
        expect(await accessibilityViolations(page)).toEqual([]);
        await page.check('label:has-text("Close issue") input');
        await page.check('label:has-text("Merge merge request") input');
        await press(page, 'button:has-text("Save events")');
        expect(await page.locator('.notice.ok').innerText()).toContain('saved');

        const token = await apiToken(service, user.id);
        const setting = await fetch(
          `${service.url}/api/v3/projects/${project.id}/notification_settings`,
          { headers: { 'private-token': token } },
        );
        expect(await setting.json()).toMatchObject({
          level: 'custom',
          events: { close_issue: true, merge_merge_request: true, new_issue: false },
        });
      } finally {
        await browserContext.close();
      }
    });

    it('regenerates recovery codes, downloads them, and signs in with a new one', async () => {
      const user = await createUser(service);
      const browserContext = await browser.newContext({ acceptDownloads: true, bypassCSP: true });
      const page = await browserContext.newPage();
      try {
        await signIn(page, service.url, user.username, user.password);
        await page.goto(`${service.url}/profile/two_factor_auth`);
        const box = await page.locator('#qr-code svg').boundingBox();
        expect(box?.width).toBeLessThanOrEqual(240);
        const secret = (await page.locator('#otp-secret').getAttribute('data-copy-text')) ?? '';
        await page.fill('#current_password', user.password);
        await page.fill('#pin_code', currentCode(secret));
        await press(page, 'button:has-text("Register")');
        const first = await page.locator('#recovery-codes code').allInnerTexts();

        await page.goto(`${service.url}/profile/two_factor_auth`);
        await page.fill('#codes_current_password', 'wrong password');
        await press(page, 'button:has-text("Regenerate recovery codes")');
        expect(await page.locator('.notice.error').innerText()).toContain('not correct');
        await page.fill('#codes_current_password', user.password);
        await press(page, 'button:has-text("Regenerate recovery codes")');
        const codes = await page.locator('#recovery-codes code').allInnerTexts();
        expect(codes).toHaveLength(10);
        expect(codes.some((code) => first.includes(code))).toBe(false);
        await page.screenshot({ path: `${OUTPUT}/codehost-recovery-codes.png`, fullPage: true });
        expect(await accessibilityViolations(page)).toEqual([]);

        const [download] = await Promise.all([
          page.waitForEvent('download'),
          page.click('#download-codes'),
        ]);
        expect(download.suggestedFilename()).toBe('codehost-recovery-codes.txt');
        const saved = `${OUTPUT}/recovery-codes-${user.id}.txt`;
        await download.saveAs(saved);
        expect(readFileSync(saved, 'utf8')).toBe(`${codes.join('\n')}\n`);

        await press(page, 'button:has-text("Sign out")');
        await signIn(page, service.url, user.username, user.password);
        await page.fill('#otp_attempt', first[0] ?? '');
        await press(page, 'button:has-text("Verify")');
        expect(new URL(page.url()).pathname).toBe('/users/sign_in/two_factor');
        await page.fill('#otp_attempt', codes[0] ?? '');
        await press(page, 'button:has-text("Verify")');
        expect(new URL(page.url()).pathname).not.toContain('sign_in');
      } finally {
        await browserContext.close();
      }
    });

    it('every page passes the accessibility check at 375 and 1280 px and fits 375 px without scrolling sideways', async () => {
      const user = await createUser(service);
      const member = await createUser(service);
      const group = await createGroup(service, user.id, {
        name: 'A group with a rather long name for a narrow screen',
        visibilityLevel: 20,
      });
      const project = await createProject(service, user.id, group, {
        path: 'a-project-with-a-long-path-name',
        visibilityLevel: 20,
      });
      await new MemberStore(service.db).add('project', project.id, member.id, 30);
      const application = await createApplication(service, user.id);
      const applicationRow = await service.db
        .selectFrom('oauth_applications')
        .select('id')
        .where('uid', '=', application.clientId)
        .executeTakeFirstOrThrow();
      await apiToken(service, user.id);
      const browserContext = await context(375);
      const page = await browserContext.newPage();
      try {
        const visit = async (path: string, name: string) => {
          await page.goto(`${service.url}${path}`);
          await page.screenshot({ path: `${OUTPUT}/codehost-375-${name}.png`, fullPage: true });
          expect(await accessibilityViolations(page), path).toEqual([]);
          expect(await pageWidth(page), path).toBeLessThanOrEqual(375);
        };
        await visit('/users/sign_in', 'sign-in');
        await visit('/no/such/page', 'not-found');
        await visit(`/groups/${group.full_path}`, 'group');
        await signIn(page, service.url, user.username, user.password);
        const pages: [string, string][] = [
          ['/profile', 'profile'],
          ['/profile/emails', 'emails'],
          ['/profile/password/edit', 'password'],
          ['/profile/two_factor_auth', 'two-factor'],
          ['/profile/active_sessions', 'active-sessions'],
          ['/profile/applications', 'applications'],
          [`/profile/applications/${applicationRow.id}`, 'application'],
          [`/profile/applications/${applicationRow.id}/edit`, 'application-edit'],
          [`/profile/applications/${applicationRow.id}/delete`, 'application-destroy'],
          ['/profile/personal_access_tokens', 'tokens'],
          ['/profile/notifications', 'notifications'],
          ['/profile/notifications/custom', 'custom-events'],
          [`/${user.username}`, 'user'],
          [`/groups/${group.full_path}`, 'group-signed-in'],
          [`/${project.full_path}`, 'project'],
          [
            `/oauth/authorize?${new URLSearchParams({ client_id: application.clientId, redirect_uri: application.redirectUri, response_type: 'code', scope: 'api' })}`,
            'consent',
          ],
          [
            `/oauth/authorize?${new URLSearchParams({ client_id: 'f'.repeat(64), redirect_uri: application.redirectUri, response_type: 'code' })}`,
            'unknown-client',
          ],
        ];
        for (const [path, name] of pages) await visit(path, name);
        // After an administrator turned the second factors off, every page says so until dismissed.
        await service.db
          .updateTable('users')
          .set({ second_factors_removed_at: Date.now() - 60_000 })
          .where('id', '=', user.id)
          .execute();
        await visit('/profile', 'second-factors-removed');
        expect(await page.locator('#second-factors-removed').innerText()).toContain(
          'An administrator removed your authenticator app, passkeys and recovery codes',
        );
        await press(page, '#second-factors-removed button');
        expect(new URL(page.url()).pathname).toBe('/profile/two_factor_auth');
        expect(await page.locator('#second-factors-removed').count()).toBe(0);
        // With passkeys alone, the two-factor page keeps their recovery codes.
        await service.db
          .insertInto('passkeys')
          .values({
            user_id: user.id,
            name: 'Laptop',
            credential_id: `credential-${user.id}`,
            public_key: 'pQECAyYgASFYIA',
            counter: 0,
            created_at: Date.now(),
          })
          .execute();
        await service.db
          .updateTable('users')
          .set({ passkey_count: 1 })
          .where('id', '=', user.id)
          .execute();
        await new TwoFactorStore(service.db).ensureRecoveryCodes(user.id);
        await visit('/profile/two_factor_auth', 'two-factor-passkeys');
        expect(await page.locator('main').innerText()).toContain(
          '10 of 10 recovery codes are left',
        );
        // And on a wide screen, where tables are tables again.
        await page.setViewportSize({ width: 1280, height: 900 });
        for (const [path, name] of pages) {
          await page.goto(`${service.url}${path}`);
          await page.screenshot({ path: `${OUTPUT}/codehost-1280-${name}.png`, fullPage: true });
          expect(await accessibilityViolations(page), `${path} at 1280 px`).toEqual([]);
        }
      } finally {
        await browserContext.close();
      }
    }, 90_000); // forty page loads, each with the accessibility engine
  },
);
