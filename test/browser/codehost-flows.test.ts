import { createHash, randomBytes } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { currentCode } from '../../src/codehost/accounts/two-factor.js';
import { ResourceServerStore } from '../../src/codehost/oauth/resource-servers.js';
import {
  apiToken,
  basicAuth,
  type Codehost,
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

/** The OAuth client's side: a callback server that records what the browser brings it. */
interface CallbackServer {
  url: string;
  received: URLSearchParams[];
  close(): Promise<void>;
}

async function startCallbackServer(): Promise<CallbackServer> {
  const received: URLSearchParams[] = [];
  const server: Server = createServer((request, response) => {
    const url = new URL(request.url ?? '/', 'http://127.0.0.1');
    if (url.pathname === '/callback') received.push(url.searchParams);
    response.writeHead(200, { 'content-type': 'text/html' });
    response.end('<!doctype html><title>Client</title><p id="client-done">Signed in</p>');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/callback`,
    received,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

async function signIn(page: Page, login: string, password: string): Promise<void> {
  await page.fill('#login', login);
  await page.fill('#password', password);
  await Promise.all([page.waitForLoadState(), page.click('button:has-text("Sign in")')]);
}

describe.skipIf(!browserAvailable)(
  `codehost web flows in Chromium${browserAvailable ? '' : ` (skipped: ${browserSkipReason})`}`,
  () => {
    let browser: Browser;
    let service: Codehost;
    let callback: CallbackServer;
    beforeAll(async () => {
      browser = await launchChromium();
      service = await startCodehost('sqlite', { listen: true });
      callback = await startCallbackServer();
    });
    afterAll(async () => {
      await browser?.close();
      await service?.close();
      await callback?.close();
    });

    async function freshPage(): Promise<{
      context: BrowserContext;
      page: Page;
      problems: string[];
    }> {
      const context = await browser.newContext();
      const page = await context.newPage();
      const problems: string[] = [];
      // CSP violations (a blocked form submission, say) are reported here.
      page.on('console', (message) => {
        if (message.type() === 'error') problems.push(message.text());
      });
      page.on('pageerror', (error) => problems.push(error.message));
      page.on('response', (response) => {
        if (response.status() >= 400) problems.push(`${response.status()} ${response.url()}`);
      });
      return { context, page, problems };
    }

    it('two-factor sign-in, application registration and the authorization code flow end to end', async () => {
      const user = await createUser(service);
      const { context, page, problems } = await freshPage();
      try {
        // Sign in with the password alone and turn on two-factor authentication.
        await page.goto(`${service.url}/users/sign_in`);
        await signIn(page, user.username, user.password);
        expect(new URL(page.url()).pathname).toBe('/profile');
        await page.goto(`${service.url}/profile/two_factor_auth`);
        expect(await page.locator('#qr-code svg').count()).toBe(1);
        const secret = (await page.locator('#otp-secret').getAttribute('data-copy-text')) ?? '';
        await page.fill('#current_password', user.password);
        await page.fill('#pin_code', currentCode(secret));
        await Promise.all([page.waitForLoadState(), page.click('button:has-text("Register")')]);
        expect(await page.locator('#recovery-codes li').count()).toBe(10);

        // Register a confidential application whose callback is the local client.
        await page.goto(`${service.url}/profile/applications`);
        await page.fill('#name', 'Browser test client');
        await page.fill('#redirect_uri', callback.url);
        await page.check('input[name="scopes"][value="api"]');
        await page.check('input[name="scopes"][value="read_user"]');
        await page.check('input[name="confidential"]');
        await Promise.all([
          page.waitForLoadState(),
          page.click('button[type="submit"]:has-text("Save")'),
        ]);
        const clientId = (await page.locator('#application-id').innerText()).trim();
        const clientSecret = (await page.locator('#application-secret').innerText()).trim();
        expect(clientId).toMatch(/^[0-9a-f]{64}$/);
        expect(clientSecret).toMatch(/^[0-9a-f]{64}$/);

        // Sign out; the authorization request then goes through sign-in, the
        // two-factor step and the consent page before reaching the client.
        await Promise.all([page.waitForLoadState(), page.click('button:has-text("Sign out")')]);
        const state = randomBytes(16).toString('hex');
        const verifier = randomBytes(32).toString('base64url');
        const challenge = createHash('sha256').update(verifier).digest('base64url');
        const authorize = new URL('/oauth/authorize', service.url);
        authorize.search = new URLSearchParams({
          client_id: clientId,
          redirect_uri: callback.url,
          response_type: 'code',
          scope: 'api read_user',
          state,
          code_challenge: challenge,
          code_challenge_method: 'S256',
        }).toString();
        await page.goto(authorize.toString());
        expect(new URL(page.url()).pathname).toBe('/users/sign_in');
        await signIn(page, user.email, user.password);
        // As on GitLab, the answer to the password form is the code form.
        expect(await page.locator('#otp_attempt').count()).toBe(1);
        // The code from enabling is spent; a phone a step ahead gives the next one.
        await page.fill('#otp_attempt', currentCode(secret, Date.now() + 30_000));
        await Promise.all([page.waitForLoadState(), page.click('button:has-text("Verify code")')]);

        expect(new URL(page.url()).pathname).toBe('/oauth/authorize');
        expect(await page.locator('#application-name').innerText()).toBe('Browser test client');
        expect(await page.locator('#scopes li').allInnerTexts()).toHaveLength(2);
        await Promise.all([page.waitForURL(`${callback.url}?**`), page.click('#authorize')]);
        expect(await page.locator('#client-done').innerText()).toBe('Signed in');

        expect(callback.received).toHaveLength(1);
        const answer = callback.received[0] as URLSearchParams;
        expect(answer.get('state')).toBe(state);
        const code = answer.get('code');
        expect(code).toBeTruthy();

        // The client's server exchanges the code and calls the API.
        const tokenResponse = await fetch(`${service.url}/oauth/token`, {
          method: 'POST',
          headers: {
            'content-type': 'application/x-www-form-urlencoded',
            authorization: basicAuth(clientId, clientSecret),
          },
          body: new URLSearchParams({
            grant_type: 'authorization_code',
            code: code as string,
            redirect_uri: callback.url,
            code_verifier: verifier,
          }),
        });
        expect(tokenResponse.status).toBe(200);
        const tokens = (await tokenResponse.json()) as { access_token: string; scope: string };
        expect(tokens.scope).toBe('api read_user');
        const me = await fetch(`${service.url}/api/v3/user`, {
          headers: { authorization: `Bearer ${tokens.access_token}` },
        });
        expect(me.status).toBe(200);
        const body = (await me.json()) as { username: string; two_factor_enabled: boolean };
        expect(body.username).toBe(user.username);
        expect(body.two_factor_enabled).toBe(true);

        // The authorization now shows on the applications page.
        await page.goto(`${service.url}/profile/applications`);
        expect(await page.locator('#authorized-applications').innerText()).toContain(
          'Browser test client',
        );
        expect(problems).toEqual([]);
      } finally {
        await context.close();
      }
    });

    it('asks consent for a client that registered itself, for another API, and marks it on the Applications page', async () => {
      await new ResourceServerStore(service.db).ensure({
        identifier: 'https://refdata.example',
        name: 'refdata',
      });
      const registered = (await (
        await fetch(`${service.url}/oauth/register`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({
            client_name: 'An agent',
            client_uri: 'https://agent.example',
            redirect_uris: [callback.url],
          }),
        })
      ).json()) as { client_id: string };
      const user = await createUser(service);
      const context = await browser.newContext({
        viewport: { width: 375, height: 800 },
        bypassCSP: true,
      });
      const page = await context.newPage();
      const verifier = randomBytes(32).toString('base64url');
      const authorize = new URL('/oauth/authorize', service.url);
      authorize.search = new URLSearchParams({
        client_id: registered.client_id,
        redirect_uri: callback.url,
        response_type: 'code',
        scope: 'api',
        resource: 'https://refdata.example',
        code_challenge: createHash('sha256').update(verifier).digest('base64url'),
        code_challenge_method: 'S256',
      }).toString();
      await page.goto(authorize.toString());
      await signIn(page, user.username, user.password);
      expect(new URL(page.url()).pathname).toBe('/oauth/authorize');
      expect(await page.locator('#client-identity').innerText()).toContain(
        'registered itself with codehost',
      );
      expect(await page.locator('#resource').innerText()).toContain('refdata');
      expect(await page.evaluate('document.documentElement.scrollWidth')).toBeLessThanOrEqual(375);
      expect(await accessibilityViolations(page)).toEqual([]);
      mkdirSync('.test-output', { recursive: true });
      await page.screenshot({
        path: '.test-output/codehost-consent-registered-375.png',
        fullPage: true,
      });
      await Promise.all([page.waitForURL(`${callback.url}?**`), page.click('#authorize')]);
      const code = new URL(page.url()).searchParams.get('code') as string;
      const token = await fetch(`${service.url}/oauth/token`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({
          grant_type: 'authorization_code',
          code,
          redirect_uri: callback.url,
          client_id: registered.client_id,
          code_verifier: verifier,
        }),
      });
      expect(token.status).toBe(200);
      await page.goto(`${service.url}/profile/applications`);
      expect(await page.locator('#authorized-applications').innerText()).toContain(
        'registered itself',
      );
      expect(await accessibilityViolations(page)).toEqual([]);
      await page.screenshot({
        path: '.test-output/codehost-applications-registered-375.png',
        fullPage: true,
      });
      await context.close();
    });

    it('creates a personal access token that the API accepts, and revokes it', async () => {
      const user = await createUser(service);
      const { context, page, problems } = await freshPage();
      try {
        await page.goto(`${service.url}/users/sign_in`);
        await signIn(page, user.username, user.password);
        await page.goto(`${service.url}/profile/personal_access_tokens`);
        await page.fill('#name', 'ci script');
        await page.check('input[name="scopes"][value="read_user"]');
        await page.uncheck('input[name="scopes"][value="api"]');
        await Promise.all([
          page.waitForLoadState(),
          page.click('button:has-text("Create personal access token")'),
        ]);
        const token = (await page.locator('#created-personal-access-token').innerText()).trim();
        expect(token.length).toBeGreaterThanOrEqual(20);

        const me = await fetch(`${service.url}/api/v3/user`, {
          headers: { 'private-token': token },
        });
        expect(me.status).toBe(200);
        expect(((await me.json()) as { username: string }).username).toBe(user.username);

        // A reload no longer shows the token; the list shows its name.
        await page.goto(`${service.url}/profile/personal_access_tokens`);
        expect(await page.locator('#created-personal-access-token').count()).toBe(0);
        expect(await page.locator('#active-tokens').innerText()).toContain('ci script');

        // Revoking asks first, on a page of its own.
        await Promise.all([
          page.waitForLoadState(),
          page.locator('#active-tokens a:has-text("Revoke")').click(),
        ]);
        expect(await page.locator('h1').innerText()).toBe('Revoke ci script?');
        await Promise.all([page.waitForLoadState(), page.click('button:has-text("Revoke")')]);
        expect(await page.locator('#inactive-tokens').innerText()).toContain('ci script');
        const after = await fetch(`${service.url}/api/v3/user`, {
          headers: { 'private-token': token },
        });
        expect(after.status).toBe(401);
        expect(problems).toEqual([]);
      } finally {
        await context.close();
      }
    });

    it("changes a project's notification level on the notifications page, as the API then reads it", async () => {
      const user = await createUser(service);
      const group = await createGroup(service, user.id, { path: `web.${user.id}` });
      const project = await createProject(service, user.id, group, { path: 'site' });
      const { context, page, problems } = await freshPage();
      try {
        await page.goto(`${service.url}/users/sign_in`);
        await signIn(page, user.username, user.password);
        await page.click('a:has-text("Notifications")');
        expect(new URL(page.url()).pathname).toBe('/profile/notifications');
        const select = page.locator(`#project-${project.id}-level`);
        expect(await select.inputValue()).toBe('global');
        await select.selectOption('watch');
        await Promise.all([page.waitForLoadState(), page.click(`#project-${project.id}-save`)]);
        expect(await page.locator('.notice.ok').innerText()).toContain('saved');
        expect(await page.locator(`#project-${project.id}-level`).inputValue()).toBe('watch');

        const token = await apiToken(service, user.id);
        const setting = await fetch(
          `${service.url}/api/v4/projects/${encodeURIComponent(project.full_path)}/notification_settings`,
          { headers: { 'private-token': token } },
        );
        expect(await setting.json()).toEqual({ level: 'watch' });
        // The group row beside it was left alone.
        const groupSetting = await fetch(
          `${service.url}/api/v3/groups/${group.id}/notification_settings`,
          { headers: { 'private-token': token } },
        );
        expect(await groupSetting.json()).toEqual({ level: 'global' });
        expect(problems).toEqual([]);
      } finally {
        await context.close();
      }
    });

    it('changes the password on its page, readable and accessible at 375 px', async () => {
      const user = await createUser(service);
      // bypassCSP only so the accessibility engine can be injected.
      const context = await browser.newContext({
        viewport: { width: 375, height: 800 },
        bypassCSP: true,
      });
      const page = await context.newPage();
      try {
        await page.goto(`${service.url}/users/sign_in`);
        await signIn(page, user.username, user.password);
        await page.click('a:has-text("Password")');
        expect(new URL(page.url()).pathname).toBe('/profile/password/edit');
        expect(await accessibilityViolations(page)).toEqual([]);
        await page.fill('#current_password', user.password);
        await page.fill('#new_password', 'correct horse battery');
        await page.fill('#password_confirmation', 'correct horse battery');
        await Promise.all([
          page.waitForLoadState(),
          page.click('button:has-text("Save password")'),
        ]);
        expect(await page.locator('.notice.ok').innerText()).toContain('password was changed');
        mkdirSync('.test-output', { recursive: true });
        await page.screenshot({ path: '.test-output/codehost-password-375.png', fullPage: true });
        expect(await accessibilityViolations(page)).toEqual([]);
        // No horizontal scrolling at this width.
        expect(
          await page.evaluate(
            () =>
              (globalThis as unknown as { document: { documentElement: { scrollWidth: number } } })
                .document.documentElement.scrollWidth,
          ),
        ).toBeLessThanOrEqual(375);
      } finally {
        await context.close();
      }
    });
  },
);
