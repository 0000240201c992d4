import type { FastifyReply, FastifyRequest } from 'fastify';
import { partValue } from '../../platform/http/request-parts.js';
import type { HttpApp } from '../../platform/http/server.js';
import { html } from '../../platform/web/html.js';
import { csrfField, type Notice } from '../../platform/web/layout.js';
import { formField } from '../../platform/web/page-checks.js';
import { TokenRefused } from '../auth/tokens.js';
import { providerLogout } from './oidc-sign-in.js';
import { type Pages, returnPathOrHome } from './pages.js';

/** Where a signed-in person lands, and where sign-in and sign-out live. */
export const SIGN_IN_PATH = '/sign-in';

/**
 * `/sign-in`: through the identity provider when one is configured (one
 * button), and always with a bearer token (from `refdata-token-mint` or the
 * provider), which becomes a session with the token's roles; `/sign-out`.
 */
export function registerSignInPages(app: HttpApp, pages: Pages): void {
  const signInPage = async (
    request: FastifyRequest,
    reply: FastifyReply,
    options: { notice?: Notice; status?: number } = {},
  ) => {
    const session = await pages.ensureSession(request, reply);
    const returnTo = returnPathOrHome(
      partValue(request.query, 'return_to') ?? formField(request.body, 'return_to'),
    );
    const provider = pages.options.signIn.provider?.config.name;
    return pages.answer(
      request,
      reply,
      options.status ?? 200,
      { title: 'Sign in', notice: options.notice },
      html`${
        provider
          ? html`<form method="post" action="/sign-in/oidc">
  ${csrfField(session.data.csrf)}
  <input type="hidden" name="return_to" value="${returnTo}">
  <p><button type="submit" id="sign-in-provider">Sign in with ${provider}</button></p>
</form>
<details><summary>Sign in with a token instead</summary>`
          : html``
      }
<form method="post" action="/sign-in/token">
  ${csrfField(session.data.csrf)}
  <input type="hidden" name="return_to" value="${returnTo}">
  <label for="token">Bearer token</label>
  <textarea id="token" name="token" rows="4" required maxlength="8192" aria-describedby="token-hint" autocomplete="off" spellcheck="false"></textarea>
  <p class="hint" id="token-hint">An access token with a refdata role (Reader, Creator or Reviewer), such as one printed by <code>npm run cli -- refdata-token-mint --roles=Creator</code>. The session lasts as long as the token does, and the token is not kept.</p>
  <p><button type="submit">Sign in with token</button></p>
</form>${provider ? html`</details>` : html``}`,
    );
  };

  app.get(SIGN_IN_PATH, { config: { open: true } }, async (request, reply) => {
    // The provider sends the browser back to the public address: signing in
    // starts there too, or the session it comes back to would be another's
    // (a page opened at 127.0.0.1 when the public address says localhost).
    const publicOrigin = new URL(pages.refdata.publicUrl).origin;
    if (pages.options.signIn.provider && `${request.protocol}://${request.host}` !== publicOrigin) {
      return reply.redirect(`${pages.refdata.publicUrl}${request.url}`, 302);
    }
    if (pages.viewerOf(request)) {
      return reply.redirect(returnPathOrHome(partValue(request.query, 'return_to')), 302);
    }
    return signInPage(request, reply);
  });

  app.post('/sign-in/token', { config: { open: true } }, async (request, reply) => {
    const token = formField(request.body, 'token').trim();
    const refuse = (text: string) =>
      signInPage(request, reply, { notice: { kind: 'error', text }, status: 422 });
    if (token === '') return refuse('Paste a bearer token.');
    let principal: Awaited<ReturnType<typeof pages.refdata.verifier.verify>>;
    try {
      principal = await pages.refdata.verifier.verify(token);
    } catch (error) {
      if (!(error instanceof TokenRefused)) throw error;
      return refuse(`The token was not accepted: ${error.message}`);
    }
    if (principal.roles.length === 0) {
      return refuse('The token holds none of refdata’s roles (Reader, Creator, Reviewer).');
    }
    return pages.signIn(
      request,
      reply,
      { subject: principal.subject, name: principal.subject, roles: principal.roles, via: 'token' },
      { returnTo: formField(request.body, 'return_to'), until: principal.expiresAt },
    );
  });

  app.post('/sign-out', { config: { open: true } }, async (request, reply) => {
    const session = pages.sessionOf(request);
    await pages.sessions.end(reply, session);
    pages.remember(request, undefined);
    // Signed in through the provider: signed out there too, when it offers that.
    const atProvider = await providerLogout(
      pages.options.signIn.provider,
      session?.data.idToken,
      pages.refdata.publicUrl,
    );
    return reply.redirect(atProvider ?? '/?done=signed_out', 303);
  });
}
