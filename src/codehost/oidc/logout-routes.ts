import type { FastifyReply, FastifyRequest } from 'fastify';
import { compactVerify, createLocalJWKSet } from 'jose';
import { HttpError } from '../../platform/http/problem.js';
import type { HttpApp } from '../../platform/http/server.js';
import { html } from '../../platform/web/html.js';
import { browserAnswers } from '../api/described-responses.js';
import type { Codehost } from '../context.js';
import { type ApplicationRow, isRegisteredPostLogoutUri } from '../oauth/applications.js';
import { issuerOf } from '../oauth/issuer.js';
import { problem } from '../problem-codes.js';
import { csrfField, page } from '../web/layout.js';
import type { Session } from '../web/sessions.js';
import { allowFormRedirectTo, currentUser } from '../web/web-context.js';

const PARAMETERS = ['id_token_hint', 'client_id', 'post_logout_redirect_uri', 'state'] as const;
type Parameter = (typeof PARAMETERS)[number];

/** A logout request, checked: where to go afterwards, if anywhere. */
interface LogoutRequest {
  application: ApplicationRow | undefined;
  postLogoutRedirectUri: string | undefined;
  state: string | undefined;
}

function pageError(detail: string): HttpError {
  return new HttpError(problem(400, 'invalid_request', detail, { title: 'Sign-out failed' }));
}

/**
 * The `aud` of an ID token this provider signed (expired ones too: a relying
 * party logs out with the token it holds, however old), or a page error.
 */
async function hintedClientIds(codehost: Codehost, hint: string): Promise<string[]> {
  try {
    const keys = createLocalJWKSet(await codehost.signingKeys.published());
    const { payload } = await compactVerify(hint, keys);
    const claims = JSON.parse(new TextDecoder().decode(payload)) as {
      iss?: unknown;
      aud?: unknown;
    };
    if (claims.iss !== issuerOf(codehost)) throw new Error('another issuer');
    const audience = Array.isArray(claims.aud) ? claims.aud : [claims.aud];
    return audience.filter((value): value is string => typeof value === 'string');
  } catch {
    throw pageError('id_token_hint is not an ID token issued by this provider.');
  }
}

/**
 * Checks an RP-initiated logout request (OpenID Connect RP-Initiated Logout 1.0).
 * Problems are shown here and never redirected: a `post_logout_redirect_uri`
 * is followed only when it is registered on the client the request names.
 */
async function validate(codehost: Codehost, source: unknown): Promise<LogoutRequest> {
  const raw = (source ?? {}) as Record<string, unknown>;
  const value = (name: Parameter): string | undefined => {
    const item = raw[name];
    if (Array.isArray(item)) throw pageError(`The parameter ${name} is repeated.`);
    if (item !== undefined && typeof item !== 'string')
      throw pageError(`The parameter ${name} is invalid.`);
    return item === '' ? undefined : item;
  };
  const hint = value('id_token_hint');
  const clientId = value('client_id');
  const hinted = hint === undefined ? [] : await hintedClientIds(codehost, hint);
  if (clientId !== undefined && hint !== undefined && !hinted.includes(clientId)) {
    throw pageError('client_id is not the client the id_token_hint was issued to.');
  }
  const uid = clientId ?? hinted[0];
  const application =
    uid === undefined ? undefined : await codehost.applications.findByClientId(uid);
  if (uid !== undefined && !application) throw pageError('The client is unknown.');
  const postLogoutRedirectUri = value('post_logout_redirect_uri');
  if (postLogoutRedirectUri !== undefined) {
    if (!application) {
      throw pageError(
        'post_logout_redirect_uri needs client_id or id_token_hint to name the client.',
      );
    }
    if (!isRegisteredPostLogoutUri(application, postLogoutRedirectUri)) {
      throw pageError('post_logout_redirect_uri is not registered for this application.');
    }
  }
  const state = value('state');
  if (state !== undefined && state.length > 1024) throw pageError('state is too long.');
  return { application, postLogoutRedirectUri, state };
}

function finish(reply: FastifyReply, request: LogoutRequest) {
  if (request.postLogoutRedirectUri !== undefined) {
    const target = new URL(request.postLogoutRedirectUri);
    if (request.state !== undefined) target.searchParams.set('state', request.state);
    return reply.redirect(target.href, 303);
  }
  return reply
    .type('text/html')
    .send(
      page(
        { title: 'Signed out' },
        html`<p id="signed-out">You are signed out of codehost.</p><p><a href="/users/sign_in">Sign in again</a></p>`,
      ),
    );
}

function confirmationPage(
  request: LogoutRequest,
  session: Session,
  user: { username: string },
): string {
  const hidden = html`${csrfField(session.data.csrf)}
    ${request.application ? html`<input type="hidden" name="client_id" value="${request.application.uid}">` : html``}
    ${request.postLogoutRedirectUri === undefined ? html`` : html`<input type="hidden" name="post_logout_redirect_uri" value="${request.postLogoutRedirectUri}">`}
    ${request.state === undefined ? html`` : html`<input type="hidden" name="state" value="${request.state}">`}`;
  return page(
    { title: 'Sign out?', user, csrf: session.data.csrf },
    html`<p>${request.application ? html`<strong id="application-name">${request.application.name}</strong> asks to sign you out of codehost.` : html`Sign out of codehost?`}</p>
<form class="inline" method="post" action="/oauth/logout/confirm">${hidden}<button type="submit" id="sign-out">Sign out</button></form>
<p><a href="/profile">Stay signed in</a></p>`,
  );
}

/**
 * RP-initiated logout: `GET` and `POST /oauth/logout` (the discovery document's
 * `end_session_endpoint`). A signed-in user is asked to confirm, so a page of
 * another site cannot sign anyone out; the confirmation ends the session and
 * returns to the registered `post_logout_redirect_uri` with `state`.
 */
export function registerLogoutRoutes(app: HttpApp, codehost: Codehost): void {
  const ask = async (request: FastifyRequest, reply: FastifyReply, source: unknown) => {
    const logout = await validate(codehost, source);
    const user = await currentUser(codehost, request);
    if (!user || !request.session) {
      // Nobody to sign out here: go straight on.
      return finish(reply, logout);
    }
    if (logout.postLogoutRedirectUri !== undefined)
      allowFormRedirectTo(reply, logout.postLogoutRedirectUri);
    return reply.type('text/html').send(confirmationPage(logout, request.session, user));
  };
  // An OpenID Connect endpoint, not just a page: relying parties are built against it.
  const schema = {
    summary: 'RP-initiated logout (OpenID Connect)',
    tags: ['oauth'],
    hide: false,
    response: browserAnswers(200, 302, 303, 400),
  };
  app.get('/oauth/logout', { schema }, (request, reply) => ask(request, reply, request.query));
  // A relying party may post the request from its own page: no form token of ours
  // can be expected, and nothing changes before the user confirms.
  app.post('/oauth/logout', { schema, config: { crossSiteForm: true } }, (request, reply) =>
    ask(request, reply, request.body),
  );
  app.post(
    '/oauth/logout/confirm',
    {
      schema: {
        summary: 'Confirm signing out',
        tags: ['oauth'],
        hide: false,
        response: browserAnswers(302, 303, 400, 403, 422),
      },
    },
    async (request, reply) => {
      const logout = await validate(codehost, request.body);
      await codehost.sessions.end(reply, request.session);
      codehost.backchannelLogout.nudge();
      return finish(reply, logout);
    },
  );
}
