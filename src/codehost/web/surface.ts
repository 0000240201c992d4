import type { FastifyReply, FastifyRequest } from 'fastify';
import type { HttpApp } from '../../platform/http/server.js';
import { allowFormRedirectTo } from '../../platform/web/csp.js';
import { checkPageRequest } from '../../platform/web/page-checks.js';
import type { UserRow } from '../accounts/users.js';
import type { Codehost } from '../context.js';
import type { Session } from './sessions.js';
import { signedInUser } from './web-context.js';

declare module 'fastify' {
  interface FastifyContextConfig {
    /**
     * The page is for a signed-in user: a visitor is sent to sign in first, and a
     * user whose password someone else chose is sent to replace it, except on the
     * pages that do that (`'password-change'`).
     */
    signedIn?: true | 'password-change';
    /**
     * A form other sites may post (a relying party's logout request): no form
     * token of ours is expected, since nothing changes before the user confirms.
     */
    crossSiteForm?: boolean;
  }
  interface FastifyRequest {
    /** The browser session the request carried, when it is valid. */
    session: Session | undefined;
    /** The signed-in user of a `signedIn` page, set before its handler runs. */
    account: UserRow | undefined;
  }
}

/**
 * What every web page gets, as hooks of the web surface: errors as HTML pages
 * (the surface's renderer), the session loaded, pages never cached (they show
 * personal data and one-time secrets), on POST the form token checked against
 * the session's (synchronizer token), and for `signedIn` pages the user.
 */
export function installPageHooks(web: HttpApp, codehost: Codehost): void {
  web.decorateRequest('session', undefined);
  web.decorateRequest('account', undefined);
  web.addHook('onRoute', (route) => {
    // Pages are for people; the API description is for programs (the OAuth
    // pages clients are built against say `hide: false`).
    route.schema = { hide: true, ...route.schema };
    // A malformed ID in a page's address is a page that is not there (404), not
    // a lesson in schema validation: checked in the preHandler below.
    route.attachValidation = true;
  });
  web.addHook('onRequest', async (request, reply) => {
    reply.header('cache-control', 'no-store');
    request.session = await codehost.sessions.load(request);
    await forgetAbandonedReauthentication(codehost, request.session);
  });
  web.addHook('preHandler', async (request, reply) => {
    const data = request.session?.data;
    const config = request.routeOptions.config;
    if (config.crossSiteForm) {
      if (request.validationError) throw request.validationError;
    } else {
      checkPageRequest(request, data && { csrf: data.csrf, signedIn: data.userId !== undefined });
    }
    allowFormRedirectToWaitingClient(reply, data?.returnTo);
    if (config.signedIn) {
      request.account = await signedInUser(codehost, request, reply, {
        duringPasswordChange: config.signedIn === 'password-change',
      });
      // Sent to sign in, or to replace the password: the handler does not run.
      if (!request.account) return reply;
    }
    return undefined;
  });
}

/** The signed-in user of a page declared `signedIn`. */
export function accountOf(request: FastifyRequest): UserRow {
  if (!request.account) {
    throw new Error(`${request.routeOptions.url} reads the account without declaring signedIn.`);
  }
  return request.account;
}

/**
 * The session of a page that cannot run without one: a `signedIn` page (its
 * user came from the session) or a form post (its token was checked against the
 * session's in the preHandler, so a post without a session never gets here).
 */
export function sessionOf(request: FastifyRequest): Session {
  if (!request.session) {
    throw new Error(
      `${request.method} ${request.routeOptions.url} reads a session: declare signedIn or take a form.`,
    );
  }
  return request.session;
}

/**
 * A request to sign in again that the user walked away from is forgotten, with
 * where it would have returned to: no page keeps allowing that client's address
 * as a form target, and no later form (a voluntary password change) leads there.
 */
async function forgetAbandonedReauthentication(codehost: Codehost, session: Session | undefined) {
  const until = session?.data.reauthenticateUntil;
  if (!session || until === undefined || until > Date.now()) return;
  delete session.data.reauthenticateUntil;
  delete session.data.returnTo;
  delete session.data.loginHint;
  await codehost.sessions.save(session);
}

/**
 * While an authorization request waits for the user to sign in (or to replace
 * their password), the last form they submit is answered with a redirect to
 * `/oauth/authorize`, and from there, once they have consented before, straight
 * on to the client. Browsers apply form-action to that whole chain, so each page
 * on the way allows the client's redirect URI. It was checked against the
 * client's registered URIs before it was kept as `returnTo`.
 */
function allowFormRedirectToWaitingClient(reply: FastifyReply, returnTo: string | undefined) {
  if (!returnTo?.startsWith('/oauth/authorize?')) return;
  const redirectUri = new URL(returnTo, 'http://codehost.invalid').searchParams.get('redirect_uri');
  if (!redirectUri || !URL.canParse(redirectUri)) return;
  allowFormRedirectTo(reply, redirectUri);
}
