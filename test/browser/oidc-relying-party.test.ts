import { mkdirSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import * as client from 'openid-client';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  currentCode,
  newTotpSecret,
  TwoFactorStore,
} from '../../src/codehost/accounts/two-factor.js';
import {
  type Codehost,
  createApplication,
  createGroup,
  createUser,
  startCodehost,
} from '../codehost/helpers.js';
import {
  accessibilityViolations,
  browserAvailable,
  browserSkipReason,
  launchChromium,
} from './chromium.js';

const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (char) => `&#${char.charCodeAt(0)};`);

/**
 * A relying party as a web framework would build one on openid-client: /login
 * starts the code flow with PKCE and nonce, /callback finishes it and shows the
 * claims of the ID token and of userinfo, /logout is RP-initiated logout.
 */
async function startRelyingParty(issuer: string) {
  let config: client.Configuration | undefined;
  const pending = new Map<string, { verifier: string; nonce: string }>();
  let idToken: string | undefined;
  const server: Server = createServer((request, response) => {
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const url = new URL(request.url ?? '/', base);
    const send = (status: number, body: string, headers: Record<string, string> = {}) => {
      response.writeHead(status, { 'content-type': 'text/html; charset=utf-8', ...headers });
      response.end(body);
    };
    (async () => {
      if (!config) throw new Error('not configured');
      if (url.pathname === '/login') {
        const state = client.randomState();
        const verifier = client.randomPKCECodeVerifier();
        const nonce = client.randomNonce();
        pending.set(state, { verifier, nonce });
        const target = client.buildAuthorizationUrl(config, {
          redirect_uri: `${base}/callback`,
          scope: 'openid profile email',
          state,
          nonce,
          code_challenge: await client.calculatePKCECodeChallenge(verifier),
          code_challenge_method: 'S256',
        });
        return send(302, '', { location: target.href });
      }
      if (url.pathname === '/callback') {
        const state = url.searchParams.get('state') ?? '';
        const expected = pending.get(state);
        if (!expected) return send(400, 'unknown state');
        const tokens = await client.authorizationCodeGrant(config, url, {
          pkceCodeVerifier: expected.verifier,
          expectedNonce: expected.nonce,
          expectedState: state,
        });
        idToken = tokens.id_token;
        const claims: Record<string, unknown> = tokens.claims() ?? {};
        const info = await client.fetchUserInfo(config, tokens.access_token, String(claims.sub));
        return send(
          200,
          `<!doctype html><html lang="en"><title>Relying party</title><h1>Signed in</h1>
<p id="name">${escapeHtml(String(info.name))}</p>
<p id="email">${escapeHtml(String(info.email))}</p>
<p id="groups">${escapeHtml(JSON.stringify(info.groups))}</p>
<p id="id-token-user">${escapeHtml(String(claims.preferred_username))}</p>
<p><a id="logout" href="/logout">Sign out</a></p></html>`,
        );
      }
      if (url.pathname === '/logout') {
        const target = client.buildEndSessionUrl(config, {
          post_logout_redirect_uri: `${base}/signed-out`,
          ...(idToken ? { id_token_hint: idToken } : {}),
          state: 'rp-state',
        });
        return send(302, '', { location: target.href });
      }
      if (url.pathname === '/signed-out') {
        return send(
          200,
          `<!doctype html><title>Signed out</title><p id="rp-signed-out">${escapeHtml(url.searchParams.get('state') ?? '')}</p>`,
        );
      }
      return send(404, 'not found');
    })().catch((error: unknown) => send(500, escapeHtml(String(error))));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    base,
    async configure(clientId: string, secret: string) {
      config = await client.discovery(
        new URL(issuer),
        clientId,
        undefined,
        client.ClientSecretBasic(secret),
        {
          execute: [client.allowInsecureRequests],
        },
      );
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

describe.skipIf(!browserAvailable)(
  `signing in to a relying party through codehost, in Chromium${browserAvailable ? '' : ` (skipped: ${browserSkipReason})`}`,
  () => {
    let browser: Browser;
    let service: Codehost;
    let party: Awaited<ReturnType<typeof startRelyingParty>>;
    beforeAll(async () => {
      browser = await launchChromium();
      service = await startCodehost('sqlite', { listen: true });
      party = await startRelyingParty(service.url);
    });
    afterAll(async () => {
      await browser?.close();
      await party?.close();
      await service?.close();
    });

    it('signs in with two-factor, shows the claims, and signs out at both ends', async () => {
      const user = await createUser(service);
      const secret = newTotpSecret();
      await new TwoFactorStore(service.db).enable(user.id, secret, currentCode(secret));
      const group = await createGroup(service, user.id, { path: `platform-${user.id}` });
      const app = await createApplication(service, user.id, {
        name: 'Grafana',
        redirectUris: `${party.base}/callback`,
        postLogoutRedirectUris: `${party.base}/signed-out`,
        scopes: ['openid', 'profile', 'email'],
      });
      await party.configure(app.clientId, app.secret);

      // bypassCSP only so the accessibility engine can be injected.
      const context = await browser.newContext({
        viewport: { width: 375, height: 800 },
        bypassCSP: true,
      });
      const page = await context.newPage();
      try {
        await page.goto(`${party.base}/login`);
        expect(new URL(page.url()).pathname).toBe('/users/sign_in');
        await page.fill('#login', user.username);
        await page.fill('#password', user.password);
        await Promise.all([page.waitForLoadState(), page.click('button:has-text("Sign in")')]);
        await page.fill('#otp_attempt', currentCode(secret, Date.now() + 30_000));
        await Promise.all([page.waitForLoadState(), page.click('button:has-text("Verify code")')]);
        expect(await page.locator('#application-name').innerText()).toBe('Grafana');
        mkdirSync('.test-output', { recursive: true });
        await page.screenshot({ path: '.test-output/oidc-consent-375.png', fullPage: true });
        expect(await accessibilityViolations(page)).toEqual([]);
        await Promise.all([page.waitForURL(`${party.base}/callback?**`), page.click('#authorize')]);

        expect(await page.locator('#name').innerText()).toBe(user.name);
        expect(await page.locator('#email').innerText()).toBe(user.email);
        expect(await page.locator('#id-token-user').innerText()).toBe(user.username);
        expect(JSON.parse(await page.locator('#groups').innerText())).toEqual([group.full_path]);

        await Promise.all([
          page.waitForURL(`${service.url}/oauth/logout?**`),
          page.click('#logout'),
        ]);
        expect(await page.locator('#application-name').innerText()).toBe('Grafana');
        await page.screenshot({ path: '.test-output/oidc-logout-375.png', fullPage: true });
        expect(await accessibilityViolations(page)).toEqual([]);
        await page.setViewportSize({ width: 1280, height: 800 });
        await page.screenshot({ path: '.test-output/oidc-logout-1280.png', fullPage: true });
        await Promise.all([
          page.waitForURL(`${party.base}/signed-out?**`),
          page.click('#sign-out'),
        ]);
        expect(await page.locator('#rp-signed-out').innerText()).toBe('rp-state');
        // codehost's session ended too.
        await page.goto(`${service.url}/profile`);
        expect(new URL(page.url()).pathname).toBe('/users/sign_in');
        // Signed out, a logout without a return address shows codehost's own page.
        await page.goto(`${service.url}/oauth/logout`);
        expect(await page.locator('#signed-out').innerText()).toContain('signed out');
        await page.screenshot({ path: '.test-output/oidc-signed-out-1280.png', fullPage: true });
        expect(await accessibilityViolations(page)).toEqual([]);
      } finally {
        await context.close();
      }
    });
  },
);
