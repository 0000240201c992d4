/**
 * Client ID Metadata Documents at codehost: a client whose ID is the https
 * address of its metadata is read from a real https server (on loopback,
 * which the operator allows here, with a certificate of the test's own
 * authority), checked, shown on the consent page by the site that publishes
 * it, kept for a while, and refused in words when its document is wrong.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DATABASE_KINDS } from '../harness.js';
import {
  authorizeAndApprove,
  type Codehost,
  createUser,
  startCodehost,
  tokenRequest,
  WebClient,
} from './helpers.js';

const VERIFIER = 'dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk';
const CHALLENGE = 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM';
const REDIRECT = 'http://127.0.0.1:33419/callback';

/** A certificate for 127.0.0.1, its own authority, made with openssl. */
function certificate(): { key: string; cert: string; file: string } {
  const dir = mkdtempSync(join(tmpdir(), 'cimd-'));
  execFileSync(
    'openssl',
    [
      'req',
      '-x509',
      '-newkey',
      'ec',
      '-pkeyopt',
      'ec_paramgen_curve:prime256v1',
      '-nodes',
      '-keyout',
      join(dir, 'key.pem'),
      '-out',
      join(dir, 'cert.pem'),
      '-days',
      '1',
      '-subj',
      '/CN=127.0.0.1',
      '-addext',
      'subjectAltName=IP:127.0.0.1',
    ],
    { stdio: 'ignore' },
  );
  return {
    key: readFileSync(join(dir, 'key.pem'), 'utf8'),
    cert: readFileSync(join(dir, 'cert.pem'), 'utf8'),
    file: join(dir, 'cert.pem'),
  };
}

