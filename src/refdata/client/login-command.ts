import { chmod, mkdir, readFile, writeFile } from 'node:fs/promises';
import { homedir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import * as client from 'openid-client';
import { type Command, UsageError } from '../../platform/cli/command.js';

/** The scope that gives a token refdata's roles (refdata/auth/provider-tokens.ts). */
const SCOPE = 'api';
const CLIENT_NAME = 'refdata command line';

/** What the command keeps between runs, per refdata server: the client it registered and its tokens. */
interface Saved {
  server: string;
  resource: string;
  issuer: string;
  clientId: string;
  accessToken?: string;
  refreshToken?: string;
  expiresAt?: number;
}

function option(args: readonly string[], name: string): string | undefined {
  return args.find((arg) => arg.startsWith(`--${name}=`))?.slice(name.length + 3);
}

/** Plain http only to this computer (a local refdata and codehost). */
function insecureIfLoopback(url: string) {
  const { protocol, hostname } = new URL(url);
  return protocol === 'http:' && ['127.0.0.1', 'localhost', '[::1]'].includes(hostname)
    ? { execute: [client.allowInsecureRequests] }
    : {};
}

async function readJson(url: string): Promise<Record<string, unknown>> {
  const response = await fetch(url, {
    headers: { accept: 'application/json' },
    signal: AbortSignal.timeout(10_000),
  });
  if (!response.ok) throw new Error(`${url} answered ${response.status}`);
  return (await response.json()) as Record<string, unknown>;
}

async function load(file: string): Promise<Saved[]> {
  try {
    const saved = JSON.parse(await readFile(file, 'utf8')) as unknown;
    return Array.isArray(saved) ? (saved as Saved[]) : [];
  } catch {
    return [];
  }
}

/** Kept readable by its owner only: it holds a refresh token. */
async function store(file: string, entries: Saved[]): Promise<void> {
  await mkdir(dirname(file), { recursive: true, mode: 0o700 });
  await writeFile(file, `${JSON.stringify(entries, null, 2)}\n`, { mode: 0o600 });
  await chmod(file, 0o600);
}

/**
 * `refdata-login`: a token for refdata's API from the authorization server
 * refdata names, as a person at a terminal gets one. It reads refdata's
 * protected resource metadata (RFC 9728) and the server's metadata (RFC 8414),
 * registers itself once (RFC 7591), runs the device grant (RFC 8628) with
 * `resource` (RFC 8707), and prints the access token. The client and the
 * refresh token are kept in a file of the person's own, so the next run (a
 * nightly job, say) refreshes without asking again.
 */
export const refdataLoginCommand: Command = {
  name: 'refdata-login',
  usage: 'refdata-login --server=<refdata URL> [--token-file=<path>] [--new]',
  summary: "Sign in at refdata's identity provider and print a token for its API.",
  details:
    'Shows an address and a code to approve in a browser, then prints the access token on standard output (messages go to standard error), so that TOKEN=$(npm run -s cli -- refdata-login --server=...) works in a shell. The registered client and the refresh token are kept in --token-file (default $XDG_CONFIG_HOME/refdata/tokens.json, else ~/.config/refdata/tokens.json; readable by you only); the next run refreshes the token without asking, unless --new.',
  example: '--server=http://localhost:8081',
  async run(args, { stdout, stderr }) {
    const unknown = args.find((arg) => !/^--(server|token-file)=./.test(arg) && arg !== '--new');
    if (unknown !== undefined) throw new UsageError(`Unknown argument ${unknown}.`);
    const serverText = option(args, 'server');
    if (!serverText) throw new UsageError('--server=<refdata URL> is required.');
    let server: string;
    try {
      server = new URL(serverText).origin;
    } catch {
      throw new UsageError(`--server=${serverText} is not a URL.`);
    }
    // Where the XDG convention keeps a person's settings, as command-line tools do.
    const configHome = process.env.XDG_CONFIG_HOME || join(homedir(), '.config');
    const file = resolve(option(args, 'token-file') ?? join(configHome, 'refdata', 'tokens.json'));
    const say = (text: string) => stderr.write(`${text}\n`);

    // 1. Where refdata's tokens come from.
    const resourceMetadata = await readJson(`${server}/.well-known/oauth-protected-resource`);
    const resource = String(resourceMetadata.resource ?? server);
    const [issuer] = (resourceMetadata.authorization_servers as string[] | undefined) ?? [];
    if (!issuer) {
      say(
        `${server} names no authorization server: ask its operator for a token (refdata-token-mint).`,
      );
      return 1;
    }
    const entries = await load(file);
    const previous = entries.find((entry) => entry.server === server && entry.issuer === issuer);
    const options = insecureIfLoopback(issuer);

    // 2. The client: registered once, then remembered.
    let configuration: client.Configuration;
    if (previous) {
      configuration = await client.discovery(
        new URL(issuer),
        previous.clientId,
        undefined,
        client.None(),
        options,
      );
    } else {
      configuration = await client.dynamicClientRegistration(
        new URL(issuer),
        {
          client_name: CLIENT_NAME,
          grant_types: ['urn:ietf:params:oauth:grant-type:device_code', 'refresh_token'],
          response_types: [],
          token_endpoint_auth_method: 'none',
          scope: SCOPE,
        },
        client.None(),
        options,
      );
      say(`Registered with ${issuer} as client ${configuration.clientMetadata().client_id}.`);
    }
    const clientId = configuration.clientMetadata().client_id;

    // 3. A refresh when there is one, else the person approves a code in a browser.
    let tokens: client.TokenEndpointResponse | undefined;
    if (previous?.refreshToken && !args.includes('--new')) {
      try {
        tokens = await client.refreshTokenGrant(configuration, previous.refreshToken, { resource });
      } catch (error) {
        say(
          `The saved sign-in could not be refreshed (${(error as Error).message}); signing in again.`,
        );
      }
    }
    if (!tokens) {
      const device = await client.initiateDeviceAuthorization(configuration, {
        scope: SCOPE,
        resource,
      });
      say(`To sign in, open ${device.verification_uri_complete ?? device.verification_uri}`);
      say(`and check that it shows the code ${device.user_code}. Waiting for you to approve it...`);
      tokens = await client.pollDeviceAuthorizationGrant(configuration, device, { resource });
    }
    await store(file, [
      ...entries.filter((entry) => entry !== previous),
      {
        server,
        resource,
        issuer,
        clientId,
        accessToken: tokens.access_token,
        ...(tokens.refresh_token
          ? { refreshToken: tokens.refresh_token }
          : previous?.refreshToken
            ? { refreshToken: previous.refreshToken }
            : {}),
        ...(tokens.expires_in ? { expiresAt: Date.now() + tokens.expires_in * 1000 } : {}),
      },
    ]);
    say(
      `Signed in. The token works for ${tokens.expires_in ?? 'an unknown number of'} seconds; run this again for a new one (saved in ${file}).`,
    );
    stdout.write(`${tokens.access_token}\n`);
    return 0;
  },
};
