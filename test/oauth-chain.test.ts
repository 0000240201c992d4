/**
 * One identity from codehost to refdata's API, walked by an OAuth client
 * nobody here wrote (the MCP TypeScript SDK's `auth`), over real HTTP against
 * both services: a 401 names the resource metadata, which names codehost; the
 * client reads codehost's metadata, registers itself (RFC 7591), and runs the
 * code flow with PKCE and `resource` (RFC 8707); the JWT access token it gets
 * (RFC 9068) works at refdata with the roles the person's groups give, and a
 * refreshed one no longer writes once the person has left the group.
 */

import { spawn, spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { auth, extractWWWAuthenticateParams } from '@modelcontextprotocol/sdk/client/auth.js';
import type {
  OAuthClientInformationMixed,
  OAuthClientMetadata,
  OAuthTokens,
} from '@modelcontextprotocol/sdk/shared/auth.js';
import { decodeJwt, decodeProtectedHeader } from 'jose';
import * as client from 'openid-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MemberStore } from '../src/codehost/namespaces/members.js';
import { ResourceServerStore } from '../src/codehost/oauth/resource-servers.js';
import {
  authorizeAndApprove,
  type Codehost,
  createApplication,
  createGroup,
  createUser,
  startCodehost,
  WebClient,
} from './codehost/helpers.js';
import { DATABASE_KINDS } from './harness.js';
import { type Refdata, startListeningRefdata } from './refdata/helpers.js';

const PYTHON = '/usr/bin/python3';
const authlibThere =
  existsSync(PYTHON) &&
  spawnSync(PYTHON, ['-c', 'import authlib, requests'], { encoding: 'utf8' }).status === 0;

/**
 * The same chain in Python with authlib (Debian's python3-authlib), as a data
 * pipeline would write it: discovery and registration with requests, the code
 * flow with PKCE and `resource` with authlib's OAuth2Session. It prints the
 * address to send the person to and reads back where the browser landed.
 */
const AUTHLIB_CLIENT = `
import json, sys, requests
from authlib.integrations.requests_client import OAuth2Session
from authlib.common.security import generate_token
api = sys.argv[1]
refused = requests.post(api + "/ontologies/domains")
challenge = refused.headers["WWW-Authenticate"]
metadata_url = challenge.split('resource_metadata="')[1].split('"')[0]
resource = requests.get(metadata_url).json()
server = requests.get(resource["authorization_servers"][0] + "/.well-known/oauth-authorization-server").json()
redirect = "http://127.0.0.1:33420/callback"
client = requests.post(server["registration_endpoint"], json={
    "client_name": "A Python pipeline", "redirect_uris": [redirect],
    "token_endpoint_auth_method": "none", "scope": "api"}).json()
session = OAuth2Session(client["client_id"], redirect_uri=redirect, scope="api",
                        code_challenge_method="S256", token_endpoint_auth_method="none")
verifier = generate_token(48)
url, state = session.create_authorization_url(server["authorization_endpoint"],
                                              code_verifier=verifier, resource=resource["resource"])
print("AUTHORIZE " + url, flush=True)
landed = sys.stdin.readline().strip()
token = session.fetch_token(server["token_endpoint"], authorization_response=landed,
                            code_verifier=verifier, resource=resource["resource"])
made = requests.post(api + "/ontologies/domains", headers={"Authorization": "Bearer " + token["access_token"]},
                     json={"changeJustification": "From Python", "name": "Python library", "description": "x"})
print(json.dumps({"status": made.status_code, "token": token["access_token"], "refused": refused.status_code}), flush=True)
`;

/** What an MCP client keeps between its calls: here, in memory. */
class MemoryProvider {
  information: OAuthClientInformationMixed | undefined;
  saved: OAuthTokens | undefined;
  verifier = '';
  authorizationUrl: URL | undefined;
  readonly redirectUrl = 'http://127.0.0.1:33418/callback';
  get clientMetadata(): OAuthClientMetadata {
    return {
      client_name: 'An MCP client',
      redirect_uris: [this.redirectUrl],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
    };
  }
  clientInformation() {
    return this.information;
  }
  saveClientInformation(information: OAuthClientInformationMixed) {
    this.information = information;
  }
  tokens() {
    return this.saved;
  }
  saveTokens(tokens: OAuthTokens) {
    this.saved = tokens;
  }
  redirectToAuthorization(url: URL) {
    this.authorizationUrl = url;
  }
  saveCodeVerifier(verifier: string) {
    this.verifier = verifier;
  }
  codeVerifier() {
    return this.verifier;
  }
}

describe.each(DATABASE_KINDS)('refdata’s API takes codehost’s tokens, on %s', (kind) => {
  let codehost: Codehost;
  let refdata: Refdata & { url: string };
  let person: Awaited<ReturnType<typeof createUser>>;

  beforeAll(async () => {
    codehost = await startCodehost(kind, { listen: true });
    const admin = await createUser(codehost, { isAdmin: true });
    person = await createUser(codehost);
    // refdata/creators grants Creator under the default role map.
    const top = await createGroup(codehost, admin.id, { path: 'refdata' });
    await createGroup(codehost, person.id, { path: 'creators', parent: top });
    const web = await createApplication(codehost, admin.id, { scopes: ['openid'] });
    refdata = await startListeningRefdata(
      {
        REFDATA_OIDC_ISSUER: codehost.url,
        REFDATA_OIDC_CLIENT_ID: web.clientId,
        REFDATA_OIDC_CLIENT_SECRET: web.secret,
        REFDATA_ANONYMOUS_READ: 'false',
      },
      { kind },
    );
    // What the embedded start-up does: refdata's address is a resource codehost knows.
    await new ResourceServerStore(codehost.db).ensure({ identifier: refdata.url, name: 'refdata' });
  }, 60_000);
  afterAll(async () => {
    await refdata?.close();
    await codehost?.close();
  });

  /** Back in the group the first test took the person out of, whatever ran before. */
  async function rejoinCreators() {
    await codehost.db.deleteFrom('members').where('user_id', '=', person.id).execute();
    const creators = await codehost.db
      .selectFrom('namespaces')
      .select('id')
      .where('path', '=', 'creators')
      .executeTakeFirstOrThrow();
    await new MemberStore(codehost.db).add('group', creators.id, person.id, 30);
  }

  const createLibrary = (token: string, name: string) =>
    fetch(`${refdata.url}/ontologies/domains`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ changeJustification: 'From a script', name, description: 'Scripted' }),
    });

  it('walks 401 → resource metadata → server metadata → registration → code with PKCE and resource → the API', async () => {
    // 1. The API says where to learn how to get a token.
    const refused = await fetch(`${refdata.url}/ontologies/domains`, { method: 'POST' });
    expect(refused.status).toBe(401);
    const { resourceMetadataUrl } = extractWWWAuthenticateParams(refused);
    expect(resourceMetadataUrl?.href).toBe(`${refdata.url}/.well-known/oauth-protected-resource`);
    const metadata = await (await fetch(resourceMetadataUrl as URL)).json();
    expect(metadata).toMatchObject({
      resource: refdata.url,
      authorization_servers: [codehost.url],
      scopes_supported: ['api'],
      roles_supported: ['Reader', 'Creator', 'Reviewer'],
    });

    // 2-4. The SDK discovers, registers itself and sends the person to codehost.
    const provider = new MemoryProvider();
    const options = { serverUrl: refdata.url, resourceMetadataUrl: resourceMetadataUrl as URL };
    expect(await auth(provider, { ...options, scope: 'api' })).toBe('REDIRECT');
    const registered = provider.information as { client_id: string };
    expect(registered.client_id).toMatch(/^[0-9a-f]{64}$/);
    const asked = provider.authorizationUrl as URL;
    expect(asked.origin).toBe(codehost.url);
    expect(asked.searchParams.get('code_challenge_method')).toBe('S256');
    expect(new URL(asked.searchParams.get('resource') ?? '').origin).toBe(refdata.url);

    // The person signs in at codehost; the consent page names the API.
    const browser = new WebClient(codehost);
    await browser.signIn(person.username, person.password);
    const consent = await browser.get(`/oauth/authorize${asked.search}`);
    expect(consent.body).toContain('id="resource"');
    expect(consent.body).toContain(refdata.url);
    const answer = await authorizeAndApprove(browser, Object.fromEntries(asked.searchParams));
    expect(
      await auth(provider, { ...options, authorizationCode: answer.get('code') as string }),
    ).toBe('AUTHORIZED');

    // 5. The token is a JWT access token for refdata, with the person's groups.
    const tokens = provider.saved as OAuthTokens;
    expect(decodeProtectedHeader(tokens.access_token).typ).toBe('at+jwt');
    const claims = decodeJwt(tokens.access_token);
    expect(claims).toMatchObject({
      iss: codehost.url,
      aud: refdata.url,
      sub: String(person.id),
      client_id: registered.client_id,
      scope: 'api',
    });
    expect(claims.groups).toContain('refdata/creators');
    expect(Number(claims.exp) - Number(claims.iat)).toBe(300);
    // It is no token for codehost's own API.
    const own = await fetch(`${codehost.url}/api/v4/user`, {
      headers: { authorization: `Bearer ${tokens.access_token}` },
    });
    expect(own.status).toBe(401);

    // The person writes through the API as a Creator; refdata records who.
    const created = await createLibrary(tokens.access_token, 'Scripted library');
    expect(created.status, await created.clone().text()).toBe(201);
    const library = (await created.json()) as { iri: string; status: string };
    expect(library.status).toBe('Draft');

    // Leaving the group: the next token (a refresh) reads but no longer writes.
    await codehost.db.deleteFrom('members').where('user_id', '=', person.id).execute();
    const refreshed = await fetch(`${codehost.url}/oauth/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({
        grant_type: 'refresh_token',
        refresh_token: tokens.refresh_token as string,
        client_id: registered.client_id,
        resource: refdata.url,
      }),
    });
    expect(refreshed.status).toBe(200);
    const next = ((await refreshed.json()) as { access_token: string }).access_token;
    expect(decodeJwt(next).groups).toEqual([]);
    const write = await createLibrary(next, 'Another library');
    expect(write.status).toBe(403);
    const read = await fetch(
      `${refdata.url}/ontologies/domains?iri=${encodeURIComponent(library.iri)}`,
      {
        headers: { authorization: `Bearer ${next}` },
      },
    );
    expect(read.status).toBe(200);
  });

  // CI installs python3-authlib (.ci/run); a machine without it says so here rather than pass.
  it.skipIf(!authlibThere && process.env.REQUIRE_CLIENTS !== '1')(
    'walks the same chain with Python’s authlib',
    async () => {
      await rejoinCreators();
      const child = spawn(PYTHON, ['-c', AUTHLIB_CLIENT, refdata.url], {
        stdio: ['pipe', 'pipe', 'pipe'],
      });
      // One reader of the script's output, which each wait below looks into.
      let output = '';
      let errors = '';
      let ended = false;
      const waiting: (() => void)[] = [];
      const wake = () => {
        for (const waiter of waiting.splice(0)) waiter();
      };
      child.stdout.on('data', (chunk: Buffer) => {
        output += chunk.toString();
        wake();
      });
      child.stderr.on('data', (chunk: Buffer) => {
        errors += chunk.toString();
      });
      child.on('exit', () => {
        ended = true;
        wake();
      });
      const line = async (pattern: RegExp): Promise<RegExpMatchArray> => {
        for (;;) {
          const match = output.match(pattern);
          if (match) return match;
          if (ended) throw new Error(`python ended: ${output}\n${errors}`);
          await new Promise<void>((resolve) => waiting.push(resolve));
        }
      };
      const [, address] = await line(/AUTHORIZE (\S+)\n/);
      const asked = new URL(address as string);
      expect(asked.searchParams.get('resource')).toBe(refdata.url);
      const browser = new WebClient(codehost);
      await browser.signIn(person.username, person.password);
      const answer = await authorizeAndApprove(browser, Object.fromEntries(asked.searchParams));
      child.stdin.write(`http://127.0.0.1:33420/callback?${answer.toString()}\n`);
      const [json] = await line(/\{.*\}\n/);
      const result = JSON.parse(json as string) as {
        status: number;
        token: string;
        refused: number;
      };
      expect(result.refused, errors).toBe(401);
      expect(result.status, errors).toBe(201);
      expect(decodeJwt(result.token)).toMatchObject({ aud: refdata.url, scope: 'api' });
    },
  );

  it('walks the same chain with openid-client, the code flow with PKCE and resource', async () => {
    await rejoinCreators();
    const refused = await fetch(`${refdata.url}/ontologies/domains`, { method: 'POST' });
    const metadataUrl = /resource_metadata="([^"]+)"/.exec(
      refused.headers.get('www-authenticate') ?? '',
    )?.[1];
    const resource = (await (await fetch(metadataUrl as string)).json()) as {
      resource: string;
      authorization_servers: string[];
    };
    const redirectUri = 'http://127.0.0.1:33421/callback';
    const configuration = await client.dynamicClientRegistration(
      new URL(resource.authorization_servers[0] as string),
      {
        client_name: 'An openid-client application',
        redirect_uris: [redirectUri],
        token_endpoint_auth_method: 'none',
        scope: 'api',
      },
      client.None(),
      { execute: [client.allowInsecureRequests] },
    );
    const verifier = client.randomPKCECodeVerifier();
    const state = client.randomState();
    const asked = client.buildAuthorizationUrl(configuration, {
      redirect_uri: redirectUri,
      scope: 'api',
      state,
      code_challenge: await client.calculatePKCECodeChallenge(verifier),
      code_challenge_method: 'S256',
      resource: resource.resource,
    });
    const browser = new WebClient(codehost);
    await browser.signIn(person.username, person.password);
    const answer = await authorizeAndApprove(browser, Object.fromEntries(asked.searchParams));
    const landed = new URL(redirectUri);
    landed.search = answer.toString();
    const tokens = await client.authorizationCodeGrant(
      configuration,
      landed,
      { pkceCodeVerifier: verifier, expectedState: state },
      { resource: resource.resource },
    );
    expect(decodeJwt(tokens.access_token)).toMatchObject({ aud: refdata.url, scope: 'api' });
    const made = await client.fetchProtectedResource(
      configuration,
      tokens.access_token,
      new URL(`${refdata.url}/ontologies/domains`),
      'POST',
      JSON.stringify({
        changeJustification: 'From openid-client',
        name: 'OIDC library',
        description: 'x',
      }),
      new Headers({ 'content-type': 'application/json' }),
    );
    expect(made.status, await made.clone().text()).toBe(201);
  });

  it('refuses an ID token, a token for another API, and a token whose scope gives nothing', async () => {
    const client = await createApplication(codehost, person.id, {
      scopes: ['openid', 'read_user', 'api'],
      redirectUris: 'https://client.example/callback',
    });
    const browser = new WebClient(codehost);
    await browser.signIn(person.username, person.password);
    const tokenFor = async (scope: string, resource?: string) => {
      const answer = await authorizeAndApprove(browser, {
        client_id: client.clientId,
        redirect_uri: client.redirectUri,
        response_type: 'code',
        scope,
        ...(resource ? { resource } : {}),
      });
      const response = await fetch(`${codehost.url}/oauth/token`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({
          grant_type: 'authorization_code',
          code: answer.get('code') as string,
          redirect_uri: client.redirectUri,
          client_id: client.clientId,
          client_secret: client.secret,
        }),
      });
      expect(response.status).toBe(200);
      return (await response.json()) as { access_token: string; id_token: string };
    };
    const call = (token: string) => createLibrary(token, 'Not made');

    const plain = await tokenFor('openid api');
    // GitLab's opaque token, unchanged for every GitLab client.
    expect(plain.access_token).toMatch(/^[0-9a-f]{64}$/);
    const idToken = await call(plain.id_token);
    expect(idToken.status).toBe(401);
    expect(idToken.headers.get('www-authenticate')).toContain('resource_metadata=');
    expect(((await idToken.json()) as { detail: string }).detail).toMatch(/typ|audience|aud/);

    const profileOnly = await tokenFor('read_user', refdata.url);
    const noScope = await call(profileOnly.access_token);
    expect(noScope.status).toBe(403);
    expect(noScope.headers.get('www-authenticate')).toContain('insufficient_scope');
  });
});
