import type { FastifyReply } from 'fastify';
import { HttpError } from '../../platform/http/problem.js';
import type { HttpApp } from '../../platform/http/server.js';
import { html } from '../../platform/web/html.js';
import type { UserRow } from '../accounts/users.js';
import { browserAnswers } from '../api/described-responses.js';
import type { Codehost } from '../context.js';
import {
  type InteractionRequest,
  NO_INTERACTION,
  nextInteraction,
  parseInteraction,
} from '../oidc/interaction.js';
import { problem } from '../problem-codes.js';
import { csrfField, page } from '../web/layout.js';
import type { Session } from '../web/sessions.js';
import { accountOf, sessionOf } from '../web/surface.js';
import {
  allowFormRedirectTo,
  currentUser,
  detourForPasswordChange,
  field,
  sendToSignIn,
} from '../web/web-context.js';
import { type ApplicationRow, isRegisteredRedirectUri, scopesOf } from './applications.js';
import { isMetadataDocumentUrl, MetadataDocumentRefused } from './client-metadata-documents.js';
import { accessTo, whoItIs } from './consent-facts.js';
import { issuerOf } from './issuer.js';
import { type ResourceServerRow, TargetRefused } from './resource-servers.js';
import { coversScopes, DEFAULT_SCOPES, parseScopes, SCOPES, type Scope } from './scopes.js';
import { PKCE_CHALLENGE } from './tokens.js';

interface AuthorizationRequest {
  application: ApplicationRow;
  redirectUri: string;
  state: string | undefined;
  scopes: Scope[];
  codeChallenge: string | undefined;
  /** OpenID Connect: the relying party's value to find again in the ID token. */
  nonce: string | undefined;
  /** OpenID Connect's `prompt`, `max_age` and `login_hint`; for `openid` requests only. */
  interaction: InteractionRequest | undefined;
  /** RFC 8707: the API the token will be for; undefined for codehost's own. */
  resource: ResourceServerRow | undefined;
}

/** An error the client hears about at its redirect URI (RFC 6749 section 4.1.2.1). */
class RedirectableError extends Error {
  constructor(
    readonly redirectUri: string,
    readonly error: string,
    readonly description: string,
    readonly state: string | undefined,
  ) {
    super(description);
  }
}

const PARAMETERS = [
  'client_id',
  'redirect_uri',
  'response_type',
  'state',
  'scope',
  'code_challenge',
  'code_challenge_method',
  'nonce',
  'prompt',
  'max_age',
  'login_hint',
  'response_mode',
] as const;

/** Longest nonce kept: ample for any random value, short enough to store. */
const MAX_NONCE_LENGTH = 512;

/**
 * Checks an authorization request. Until the client and its redirect URI are
 * known good, errors are shown here (400 page) and never redirected: sending
 * the browser to an unverified URI would make this an open redirector.
 */
