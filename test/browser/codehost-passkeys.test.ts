/**
 * Passkeys in Chromium with its virtual authenticator (the DevTools WebAuthn
 * domain): a platform authenticator that holds discoverable credentials and
 * verifies its user, as a laptop's fingerprint reader or a phone does. The
 * pages' own scripts run the ceremonies under the enforced security policy.
 */
import { mkdirSync } from 'node:fs';
import { decodeJwt } from 'jose';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type Codehost,
  createApplication,
  createUser,
  startCodehost,
  tokenRequest,
} from '../codehost/helpers.js';
import {
  accessibilityViolations,
  browserAvailable,
  browserSkipReason,
  launchChromium,
  policyViolations,
} from './chromium.js';

const OUTPUT = '.test-output';
const REDIRECT_URI = 'https://client.example/callback';

/** Submits the form a button belongs to and waits for the page that answers. */
async function press(page: Page, selector: string): Promise<void> {
  await Promise.all([page.waitForLoadState(), page.click(selector)]);
}

/** A passkey ceremony: its form posts itself once the authenticator has answered. */
async function ceremony(page: Page, selector: string): Promise<void> {
  const posted = page.waitForEvent('framenavigated', {
    predicate: (frame) => frame === page.mainFrame(),
    timeout: 15_000,
  });
  await page.click(selector);
  await posted;
  await page.waitForLoadState();
}

/** A platform authenticator with user verification, attached to the page's target. */
async function addVirtualAuthenticator(page: Page): Promise<void> {
  const session = await page.context().newCDPSession(page);
  await session.send('WebAuthn.enable');
  await session.send('WebAuthn.addVirtualAuthenticator', {
    options: {
      protocol: 'ctap2',
      transport: 'internal',
      hasResidentKey: true,
      hasUserVerification: true,
      isUserVerified: true,
      automaticPresenceSimulation: true,
    },
  });
}

async function signInWithPassword(page: Page, url: string, login: string, password: string) {
  await page.goto(`${url}/users/sign_in`);
  await page.fill('#login', login);
  await page.fill('#password', password);
  await press(page, 'button:has-text("Sign in")');
}

async function signOut(page: Page) {
  await press(page, 'header button:has-text("Sign out")');
  expect(new URL(page.url()).pathname).toBe('/users/sign_in');
}

