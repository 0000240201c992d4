/**
 * `refdata-login`, the command line's sign-in, against a running codehost and
 * refdata: it finds codehost from refdata's metadata, registers itself, shows
 * a code a person approves in codehost's pages, prints a token that writes to
 * refdata's API, and the next run refreshes without asking.
 */
import { mkdtempSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { decodeJwt } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ResourceServerStore } from '../src/codehost/oauth/resource-servers.js';
import { runProgram } from '../src/program.js';
import {
  type Codehost,
  createApplication,
  createGroup,
  createUser,
  startCodehost,
  WebClient,
} from './codehost/helpers.js';
import { type Refdata, startListeningRefdata } from './refdata/helpers.js';

/** A stream that keeps what is written, and tells who waits for a line. */
class Captured extends Writable {
  text = '';
  private waiting: { pattern: RegExp; resolve: (match: RegExpMatchArray) => void }[] = [];
  override _write(chunk: Buffer, _encoding: string, done: () => void) {
    this.text += chunk.toString();
    for (const waiter of [...this.waiting]) {
      const match = this.text.match(waiter.pattern);
      if (match) {
        this.waiting.splice(this.waiting.indexOf(waiter), 1);
        waiter.resolve(match);
      }
    }
    done();
  }
  when(pattern: RegExp): Promise<RegExpMatchArray> {
    const match = this.text.match(pattern);
    if (match) return Promise.resolve(match);
    return new Promise((resolve) => this.waiting.push({ pattern, resolve }));
  }
}

describe('npm run cli -- refdata-login', () => {
  let codehost: Codehost;
  let refdata: Refdata & { url: string };
  let person: Awaited<ReturnType<typeof createUser>>;
  const tokenFile = join(mkdtempSync(join(tmpdir(), 'refdata-login-')), 'tokens.json');

  beforeAll(async () => {
    codehost = await startCodehost('sqlite', { listen: true });
    const admin = await createUser(codehost, { isAdmin: true });
    person = await createUser(codehost);
    const top = await createGroup(codehost, admin.id, { path: 'refdata' });
    await createGroup(codehost, person.id, { path: 'creators', parent: top });
    const web = await createApplication(codehost, admin.id, { scopes: ['openid'] });
    refdata = await startListeningRefdata({
      REFDATA_OIDC_ISSUER: codehost.url,
      REFDATA_OIDC_CLIENT_ID: web.clientId,
      REFDATA_OIDC_CLIENT_SECRET: web.secret,
    });
    await new ResourceServerStore(codehost.db).ensure({ identifier: refdata.url, name: 'refdata' });
  }, 60_000);
  afterAll(async () => {
    await refdata?.close();
    await codehost?.close();
  });

  const login = (...extra: string[]) => {
    const stdout = new Captured();
    const stderr = new Captured();
    const status = runProgram(
      ['refdata-login', `--server=${refdata.url}`, `--token-file=${tokenFile}`, ...extra],
      { env: {}, stdout, stderr },
    );
    return { stdout, stderr, status };
  };

  it('signs a person in with a code, and the token writes to refdata', async () => {
    const run = login();
    const [, code] = await run.stderr.when(/shows the code ([A-Z]{4}-[A-Z]{4})/);
    expect(run.stderr.text).toContain(`open ${codehost.url}/oauth/device?user_code=${code}`);
    // The person approves in codehost's pages.
    const browser = new WebClient(codehost);
    await browser.signIn(person.username, person.password);
    await browser.get('/oauth/device');
    expect((await browser.post('/oauth/device', { user_code: code as string })).statusCode).toBe(
      303,
    );
    const confirm = await browser.get('/oauth/device/confirm');
    expect(confirm.body).toContain('id="approve"');
    // The page says which API the device asks for, and that nobody vouches for the client.
    expect(confirm.body).toMatch(/id="resource">Its access will be to <strong>refdata<\/strong>/);
    expect(confirm.body).toContain('registered itself with codehost');
    await browser.post('/oauth/device/decision', {
      user_code: code as string,
      decision: 'approve',
    });
    expect(await run.status, run.stderr.text).toBe(0);
    const token = run.stdout.text.trim();
    expect(decodeJwt(token)).toMatchObject({ aud: refdata.url, iss: codehost.url, scope: 'api' });
    expect(statSync(tokenFile).mode & 0o777).toBe(0o600);

    const created = await fetch(`${refdata.url}/ontologies/domains`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({
        changeJustification: 'From the CLI',
        name: 'CLI library',
        description: 'x',
      }),
    });
    expect(created.status, await created.clone().text()).toBe(201);

    // Run again: the saved refresh token gives a new access token, nobody asked.
    const again = login();
    expect(await again.status, again.stderr.text).toBe(0);
    expect(again.stderr.text).not.toContain('shows the code');
    const next = again.stdout.text.trim();
    expect(next).not.toBe(token);
    expect(decodeJwt(next).sub).toBe(String(person.id));
  }, 60_000);

  it('refuses a call without --server, and a server that is not a URL', async () => {
    const stdout = new Captured();
    const stderr = new Captured();
    expect(await runProgram(['refdata-login'], { env: {}, stdout, stderr })).toBe(2);
    expect(stderr.text).toContain('--server=<refdata URL> is required');
    expect(await runProgram(['refdata-login', '--server=nope'], { env: {}, stdout, stderr })).toBe(
      2,
    );
  });
});