async function validate(
  codehost: Codehost,
  source: unknown,
  /** The address asking, whose reads of client metadata documents are counted. */
  requester: string,
): Promise<AuthorizationRequest> {
  const raw = (source ?? {}) as Record<string, unknown>;
  const value = (name: (typeof PARAMETERS)[number]): string | undefined => {
    const item = raw[name];
    if (Array.isArray(item)) throw pageError(`The parameter ${name} is repeated.`);
    if (item !== undefined && typeof item !== 'string')
      throw pageError(`The parameter ${name} is invalid.`);
    return item === '' ? undefined : item;
  };
  const clientId = value('client_id');
  let application: ApplicationRow | undefined;
  try {
    application =
      clientId === undefined
        ? undefined
        : isMetadataDocumentUrl(clientId)
          ? await codehost.metadataDocuments.resolve(clientId, requester)
          : await codehost.applications.findByClientId(clientId);
  } catch (error) {
    if (!(error instanceof MetadataDocumentRefused)) throw error;
    throw pageError(
      `The application that sent you here names itself by an address codehost cannot use, so nothing was shared with it. ${error.message}`,
    );
  }
  if (!application) {
    throw pageError(
      'The application that sent you here is not registered with codehost: its client ID is missing or unknown. Nothing was shared with it. Let the application’s owner know; if it is yours, compare its client ID with the Application ID on your Applications page.',
    );
  }
  const redirectUri = value('redirect_uri');
  if (!redirectUri || !isRegisteredRedirectUri(application, redirectUri)) {
    throw pageError(
      `${application.name} asked to send you back to an address it has not registered, so codehost stopped here and shared nothing with it. If the application is yours, add the exact address (its redirect URI) to its callback URLs on your Applications page.`,
    );
  }
  const state = value('state');
  const fail = (error: string, description: string) =>
    new RedirectableError(redirectUri, error, description, state);

  const responseType = value('response_type');
  if (responseType === undefined) throw fail('invalid_request', 'response_type is missing.');
  if (responseType !== 'code') {
    throw fail(
      'unsupported_response_type',
      'The authorization server does not support this response type; only "code" is supported.',
    );
  }
  // The code comes back in the query; other modes (fragment, form_post) are not offered.
  const responseMode = value('response_mode');
  if (responseMode !== undefined && responseMode !== 'query') {
    throw fail('invalid_request', 'response_mode must be query, the only mode offered.');
  }
  const scopeText = value('scope');
  const scopes = scopeText === undefined ? [...DEFAULT_SCOPES] : parseScopes(scopeText);
  if (!scopes || !coversScopes(scopesOf(application), scopes)) {
    throw fail('invalid_scope', 'The requested scope is invalid, unknown, or malformed.');
  }
  const codeChallenge = value('code_challenge');
  const method = value('code_challenge_method');
  if (method !== undefined && method !== 'S256') {
    throw fail('invalid_request', 'code_challenge_method must be S256.');
  }
  if (codeChallenge === undefined) {
    if (method !== undefined) throw fail('invalid_request', 'code_challenge is missing.');
    if (!application.confidential) {
      throw fail(
        'invalid_request',
        'PKCE (code_challenge with S256) is required for public clients.',
      );
    }
  } else {
    if (method === undefined) {
      // RFC 7636 would default to "plain", which RFC 9700 advises against.
      throw fail('invalid_request', 'code_challenge_method must be S256.');
    }
    if (!PKCE_CHALLENGE.test(codeChallenge)) {
      throw fail('invalid_request', 'code_challenge is not a valid S256 challenge.');
    }
  }
  let resource: ResourceServerRow | undefined;
  try {
    const identifier = await codehost.resourceServers.requested(raw.resource);
    resource =
      identifier === undefined ? undefined : await codehost.resourceServers.find(identifier);
  } catch (error) {
    if (error instanceof TargetRefused) throw fail('invalid_target', error.message);
    throw error;
  }
  const nonce = value('nonce');
  if (nonce !== undefined && nonce.length > MAX_NONCE_LENGTH) {
    throw fail('invalid_request', `nonce is longer than ${MAX_NONCE_LENGTH} characters.`);
  }
  // Like doorkeeper-openid_connect, these shape only OpenID Connect requests.
  let interaction: InteractionRequest | undefined;
  if (scopes.includes('openid')) {
    const parsed = parseInteraction({
      prompt: value('prompt'),
      maxAge: value('max_age'),
      loginHint: value('login_hint'),
    });
    if (typeof parsed === 'string') throw fail('invalid_request', parsed);
    interaction = parsed;
  }
  return {
    application,
    redirectUri,
    state,
    scopes,
    codeChallenge,
    nonce,
    interaction,
    resource,
  };
}

function pageError(detail: string): HttpError {
  return new HttpError(
    problem(400, 'invalid_request', detail, { title: 'This sign-in link cannot be used' }),
  );
}

/**
 * An authorization response, success or error, at the client's redirect URI. It
 * names the issuer (RFC 9207), so a client talking to several servers can tell
 * which one answered and a mix-up attack is noticed.
 */
function redirectWith(
  reply: FastifyReply,
  codehost: Codehost,
  redirectUri: string,
  parameters: Record<string, string | undefined>,
) {
  const target = new URL(redirectUri);
  for (const [name, value] of Object.entries({ ...parameters, iss: issuerOf(codehost) })) {
    if (value !== undefined) target.searchParams.set(name, value);
  }
  return reply.redirect(target.href, 302);
}

async function approve(
  codehost: Codehost,
  reply: FastifyReply,
  user: UserRow,
  request: AuthorizationRequest,
  session: Session | undefined,
) {
  const code = await codehost.tokens.issueCode({
    userId: user.id,
    applicationId: request.application.id,
    redirectUri: request.redirectUri,
    scopes: request.scopes,
    codeChallenge: request.codeChallenge,
    nonce: request.nonce,
    // This session's sign-in, not the user's latest (another browser may have made it).
    authTime: session?.data.authTime ?? user.current_sign_in_at,
    amr: session?.data.amr,
    sid: session?.data.sid,
    resource: request.resource?.identifier,
  });
  return redirectWith(reply, codehost, request.redirectUri, { code, state: request.state });
}