describe.each(DATABASE_KINDS)('client ID metadata documents on %s', (kind) => {
  const documents = new Map<string, string>();
  const reads: string[] = [];
  let server: Server;
  let site: string;
  let codehost: Codehost;
  let strict: Codehost;

  beforeAll(async () => {
    const tls = certificate();
    server = createServer({ key: tls.key, cert: tls.cert }, (request, response) => {
      reads.push(request.url ?? '');
      const body = documents.get(request.url ?? '');
      response.writeHead(body === undefined ? 404 : 200, { 'content-type': 'application/json' });
      response.end(body ?? '{}');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    site = `https://127.0.0.1:${(server.address() as AddressInfo).port}`;
    codehost = await startCodehost(kind, {
      env: { OUTBOUND_ALLOWED_NETWORKS: '127.0.0.0/8', OUTBOUND_CA_FILE: tls.file },
    });
    // The default: addresses users give reach only the public internet.
    strict = await startCodehost('sqlite', { env: { OUTBOUND_CA_FILE: tls.file } });
  });
  afterAll(async () => {
    await codehost?.close();
    await strict?.close();
    server?.close();
  });

  const publish = (path: string, document: Record<string, unknown> | string) =>
    documents.set(path, typeof document === 'string' ? document : JSON.stringify(document));
  const request = (clientId: string, redirectUri = REDIRECT) => ({
    client_id: clientId,
    redirect_uri: redirectUri,
    response_type: 'code',
    scope: 'api',
    code_challenge: CHALLENGE,
    code_challenge_method: 'S256',
  });

  it('reads the document, names the site on the consent page, and issues a token to it', async () => {
    const clientId = `${site}/tool/client.json`;
    publish('/tool/client.json', {
      client_id: clientId,
      client_name: 'A scripted tool',
      redirect_uris: [REDIRECT],
      token_endpoint_auth_method: 'none',
    });
    const metadata = await codehost.app.inject('/.well-known/oauth-authorization-server');
    expect(metadata.json().client_id_metadata_document_supported).toBe(true);
    const user = await createUser(codehost);
    const browser = new WebClient(codehost);
    await browser.signIn(user.username, user.password);
    const before = reads.length;
    const consent = await browser.get(`/oauth/authorize?${new URLSearchParams(request(clientId))}`);
    expect(consent.statusCode).toBe(200);
    expect(consent.body).toContain('A scripted tool');
    expect(consent.body).toMatch(
      /id="client-identity">This application is published by <strong>127\.0\.0\.1:/,
    );
    const answer = await authorizeAndApprove(browser, request(clientId));
    // Read once for both requests: the copy is kept for five minutes.
    expect(reads.length - before).toBe(1);
    const token = await tokenRequest(codehost, {
      grant_type: 'authorization_code',
      code: answer.get('code') as string,
      redirect_uri: REDIRECT,
      client_id: clientId,
      code_verifier: VERIFIER,
    });
    expect(token.statusCode, token.body).toBe(200);
    expect(token.json().access_token).toMatch(/^[0-9a-f]{64}$/);
  });

  it.each([
    [
      'names another client_id',
      { client_id: 'https://elsewhere.example/c.json' },
      /does not give that address/,
    ],
    ['holds a client secret', { client_secret: 'x' }, /holds a client secret/],
    [
      'asks for a secret-based method',
      { token_endpoint_auth_method: 'client_secret_basic' },
      /token_endpoint_auth_method/,
    ],
    ['lists a javascript: redirect', { redirect_uris: ['javascript:alert(1)'] }, /javascript:/],
    ['is larger than 8 KiB', { client_name: 'x'.repeat(9000) }, /more than 8192 bytes/],
  ])('refuses a document that %s, on a page that says so', async (_what, change, reason) => {
    const path = `/refused/${Math.random().toString(36).slice(2)}.json`;
    const clientId = `${site}${path}`;
    publish(path, { client_id: clientId, redirect_uris: [REDIRECT], ...change });
    const user = await createUser(codehost);
    const browser = new WebClient(codehost);
    await browser.signIn(user.username, user.password);
    const page = await browser.get(`/oauth/authorize?${new URLSearchParams(request(clientId))}`);
    expect(page.statusCode).toBe(400);
    expect(page.body).toMatch(reason);
    const stored = await codehost.db
      .selectFrom('oauth_applications')
      .select('id')
      .where('uid', '=', clientId)
      .executeTakeFirst();
    expect(stored).toBeUndefined();
  });

  it('refuses a redirect URI the document does not list, and what is not JSON', async () => {
    const clientId = `${site}/tool/other.json`;
    publish('/tool/other.json', { client_id: clientId, redirect_uris: [REDIRECT] });
    const user = await createUser(codehost);
    const browser = new WebClient(codehost);
    await browser.signIn(user.username, user.password);
    const elsewhere = await browser.get(
      `/oauth/authorize?${new URLSearchParams(request(clientId, 'https://attacker.example/cb'))}`,
    );
    expect(elsewhere.statusCode).toBe(400);
    expect(elsewhere.headers.location).toBeUndefined();
    publish('/tool/broken.json', 'not json');
    const broken = await browser.get(
      `/oauth/authorize?${new URLSearchParams(request(`${site}/tool/broken.json`))}`,
    );
    expect(broken.statusCode).toBe(400);
    expect(broken.body).toContain('is not JSON');
  });

  it('reads at most twenty documents a minute on one address’s word', async () => {
    const before = reads.length;
    const pages: string[] = [];
    for (let index = 0; index < 21; index += 1) {
      const page = await codehost.app.inject({
        url: `/oauth/authorize?${new URLSearchParams(request(`${site}/flood/${index}.json`))}`,
        remoteAddress: '198.51.100.7',
      });
      expect(page.statusCode).toBe(400);
      pages.push(page.body);
    }
    expect(reads.length - before).toBe(20);
    expect(pages.at(-1)).toContain('Too many client metadata documents');
    expect(pages[0]).toContain('could not be read: answered 404');
  });

  it('reaches no internal address on a client’s word unless the operator allows it', async () => {
    const clientId = `${site}/tool/client.json`;
    const before = reads.length;
    const user = await createUser(strict);
    const browser = new WebClient(strict);
    await browser.signIn(user.username, user.password);
    const page = await browser.get(`/oauth/authorize?${new URLSearchParams(request(clientId))}`);
    expect(page.statusCode).toBe(400);
    expect(page.body).toContain('127.0.0.1 is an address requests may not go to');
    expect(reads.length).toBe(before);
  });
});