describe.skipIf(!browserAvailable)(
  `passkeys in Chromium${browserAvailable ? '' : ` (skipped: ${browserSkipReason})`}`,
  () => {
    let browser: Browser;
    let service: Codehost;
    beforeAll(async () => {
      browser = await launchChromium();
      service = await startCodehost('sqlite', { listen: true, publicHost: 'localhost' });
      mkdirSync(OUTPUT, { recursive: true });
    });
    afterAll(async () => {
      await browser?.close();
      await service?.close();
    });

    async function registerPasskey(page: Page, name: string, password: string) {
      await page.goto(`${service.url}/profile/passkeys`);
      await page.fill('#name', name);
      await page.fill('#current_password', password);
      await ceremony(page, '#add-passkey button[type="submit"]');
      expect(await page.locator('.notice.ok').innerText()).toContain('added');
      // The first second factor comes with recovery codes, shown this once.
      const codes = await page.locator('#recovery-codes code').allInnerTexts();
      if (codes.length > 0) await page.goto(`${service.url}/profile/passkeys`);
      return codes;
    }

    /** The session row this browser holds, as the server keeps it. */
    async function sessionAmr(userId: number): Promise<string[]> {
      const rows = await service.db
        .selectFrom('sessions')
        .select(['data', 'last_used_at'])
        .where('user_id', '=', userId)
        .orderBy('created_at', 'desc')
        .execute();
      return (JSON.parse(rows[0]?.data ?? '{}') as { amr?: string[] }).amr ?? [];
    }

    it('registers a passkey, signs in with it alone, uses it as the second factor, and removes it', async () => {
      const user = await createUser(service);
      const app = await createApplication(service, user.id, {
        redirectUris: REDIRECT_URI,
        scopes: ['openid', 'profile'],
      });
      // The enforced policy, as a visitor has it: the scripts must work under it.
      const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
      const page = await context.newPage();
      const violations = policyViolations(page);
      try {
        await addVirtualAuthenticator(page);
        await signInWithPassword(page, service.url, user.username, user.password);
        const codes = await registerPasskey(page, 'Work laptop', user.password);
        expect(codes).toHaveLength(10);
        for (const code of codes) expect(code).toMatch(/^[0-9a-f]{16}$/);
        const row = page.locator('#passkeys tr', { hasText: 'Work laptop' });
        expect(await row.innerText()).toContain('Never');
        const stored = await service.db
          .selectFrom('passkeys')
          .selectAll()
          .where('user_id', '=', user.id)
          .executeTakeFirstOrThrow();
        expect(stored.public_key.length).toBeGreaterThan(40);
        expect(Object.keys(stored).sort()).toEqual(
          [
            'backed_up',
            'counter',
            'created_at',
            'credential_id',
            'id',
            'last_used_at',
            'name',
            'public_key',
            'transports',
            'user_id',
          ].sort(),
        );

        // The password grant now refuses the account, as for a TOTP app.
        const grant = await tokenRequest(service, {
          grant_type: 'password',
          username: user.username,
          password: user.password,
        });
        expect(grant.json().error_description).toContain('Two-factor authentication');

        // Signed out, the passkey alone signs in: no username, no password.
        await signOut(page);
        await ceremony(page, '#passkey-sign-in button[type="submit"]');
        expect(new URL(page.url()).pathname).toBe('/profile');
        expect(await page.locator('header').innerText()).toContain(user.username);
        expect(await sessionAmr(user.id)).toEqual(expect.arrayContaining(['user', 'mfa']));

        // An ID token issued from this session says how the user signed in.
        const authorize = new URL('/oauth/authorize', service.url);
        authorize.search = new URLSearchParams({
          client_id: app.clientId,
          redirect_uri: REDIRECT_URI,
          response_type: 'code',
          scope: 'openid',
        }).toString();
        await page.goto(authorize.href);
        // The client is not there: what matters is where the browser is sent.
        const [sent] = await Promise.all([
          page.waitForRequest((request) => request.url().startsWith(REDIRECT_URI)),
          page.click('#authorize'),
        ]);
        const callback = new URL(sent.url());
        const code = callback.searchParams.get('code');
        expect(code).toBeTruthy();
        const tokens = await tokenRequest(service, {
          grant_type: 'authorization_code',
          code: code as string,
          redirect_uri: REDIRECT_URI,
          client_id: app.clientId,
          client_secret: app.secret,
        });
        const claims = decodeJwt(tokens.json().id_token as string);
        expect(claims.acr).toBe('phr');
        expect(claims.amr).toEqual(expect.arrayContaining(['user', 'mfa']));
        expect(claims.amr).not.toContain('pwd');

        // With the password, the passkey is the second step.
        await page.goto(`${service.url}/profile`);
        await signOut(page);
        await signInWithPassword(page, service.url, user.username, user.password);
        expect(await page.locator('h1').innerText()).toBe('Two-factor authentication');
        // A recovery code is offered beside the passkey, for the day it is lost.
        expect(await page.locator('h2', { hasText: 'Lost your passkey?' }).count()).toBe(1);
        expect(await page.locator('label[for="otp_attempt"]').innerText()).toContain(
          'recovery codes',
        );
        await page.screenshot({
          path: `${OUTPUT}/passkeys-second-step-with-recovery-code.png`,
          fullPage: true,
        });
        await ceremony(page, '#passkey-second-factor button[type="submit"]');
        expect(new URL(page.url()).pathname).toBe('/profile');
        expect(await sessionAmr(user.id)).toEqual(expect.arrayContaining(['pwd', 'user', 'mfa']));

        // Used twice now, and removed with the password.
        await page.goto(`${service.url}/profile/passkeys`);
        expect(await row.innerText()).not.toContain('Never');
        await page.fill('#passkeys input[type="password"]', user.password);
        await press(page, '#passkeys button:has-text("Remove")');
        expect(await page.locator('.notice.ok').innerText()).toContain('removed');
        expect(await page.locator('#passkeys').count()).toBe(0);
        await signOut(page);
        await signInWithPassword(page, service.url, user.username, user.password);
        expect(new URL(page.url()).pathname).toBe('/profile');
        expect(violations).toEqual([]);
      } finally {
        await context.close();
      }
    });

    it('keeps the passkey pages accessible at 1280 and 375 pixels', async () => {
      const user = await createUser(service);
      for (const width of [1280, 375]) {
        // bypassCSP only so the accessibility engine can be injected.
        const context: BrowserContext = await browser.newContext({
          viewport: { width, height: 900 },
          bypassCSP: true,
        });
        const page = await context.newPage();
        try {
          await addVirtualAuthenticator(page);
          await page.goto(`${service.url}/users/sign_in`);
          expect(await page.locator('#passkey-sign-in').isVisible()).toBe(true);
          expect(await accessibilityViolations(page)).toEqual([]);
          await page.screenshot({
            path: `${OUTPUT}/passkeys-sign-in-${width}.png`,
            fullPage: true,
          });

          await signInWithPassword(page, service.url, user.username, user.password);
          if (width === 1280) {
            await registerPasskey(page, 'Phone', user.password);
          } else {
            // The 1280 context's authenticator holds the passkey; here the password
            // leads to the second step, which this browser's authenticator cannot answer.
            expect(await page.locator('#passkey-second-factor').isVisible()).toBe(true);
            expect(await accessibilityViolations(page)).toEqual([]);
            await page.screenshot({ path: `${OUTPUT}/passkeys-second-factor-${width}.png` });
            continue;
          }
          expect(await accessibilityViolations(page)).toEqual([]);
          await page.screenshot({
            path: `${OUTPUT}/passkeys-settings-${width}.png`,
            fullPage: true,
          });
        } finally {
          await context.close();
        }
      }
    });
  },
);
