import { mkdirSync } from 'node:fs';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  currentCode,
  newTotpSecret,
  TwoFactorStore,
} from '../../src/codehost/accounts/two-factor.js';
import { MemberStore } from '../../src/codehost/namespaces/members.js';
import {
  type Codehost,
  createApplication,
  createGroup,
  createUser,
  freePort,
  startCodehost,
} from '../codehost/helpers.js';
import {
  approve,
  createLibrary,
  type Refdata,
  startListeningRefdata,
  uniqueName,
} from '../refdata/helpers.js';
import {
  accessibilityViolations,
  browserAvailable,
  browserSkipReason,
  launchChromium,
} from './chromium.js';

const OUTPUT = '.test-output';

async function press(page: Page, selector: string) {
  await Promise.all([page.waitForLoadState(), page.click(selector)]);
}

/**
 * refdata signing people in through a real codehost, started here, as its
 * OpenID Connect provider: the two services meet only over HTTP.
 */
describe.skipIf(!browserAvailable)(
  `refdata sign-in through codehost in Chromium${browserAvailable ? '' : ` (skipped: ${browserSkipReason})`}`,
  () => {
    let browser: Browser;
    let codehost: Codehost;
    let refdata: Refdata;
    let refdataUrl: string;
    let creator: Awaited<ReturnType<typeof createUser>>;
    let creatorSecret: string;
    let outsider: Awaited<ReturnType<typeof createUser>>;
    let creatorsGroupId: number;

    beforeAll(async () => {
      browser = await launchChromium();
      mkdirSync(OUTPUT, { recursive: true });
      // refdata, registered below as a user would, listens on loopback: its operator allows it.
      codehost = await startCodehost('sqlite', {
        listen: true,
        env: { OUTBOUND_ALLOWED_NETWORKS: '127.0.0.0/8' },
      });
      const owner = await createUser(codehost);
      creator = await createUser(codehost);
      outsider = await createUser(codehost);
      creatorSecret = newTotpSecret();
      await new TwoFactorStore(codehost.db).enable(
        creator.id,
        creatorSecret,
        currentCode(creatorSecret),
      );
      const top = await createGroup(codehost, owner.id, { path: 'refdata' });
      const creators = await createGroup(codehost, owner.id, { path: 'creators', parent: top });
      await new MemberStore(codehost.db).add('group', creators.id, creator.id, 30);
      creatorsGroupId = creators.id;

      const port = await freePort();
      refdataUrl = `http://127.0.0.1:${port}`;
      const client = await createApplication(codehost, owner.id, {
        name: 'refdata',
        redirectUris: `${refdataUrl}/sign-in/callback`,
        postLogoutRedirectUris: `${refdataUrl}/`,
        backchannelLogoutUri: `${refdataUrl}/sign-in/backchannel-logout`,
        scopes: ['openid', 'profile', 'email'],
      });
      refdata = await startListeningRefdata(
        {
          REFDATA_OIDC_ISSUER: codehost.url,
          REFDATA_OIDC_CLIENT_ID: client.clientId,
          REFDATA_OIDC_CLIENT_SECRET: client.secret,
          REFDATA_OIDC_NAME: 'codehost',
          // No role for everyone: someone outside the groups signs in to no role.
          REFDATA_OIDC_ROLE_MAP: 'Creator=refdata/creators,Reviewer=refdata/reviewers',
        },
        { port },
      );
    });
    afterAll(async () => {
      await browser?.close();
      await refdata?.close();
      await codehost?.close();
    });

    it('signs a Creator in with two-factor, who then sees Drafts an anonymous visitor does not, and signs out at both ends', async () => {
      const approved = await createLibrary(refdata, { name: uniqueName('Published library') });
      await approve(refdata, approved, 'Reviewed');
      const draftName = uniqueName('Work in progress');
      const draft = await createLibrary(refdata, { name: draftName });
      const draftPath = draft.replace(refdata.config.settings.refdata.iriBase, '');

      // bypassCSP only so the accessibility engine can be injected.
      const context = await browser.newContext({
        viewport: { width: 375, height: 800 },
        bypassCSP: true,
      });
      const page = await context.newPage();
      const problems: string[] = [];
      page.on('console', (message) => {
        if (message.type() === 'error') problems.push(message.text());
      });
      try {
        await page.goto(`${refdataUrl}/`);
        expect(await page.locator('#libraries').innerText()).not.toContain(draftName);
        await page.screenshot({ path: `${OUTPUT}/refdata-home-anonymous-375.png`, fullPage: true });
        expect(await accessibilityViolations(page)).toEqual([]);

        await press(page, 'header a:has-text("Sign in")');
        expect(new URL(page.url()).pathname).toBe('/sign-in');
        expect(await accessibilityViolations(page)).toEqual([]);
        await page.screenshot({ path: `${OUTPUT}/refdata-sign-in-375.png`, fullPage: true });
        await press(page, '#sign-in-provider');
        expect(page.url().startsWith(`${codehost.url}/users/sign_in`)).toBe(true);
        await page.fill('#login', creator.username);
        await page.fill('#password', creator.password);
        await press(page, 'button:has-text("Sign in")');
        await page.fill('#otp_attempt', currentCode(creatorSecret, Date.now() + 30_000));
        await press(page, 'button:has-text("Verify code")');
        expect(await page.locator('#application-name').innerText()).toBe('refdata');
        await Promise.all([page.waitForURL(`${refdataUrl}/**`), page.click('#authorize')]);

        // Back at refdata, signed in as a Creator (a member of refdata/creators).
        expect(new URL(page.url()).pathname).toBe('/');
        const account = await page.locator('header .account').innerText();
        expect(account).toContain(creator.name);
        expect(account).toContain('Creator');
        expect(account).not.toContain('Reviewer');
        expect(await page.locator('#libraries').innerText()).toContain(draftName);

        // Revisions record the provider's stable subject; pages show the person.
        const person = await refdata.db
          .selectFrom('people')
          .selectAll()
          .where('name', '=', creator.name)
          .executeTakeFirstOrThrow();
        expect(person.subject).toBe(`${codehost.url}#${creator.id}`);
        expect(person.username).toBe(creator.username);
        const theirs = await createLibrary(refdata, { name: uniqueName('Theirs') });
        await refdata.db
          .updateTable('revisions')
          .set({ actor: person.subject })
          .where(
            'resource_id',
            '=',
            refdata.db.selectFrom('resources').select('id').where('iri', '=', theirs),
          )
          .execute();
        await page.goto(
          `${refdataUrl}${theirs.replace(refdata.config.settings.refdata.iriBase, '')}`,
        );
        const history = await page.locator('#history').innerText();
        expect(history).toContain(`${creator.name} (${creator.username})`);
        expect(history).not.toContain(person.subject);

        await page.goto(`${refdataUrl}${draftPath}`);
        expect(await page.locator('h1').innerText()).toBe(draftName);
        await page.screenshot({
          path: `${OUTPUT}/refdata-draft-signed-in-375.png`,
          fullPage: true,
        });
        expect(await accessibilityViolations(page)).toEqual([]);

        // Signing out here signs out at codehost too (after its confirmation).
        await Promise.all([
          page.waitForURL(`${codehost.url}/oauth/logout?**`),
          page.click('header button:has-text("Sign out")'),
        ]);
        await Promise.all([page.waitForURL(`${refdataUrl}/**`), page.click('#sign-out')]);
        expect(await page.locator('#libraries').innerText()).not.toContain(draftName);
        await page.goto(`${codehost.url}/profile`);
        expect(new URL(page.url()).pathname).toBe('/users/sign_in');
        expect(problems).toEqual([]);
      } finally {
        await context.close();
      }
    });

    it('ends the refdata session when its codehost session is ended from another browser', async () => {
      const member = await createUser(codehost);
      await new MemberStore(codehost.db).add('group', creatorsGroupId, member.id, 30);
      const laptop = await browser.newContext({ viewport: { width: 1280, height: 800 } });
      const phone = await browser.newContext({ viewport: { width: 375, height: 800 } });
      const page = await laptop.newPage();
      const other = await phone.newPage();
      try {
        // On the laptop: refdata, signed in through codehost.
        await page.goto(`${refdataUrl}/sign-in`);
        await press(page, '#sign-in-provider');
        await page.fill('#login', member.username);
        await page.fill('#password', member.password);
        await press(page, 'button:has-text("Sign in")');
        await Promise.all([page.waitForURL(`${refdataUrl}/**`), page.click('#authorize')]);
        expect(await page.locator('header .account').innerText()).toContain(member.name);

        // On the phone: codehost's active sessions, where the laptop's is ended.
        await other.goto(`${codehost.url}/users/sign_in`);
        await other.fill('#login', member.username);
        await other.fill('#password', member.password);
        await press(other, 'button:has-text("Sign in")');
        await other.goto(`${codehost.url}/profile/active_sessions`);
        await press(other, '#active-sessions button:has-text("End")');
        expect(await other.locator('.notice.ok').innerText()).toContain('ended');

        // codehost posts a logout token to refdata, which ends the laptop's session
        // there: within seconds, the laptop's next page is a visitor's.
        let signedOut = false;
        for (let attempt = 0; attempt < 40 && !signedOut; attempt += 1) {
          await new Promise((resolve) => setTimeout(resolve, 250));
          await page.goto(`${refdataUrl}/`);
          signedOut = !(await page.locator('header .account').innerText()).includes(member.name);
        }
        expect(signedOut).toBe(true);
        await page.screenshot({ path: `${OUTPUT}/refdata-after-backchannel-logout-1280.png` });
        const delivery = await codehost.db
          .selectFrom('backchannel_logout_deliveries')
          .selectAll()
          .where('user_id', '=', member.id)
          .executeTakeFirstOrThrow();
        expect(delivery.delivered_at).not.toBeNull();
        expect(delivery.attempts).toBe(1);
      } finally {
        await laptop.close();
        await phone.close();
      }
    });

    it('answers a stale callback and a refused consent with pages that say what happened', async () => {
      const context = await browser.newContext({ bypassCSP: true });
      const page = await context.newPage();
      try {
        const answer = await page.goto(`${refdataUrl}/sign-in/callback?code=x&state=y`);
        expect(answer?.status()).toBe(400);
        expect(await page.locator('main').innerText()).toContain(
          'Start again from the sign-in page',
        );
        expect(await accessibilityViolations(page)).toEqual([]);
        await page.goto(`${refdataUrl}/sign-in`);
        await press(page, '#sign-in-provider');
        await page.fill('#login', outsider.username);
        await page.fill('#password', outsider.password);
        await press(page, 'button:has-text("Sign in")');
        // Denying consent at codehost comes back as a page saying what happened.
        await Promise.all([page.waitForURL(`${refdataUrl}/**`), page.click('#deny')]);
        expect(await page.locator('main').innerText()).toContain('did not let you sign in');
      } finally {
        await context.close();
      }
    });

    it('tells someone whose account holds no refdata role so, and signs them in to nothing', async () => {
      const context = await browser.newContext({ bypassCSP: true });
      const page = await context.newPage();
      try {
        await page.goto(`${refdataUrl}/sign-in`);
        await press(page, '#sign-in-provider');
        await page.fill('#login', outsider.username);
        await page.fill('#password', outsider.password);
        await press(page, 'button:has-text("Sign in")');
        const answer = page.waitForResponse((response) =>
          response.url().startsWith(`${refdataUrl}/sign-in/callback`),
        );
        await page.click('#authorize');
        expect((await answer).status()).toBe(403);
        await page.waitForLoadState();
        expect(await page.locator('main').innerText()).toContain('holds no refdata role');
        expect(await page.locator('header .account').innerText()).toContain('Sign in');
        await page.screenshot({ path: `${OUTPUT}/refdata-no-role-1280.png`, fullPage: true });
        expect(await accessibilityViolations(page)).toEqual([]);
      } finally {
        await context.close();
      }
    });

    it('signs a returning user in again, with two-factor and without, under the pages’ own Content-Security-Policy', async () => {
      // No bypassCSP here: codehost's form-action must let each sign-in form's
      // redirect chain end at the relying party, or Chromium stops it there.
      const returning = await createUser(codehost);
      const withCode = await createUser(codehost);
      const secret = newTotpSecret();
      const recovery = await new TwoFactorStore(codehost.db).enable(
        withCode.id,
        secret,
        currentCode(secret),
      );
      for (const person of [returning, withCode]) {
        await new MemberStore(codehost.db).add('group', creatorsGroupId, person.id, 30);
      }
      const signInThroughCodehost = async (
        page: Page,
        login: string,
        password: string,
        code?: string,
      ) => {
        await page.goto(`${refdataUrl}/sign-in`);
        await press(page, '#sign-in-provider');
        await page.fill('#login', login);
        await page.fill('#password', password);
        await press(page, 'button:has-text("Sign in")');
        if (code !== undefined) {
          await page.fill('#otp_attempt', code);
          await press(page, 'button:has-text("Verify code")');
        }
      };
      const signOutOfBoth = async (page: Page) => {
        await Promise.all([
          page.waitForURL(`${codehost.url}/oauth/logout?**`),
          page.click('header button:has-text("Sign out")'),
        ]);
        await Promise.all([page.waitForURL(`${refdataUrl}/**`), page.click('#sign-out')]);
      };
      // A code the enabling step has not used yet, then a recovery code.
      for (const person of [
        { user: withCode, codes: [currentCode(secret, Date.now() + 30_000), recovery?.[0]] },
        { user: returning, codes: [undefined, undefined] },
      ]) {
        const context = await browser.newContext();
        const page = await context.newPage();
        const blocked: string[] = [];
        page.on('console', (message) => {
          if (/Content Security Policy/i.test(message.text())) blocked.push(message.text());
        });
        try {
          // The first time asks for consent.
          await signInThroughCodehost(
            page,
            person.user.username,
            person.user.password,
            person.codes[0],
          );
          await Promise.all([page.waitForURL(`${refdataUrl}/**`), page.click('#authorize')]);
          expect(await page.locator('header .account').innerText()).toContain(person.user.name);
          await signOutOfBoth(page);
          expect(await page.locator('header .account').innerText()).toContain('Sign in');

          // The second time, codehost sends the browser straight back after the last form.
          await signInThroughCodehost(
            page,
            person.user.username,
            person.user.password,
            person.codes[1],
          );
          await page.waitForURL(`${refdataUrl}/**`, { timeout: 5_000 });
          expect(new URL(page.url()).pathname).toBe('/');
          expect(await page.locator('header .account').innerText()).toContain(person.user.name);
          expect(blocked).toEqual([]);
        } finally {
          await context.close();
        }
      }
    }, 60_000);
  },
);
