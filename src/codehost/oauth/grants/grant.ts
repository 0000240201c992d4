import type { FastifyRequest } from 'fastify';
import type { PasswordSignIn } from '../../accounts/sign-in.js';
import type { UserRow, UserStore } from '../../accounts/users.js';
import type { ApplicationStore } from '../applications.js';
import type { DeviceGrantStore } from '../device-grants.js';
import { oauthError } from '../errors.js';
import { invalidTarget } from '../resource-servers.js';
import type { IssuedToken, TokenStore } from '../tokens.js';

/**
 * The stores a grant works with: a grant takes these, not the whole service
 * context (which holds the grants, so naming it here would close a circle).
 */
export interface GrantStores {
  applications: ApplicationStore;
  deviceGrants: DeviceGrantStore;
  signIn: PasswordSignIn;
  tokens: TokenStore;
  users: UserStore;
}

/** What a grant is given: the request (for client authentication) and its single-valued form. */
export interface GrantInput {
  codehost: GrantStores;
  request: FastifyRequest;
  body: Record<string, string>;
  /** RFC 8707: the registered resource server the token is asked for, if any. */
  resource: string | undefined;
}

/**
 * What a grant hands back: the token it issued and, with it in hand, what an ID
 * token needs, so nothing is read again to make one.
 */
export interface Granted {
  issued: IssuedToken;
  user: UserRow;
  /** The client's Application ID; without one (a password grant naming no client), no ID token. */
  clientId: string | undefined;
  /** When the user signed in (seconds): the original sign-in on a refresh. */
  authTime: number | undefined;
  /** The authorization request's nonce, on the code exchange only. */
  nonce: string | undefined;
  /** How the user signed in (RFC 8176 values), when known. */
  amr?: readonly string[] | undefined;
  /** The OpenID Connect session the authorization was approved in, when there was one. */
  sid?: string | undefined;
}

/**
 * One grant type of the token endpoint (as node-oidc-provider models them): the
 * parameters it reads, for the API description, and how it issues a token.
 * Adding a grant is a file in this folder and a line in `index.ts`.
 */
export interface Grant {
  type: string;
  /** Its parameters beyond the client's, each with what it is. */
  parameters: Readonly<Record<string, string>>;
  grant(input: GrantInput): Promise<Granted>;
}

/**
 * RFC 8707 section 2.2: a token request may name the resource the authorization
 * was for, or none; never another one.
 */
export function checkSameResource(asked: string | undefined, granted: string | null): void {
  if (asked === undefined || asked === granted) return;
  throw invalidTarget(
    granted === null
      ? `This authorization was given for codehost's own API, not for ${asked}.`
      : `This authorization was given for ${granted}, not for ${asked}.`,
  );
}

export function invalidRequest(description: string) {
  return oauthError(400, 'invalid_request', description);
}

/** A stored `amr` column (space-separated) as its values, if there is one. */
export function amrOf(column: string | null | undefined): string[] | undefined {
  return column ? column.split(' ').filter(Boolean) : undefined;
}

/** A time column (ms) as OpenID Connect's seconds, if there is one. */
export function secondsOf(time: number | string | null | undefined): number | undefined {
  return time === null || time === undefined ? undefined : Math.floor(Number(time) / 1000);
}