function consentPage(request: AuthorizationRequest, user: UserRow, session: Session): string {
  const hidden = html`${csrfField(session.data.csrf)}
    <input type="hidden" name="client_id" value="${request.application.uid}">
    <input type="hidden" name="redirect_uri" value="${request.redirectUri}">
    <input type="hidden" name="response_type" value="code">
    <input type="hidden" name="scope" value="${request.scopes.join(' ')}">
    ${request.state === undefined ? html`` : html`<input type="hidden" name="state" value="${request.state}">`}
    ${request.codeChallenge === undefined ? html`` : html`<input type="hidden" name="code_challenge" value="${request.codeChallenge}"><input type="hidden" name="code_challenge_method" value="S256">`}
    ${request.nonce === undefined ? html`` : html`<input type="hidden" name="nonce" value="${request.nonce}">`}
    ${request.resource === undefined ? html`` : html`<input type="hidden" name="resource" value="${request.resource.identifier}">`}`;
  return page(
    { title: 'Authorization required', user, csrf: session.data.csrf },
    html`<p>Authorize <strong id="application-name">${request.application.name}</strong> to use your account?</p>
${whoItIs(request.application, request.redirectUri)}
${accessTo(request.resource)}
<p>This application will be able to:</p>
<ul id="scopes">${request.scopes.map((scope) => html`<li><code>${scope}</code>: ${SCOPES[scope]}</li>`)}</ul>
<p>You will be sent back to <code>${new URL(request.redirectUri).origin === 'null' ? request.redirectUri : new URL(request.redirectUri).origin}</code>.</p>
<form class="inline" method="post" action="/oauth/authorize">${hidden}<input type="hidden" name="decision" value="approve"><button type="submit" id="authorize">Authorize</button></form>
<form class="inline" method="post" action="/oauth/authorize">${hidden}<input type="hidden" name="decision" value="deny"><button type="submit" id="deny">Deny</button></form>`,
  );
}

/** The authorization URL without `prompt=login` or `select_account`, for after signing in. */
function withoutRepeatedSignIn(url: string): string {
  const target = new URL(url, 'http://codehost.invalid');
  const prompt = target.searchParams.get('prompt');
  if (prompt !== null) {
    const kept = prompt
      .split(' ')
      .filter((value) => value !== 'login' && value !== 'select_account');
    if (kept.length > 0) target.searchParams.set('prompt', kept.join(' '));
    else target.searchParams.delete('prompt');
  }
  return `${target.pathname}${target.search}`;
}

export function registerAuthorizeRoutes(app: HttpApp, codehost: Codehost): void {
  const handleRedirectable = (reply: FastifyReply, error: unknown) => {
    if (!(error instanceof RedirectableError)) throw error;
    return redirectWith(reply, codehost, error.redirectUri, {
      error: error.error,
      error_description: error.description,
      state: error.state,
    });
  };

  app.get(
    '/oauth/authorize',
    {
      schema: {
        summary: 'Ask the signed-in user to authorize a client (authorization code flow)',
        tags: ['oauth'],
        // An OAuth endpoint, not just a page: clients are built against it.
        hide: false,
        response: browserAnswers(200, 302, 400),
      },
    },
    async (request, reply) => {
      let authorization: AuthorizationRequest;
      try {
        authorization = await validate(codehost, request.query, request.ip);
      } catch (error) {
        return handleRedirectable(reply, error);
      }
      if (await detourForPasswordChange(codehost, request, reply)) return reply;
      const user = await currentUser(codehost, request);
      const authorized =
        user !== undefined &&
        (await codehost.tokens.hasAuthorized(
          user.id,
          authorization.application.id,
          authorization.scopes,
          authorization.resource?.identifier,
        ));
      // A plain OAuth request is an OpenID Connect one without prompt or max_age.
      const next = nextInteraction(
        authorization.interaction ?? NO_INTERACTION,
        user,
        authorized,
        Date.now(),
        request.session?.data.authTime,
      );
      switch (next.kind) {
        case 'error':
          return redirectWith(reply, codehost, authorization.redirectUri, {
            error: next.error,
            error_description: next.description,
            state: authorization.state,
          });
        case 'sign-in':
          return sendToSignIn(codehost, request, reply, {
            // Back here without asking to sign in again, or it would never end.
            returnTo: withoutRepeatedSignIn(request.url),
            reauthenticate: user !== undefined,
            ...(authorization.interaction?.loginHint
              ? { loginHint: authorization.interaction.loginHint }
              : {}),
          });
        case 'approve':
          return approve(codehost, reply, user as UserRow, authorization, request.session);
        case 'ask-consent':
          allowFormRedirectTo(reply, authorization.redirectUri);
          return reply
            .type('text/html')
            .send(consentPage(authorization, user as UserRow, sessionOf(request)));
      }
    },
  );

  app.post(
    '/oauth/authorize',
    {
      schema: {
        summary: "The consent form's answer: approve or deny",
        tags: ['oauth'],
        hide: false,
        response: browserAnswers(302, 303, 400, 403, 422),
      },
      config: { signedIn: true },
    },
    async (request, reply) => {
      const user = accountOf(request);
      let authorization: AuthorizationRequest;
      try {
        authorization = await validate(codehost, request.body, request.ip);
      } catch (error) {
        return handleRedirectable(reply, error);
      }
      const decision = field(request.body, 'decision');
      if (decision === 'approve') {
        return approve(codehost, reply, user, authorization, request.session);
      }
      if (decision === 'deny') {
        return redirectWith(reply, codehost, authorization.redirectUri, {
          error: 'access_denied',
          error_description: 'The resource owner or authorization server denied the request.',
          state: authorization.state,
        });
      }
      throw new HttpError(problem(400, 'invalid_request', 'decision must be approve or deny.'));
    },
  );
}
