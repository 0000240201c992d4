import type { FastifyRequest } from 'fastify';
import * as client from 'openid-client';
import { HttpError } from '../../platform/http/problem.js';
import { partValue } from '../../platform/http/request-parts.js';
import type { HttpApp } from '../../platform/http/server.js';
import { formField } from '../../platform/web/page-checks.js';
import {
  CALLBACK_PATH,
  type IdentityProvider,
  rolesFromClaims,
} from '../auth/identity-provider.js';
import { ROLES } from '../auth/roles.js';
import { claimAt } from '../auth/tokens.js';
import { problem } from '../problem-codes.js';
import { type Pages, returnPathOrHome } from './pages.js';

/** How long a sign-in at the provider may take before its callback is refused. */
const SIGN_IN_WINDOW_MS = 10 * 60 * 1000;

function providerProblem(status: number, detail: string): HttpError {
  return new HttpError(problem(status, 'sign-in-failed', detail, { title: 'Sign-in failed' }));
}

/** `POST /sign-in/oidc` (to the provider) and the callback that comes back from it. */
export function registerOidcSignIn(app: HttpApp, pages: Pages, oidc: IdentityProvider): void {
  app.post('/sign-in/oidc', { config: { open: true } }, async (request, reply) => {
    let configuration: client.Configuration;
    try {
      configuration = await oidc.discover();
    } catch (error) {
      request.log.warn({ err: error }, 'OpenID Connect discovery failed');
      throw providerProblem(
        503,
        `${oidc.config.name} cannot be reached just now, so signing in through it is not possible. Try again in a minute, or sign in with a token.`,
      );
    }
    const session = await pages.ensureSession(request, reply);
    const codeVerifier = client.randomPKCECodeVerifier();
    const state = client.randomState();
    const nonce = client.randomNonce();
    session.data.signIn = {
      state,
      nonce,
      codeVerifier,
      returnTo: returnPathOrHome(formField(request.body, 'return_to')),
      startedAt: Date.now(),
    };
    await pages.sessions.save(session);
    const scope = [
      'openid',
      'profile',
      'email',
      ...(oidc.config.gitlabAdmins ? ['read_user'] : []),
    ];
    const target = client.buildAuthorizationUrl(configuration, {
      redirect_uri: oidc.redirectUri,
      scope: scope.join(' '),
      state,
      nonce,
      code_challenge: await client.calculatePKCECodeChallenge(codeVerifier),
      code_challenge_method: 'S256',
    });
    return reply.redirect(target.href, 303);
  });

  app.get(CALLBACK_PATH, { config: { open: true } }, async (request, reply) => {
    const session = pages.sessionOf(request);
    const pending = session?.data.signIn;
    if (!session || !pending || Date.now() - pending.startedAt > SIGN_IN_WINDOW_MS) {
      throw providerProblem(
        400,
        'This sign-in was not started here, or took too long. Start again from the sign-in page.',
      );
    }
    // Used once, whatever happens next.
    delete session.data.signIn;
    await pages.sessions.save(session);
    const error = partValue(request.query, 'error');
    if (typeof error === 'string') {
      throw providerProblem(
        error === 'access_denied' ? 403 : 400,
        error === 'access_denied'
          ? `${oidc.config.name} did not let you sign in (you may have cancelled). Start again from the sign-in page.`
          : `${oidc.config.name} refused the sign-in (${error}). Start again from the sign-in page.`,
      );
    }
    const configuration = await oidc.discover();
    let tokens: Awaited<ReturnType<typeof client.authorizationCodeGrant>>;
    try {
      tokens = await client.authorizationCodeGrant(configuration, currentUrl(request, oidc), {
        pkceCodeVerifier: pending.codeVerifier,
        expectedState: pending.state,
        expectedNonce: pending.nonce,
        idTokenExpected: true,
      });
    } catch (error) {
      request.log.warn({ err: error }, 'OpenID Connect callback refused');
      throw providerProblem(
        400,
        'The answer from the sign-in provider could not be accepted (it may be stale or not meant for this page). Start again from the sign-in page.',
      );
    }
    const idClaims = (tokens.claims() ?? {}) as Record<string, unknown>;
    const subject = typeof idClaims.sub === 'string' ? idClaims.sub : '';
    // Some claims come only from userinfo (GitLab's `groups`, say): both are read,
    // userinfo's checked by the library to be about the same subject.
    let claims = idClaims;
    if (claimAt(idClaims, oidc.config.rolesClaim) === undefined) {
      try {
        const userinfo = await client.fetchUserInfo(configuration, tokens.access_token, subject);
        claims = { ...userinfo, ...idClaims };
      } catch (error) {
        request.log.warn({ err: error }, 'OpenID Connect userinfo failed');
      }
    }
    const admin =
      oidc.config.gitlabAdmins && (await oidc.isGitlabAdmin(configuration, tokens.access_token));
    const roles = admin ? [...ROLES] : rolesFromClaims(claims, oidc.config);
    if (roles.length === 0) {
      // Someone the provider took every role from is told nothing more (docs/review.md).
      await pages.refdata.notifications.noteRoles(`${oidc.config.issuer}#${subject}`, []);
      throw providerProblem(
        403,
        `You signed in to ${oidc.config.name}, but your account holds no refdata role. Ask an administrator to add you to the group that grants one.`,
      );
    }
    const text = (value: unknown): value is string => typeof value === 'string' && value !== '';
    const username = [claims.preferred_username, claims.nickname].find(text);
    const name = [claims.name, username, subject].find(text) ?? subject;
    const actor = `${oidc.config.issuer}#${subject}`;
    // Revisions record the stable subject; pages show who it is. Mail goes only
    // to an address the provider vouches for.
    const email = text(claims.email) && claims.email_verified === true ? claims.email : null;
    await pages.people.remember(actor, { name, username: username ?? null }, { email, roles });
    return pages.signIn(
      request,
      reply,
      { subject: actor, name, roles, via: 'oidc' },
      {
        returnTo: pending.returnTo,
        ...(tokens.id_token ? { idToken: tokens.id_token } : {}),
        ...(typeof idClaims.sid === 'string' ? { sid: idClaims.sid } : {}),
      },
    );
  });
}

/** The callback's address as the provider sent the browser to it (query included). */
function currentUrl(request: FastifyRequest, oidc: IdentityProvider): URL {
  const query = request.url.includes('?') ? request.url.slice(request.url.indexOf('?')) : '';
  return new URL(`${oidc.redirectUri}${query}`);
}

/** Where the browser goes after signing out here: the provider's logout, when it has one. */
export async function providerLogout(
  oidc: IdentityProvider | undefined,
  idToken: string | undefined,
  publicUrl: string,
): Promise<string | undefined> {
  if (!oidc || !idToken) return undefined;
  try {
    const configuration = await oidc.discover();
    if (!configuration.serverMetadata().end_session_endpoint) return undefined;
    return client.buildEndSessionUrl(configuration, {
      id_token_hint: idToken,
      post_logout_redirect_uri: `${publicUrl}/`,
      client_id: oidc.config.clientId,
    }).href;
  } catch {
    return undefined;
  }
}
