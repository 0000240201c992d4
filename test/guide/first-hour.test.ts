/**
 * A new person's first hour, as the README starts it: the program itself (both
 * services, codehost's first root password, the default public addresses at
 * `localhost`), in Chromium at those addresses. From an empty install to the
 * CFIHOS v2.0 Core library imported, submitted as one package, reviewed by
 * another person and released: root signs in to refdata through codehost,
 * chooses a password, imports and submits; Rita, made a Reviewer at codehost,
 * signs in the same way, reads the package family by family, approves it and
 * releases the library. The axe-core check at 1280 and 375 px on each page,
 * screenshots, then the walk again as a returning user under the enforced
 * content security policy.
 */
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  accessibilityViolations,
  browserAvailable,
  browserSkipReason,
  launchChromium,
  policyViolations,
} from '../browser/chromium.js';
import { freePort } from '../codehost/helpers.js';
import { stopProgram } from './program.js';

const OUTPUT = '.test-output';
const PROGRAM = ['--import', 'tsx', 'src/main.ts'];

describe.skipIf(!browserAvailable)(
  `the first hour at the README's address${browserAvailable ? '' : ` (skipped: ${browserSkipReason})`}`,
  () => {
    let browser: Browser;
    let server: ChildProcess | undefined;
    let root: string;
    let env: Record<string, string>;
    let output = '';
    const at = { codehost: '', refdata: '' };
    const passwords = { root: 'root chooses a long password', rita: 'rita chooses her own' };
    let ritaFirst = '';

    /** An administrator's command, as the README's `npm run cli` runs it. */
    const command = (...args: string[]) => {
      const run = spawnSync(process.execPath, [...PROGRAM, ...args], { env, encoding: 'utf8' });
      expect(run.status, `${args.join(' ')}: ${run.stderr}`).toBe(0);
      return run.stdout;
    };

    beforeAll(async () => {
      mkdirSync(OUTPUT, { recursive: true });
      root = mkdtempSync(join(tmpdir(), 'chrd-first-hour-'));
      const ports = { codehost: await freePort(), refdata: await freePort() };
      // Only the ports, as the README says to choose them: the addresses follow.
      env = {
        PATH: process.env.PATH ?? '',
        HOME: root,
        DATA_DIR: join(root, 'data'),
        CODEHOST_PORT: String(ports.codehost),
        REFDATA_PORT: String(ports.refdata),
        REFDATA_IMPORT_POLL_MS: '100',
      };
      server = spawn(process.execPath, [...PROGRAM, 'start'], {
        env,
        detached: true,
        stdio: 'pipe',
      });
      const listen = (chunk: Buffer) => {
        output += chunk.toString();
      };
      server.stdout?.on('data', listen);
      server.stderr?.on('data', listen);
      for (let waited = 0; !output.includes('refdata API token'); waited += 100) {
        if (waited > 120_000) throw new Error(`the program did not start: ${output}`);
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      // The addresses it says to open are the ones to use: localhost, not 127.0.0.1.
      at.codehost = /^codehost at (\S+) \(listening on 127\.0\.0\.1:\d+\)/m.exec(output)?.[1] ?? '';
      at.refdata = /^refdata at (\S+) \(listening on 127\.0\.0\.1:\d+\)/m.exec(output)?.[1] ?? '';
      expect(at.codehost).toBe(`http://localhost:${ports.codehost}`);
      expect(at.refdata).toBe(`http://localhost:${ports.refdata}`);
      expect(output).toContain(`No library yet: ${at.refdata} offers a Creator`);
      // Rita, a reviewer: her account and the group that makes her one, as the guide makes them.
      ritaFirst =
        /Password: (\S+)/.exec(command('codehost-user-create', 'rita', 'rita@example.com'))?.[1] ??
        '';
      command('codehost-group-create', 'refdata', '--owner=root');
      command('codehost-group-create', 'reviewers', '--parent=refdata', '--owner=root');
      command('codehost-member-add', 'group', 'refdata/reviewers', 'rita', 'developer');
      browser = await launchChromium();
    }, 180_000);

    afterAll(async () => {
      await browser?.close();
      await stopProgram(server);
      // Retried while the program's last writes (the SPARQL snapshot) still land in it.
      rmSync(root, { recursive: true, force: true, maxRetries: 50, retryDelay: 100 });
    }, 60_000);

    async function press(page: Page, selector: string) {
      await Promise.all([page.waitForLoadState(), page.click(selector)]);
    }

    /** refdata's Sign in, through codehost, choosing a password the first time. */
    async function signIn(page: Page, login: string, password: string, chosen?: string) {
      await page.goto(`${at.refdata}/sign-in`);
      await press(page, '#sign-in-provider');
      expect(new URL(page.url()).origin).toBe(at.codehost);
      await page.fill('#login', login);
      await page.fill('#password', password);
      await press(page, 'button:has-text("Sign in")');
      if (chosen !== undefined) {
        expect(new URL(page.url()).pathname).toBe('/profile/password/edit');
        await page.fill('#current_password', password);
        await page.fill('#new_password', chosen);
        await page.fill('#password_confirmation', chosen);
        await press(page, 'button:has-text("Save password")');
      }
      // The first time, codehost asks whether refdata may use the account (as GitLab does).
      if (new URL(page.url()).pathname === '/oauth/authorize') {
        expect(await page.textContent('main')).toContain(`You will be sent back to ${at.refdata}`);
        await press(page, 'button:has-text("Authorize")');
      }
      // Back at refdata, at the address it was opened at, signed in.
      await page.waitForURL((url) => url.origin === at.refdata && url.pathname !== '/sign-in');
      expect(await page.locator('button:has-text("Sign out")').count()).toBe(1);
    }

    /** The accessibility check, the width, and a screenshot, at the page's width. */
    async function check(page: Page, width: number, shot: string) {
      expect(await accessibilityViolations(page), shot).toEqual([]);
      expect(
        await page.evaluate<number>('document.documentElement.scrollWidth'),
        shot,
      ).toBeLessThanOrEqual(width);
      await page.screenshot({ path: `${OUTPUT}/first-hour-${shot}-${width}.png`, fullPage: true });
    }

    async function contextAt(width: number, enforced: boolean): Promise<BrowserContext> {
      // bypassCSP only so the accessibility engine can be injected.
      return browser.newContext({ viewport: { width, height: 900 }, bypassCSP: !enforced });
    }

    it('walks from an empty install to a released CFIHOS library', async () => {
      // root: the home page offers CFIHOS to a visitor, who signs in to import it.
      const rootContext = await contextAt(1280, false);
      const page = await rootContext.newPage();
      await page.goto(at.refdata);
      expect(await page.textContent('#first-run-heading')).toBe('Start from CFIHOS v2.0 Core');
      await check(page, 1280, 'home-visitor');
      const initial = readFileSync(
        join(env.DATA_DIR as string, 'codehost-initial-root-password'),
        'utf8',
      ).trim();
      await signIn(page, 'root', initial, passwords.root);
      await page.goto(at.refdata);
      await check(page, 1280, 'home-creator');
      await Promise.all([
        page.waitForURL(/\/account\/imports\/\d+$/),
        page.click('#first-run button'),
      ]);
      await page.waitForSelector('#import-progress[data-running="false"]', { timeout: 120_000 });
      await check(page, 1280, 'imported');
      await Promise.all([
        page.waitForURL(/\/review\/packages\/\d+$/),
        page.click('#submit-library button'),
      ]);
      expect(await page.textContent('#package-state')).toBe('Waiting for review');
      await check(page, 1280, 'submitted');
      await rootContext.close();

      // Rita reads the package family by family, at both widths, and approves it.
      for (const width of [375, 1280]) {
        const context = await contextAt(width, false);
        const ritaPage = await context.newPage();
        if (width === 375) await signIn(ritaPage, 'rita', ritaFirst, passwords.rita);
        else await signIn(ritaPage, 'rita', passwords.rita);
        await ritaPage.goto(`${at.refdata}/review`);
        expect(await ritaPage.textContent('#queue-count')).toBe(
          '5,083 waiting in one item, oldest first.',
        );
        await check(ritaPage, width, 'queue');
        await press(ritaPage, '#queue a');
        expect(await ritaPage.locator('#families tbody tr').count()).toBe(6);
        await check(ritaPage, width, 'package');
        if (width === 1280) {
          await ritaPage.fill('#decision-text', 'CFIHOS v2.0 Core as IOGP publishes it');
          await press(ritaPage, 'button:has-text("Approve all")');
          expect(await ritaPage.textContent('#package-state')).toBe('Decided');
          // Published now: the library offers its release.
          await ritaPage.goto(`${at.refdata}/ontology/cfihos-v2-0-core`);
          expect(await ritaPage.textContent('#release-standing')).toBe(' not yet released');
          await press(ritaPage, 'a:has-text("Release it")');
          await ritaPage.fill('#version', '2.0.0');
          await ritaPage.fill('#notes', 'CFIHOS v2.0 Core as IOGP publishes it.');
          await press(ritaPage, 'button:has-text("Release")');
          expect(new URL(ritaPage.url()).pathname).toBe(
            '/ontology/cfihos-v2-0-core/releases/2.0.0',
          );
          await check(ritaPage, width, 'released');
        }
        await context.close();
      }
    }, 300_000);

    it('walks it again as a returning user under the enforced security policy', async () => {
      for (const width of [1280, 375]) {
        const context = await contextAt(width, true);
        const page = await context.newPage();
        const violations = policyViolations(page);
        await signIn(page, 'root', passwords.root);
        await page.goto(at.refdata);
        expect(await page.locator('#first-run').count()).toBe(0);
        expect(await page.locator('#libraries a:has-text("CFIHOS v2.0 Core")').count()).toBe(1);
        await press(page, '#libraries a:has-text("CFIHOS v2.0 Core")');
        expect(await page.textContent('#release-standing')).toBe(' in release 2.0.0');
        await press(page, 'a:has-text("The latest release")');
        expect(new URL(page.url()).pathname).toBe('/ontology/cfihos-v2-0-core/releases/2.0.0');
        await page.goto(`${at.refdata}/review`);
        expect(await page.textContent('#queue-count')).toBe('Nothing waits for review.');
        expect(violations).toEqual([]);
        await context.close();
      }
    }, 120_000);
  },
);
