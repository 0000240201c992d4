import type { FastifyReply } from 'fastify';
import { HttpError } from '../../platform/http/problem.js';
import type { HttpApp } from '../../platform/http/server.js';
import { html, timeTag } from '../../platform/web/html.js';
import { keepToShowOnce, takeShownOnce } from '../../platform/web/shown-once.js';
import { PersonalAccessTokenError, parseExpiryDate } from '../accounts/personal-access-tokens.js';
import type { UserRow } from '../accounts/users.js';
import type { Codehost } from '../context.js';
import { isScope, SCOPE_NAMES, SCOPES, type Scope } from '../oauth/scopes.js';
import { problem } from '../problem-codes.js';
import { confirmLink, registerConfirmation } from './confirm.js';
import { copyable } from './copy.js';
import { csrfField, page } from './layout.js';
import type { Session } from './sessions.js';
import { accountOf, sessionOf } from './surface.js';
import { doneNotice, field, fieldValues, ROW_ID_PARAMS } from './web-context.js';

/** The token form as typed, to show again when it is refused. */
interface TokenForm {
  name: string;
  expiresAt: string;
  scopes: readonly string[];
}

/** A new token waits for the list page (after a redirect) under this name. */
const TOKEN_PURPOSE = 'personal-access-token';

const EMPTY_FORM: TokenForm = { name: '', expiresAt: '', scopes: [] };

export function registerTokenPages(app: HttpApp, codehost: Codehost): void {
  const tokensPage = async (
    reply: FastifyReply,
    user: UserRow,
    session: Session,
    options: {
      created?: string;
      error?: string;
      status?: number;
      typed?: TokenForm;
      done?: { kind: 'ok'; text: string };
    } = {},
  ) => {
    const typed = options.typed ?? EMPTY_FORM;
    const now = Date.now();
    const when = (time: number | null) => timeTag(time, now);
    const rows = await codehost.personalAccessTokens.listFor(user.id);
    const active = rows.filter((row) => codehost.personalAccessTokens.isActive(row));
    const inactive = rows.filter((row) => !codehost.personalAccessTokens.isActive(row));
    const notice = options.error
      ? { kind: 'error' as const, text: options.error }
      : options.created
        ? {
            kind: 'ok' as const,
            text: 'Your new personal access token has been created. Copy it now: it will not be shown again.',
          }
        : options.done;
    return reply
      .status(options.status ?? 200)
      .type('text/html')
      .send(
        page(
          {
            title: 'Personal access tokens',
            user,
            csrf: session.data.csrf,
            notice,
            settings: '/profile/personal_access_tokens',
          },
          html`${options.created ? html`<p>${copyable('created-personal-access-token', options.created)}</p>` : html``}
<p>Send a personal access token in the <code>PRIVATE-TOKEN</code> header to use the API as yourself.
Accounts with two-factor authentication use these instead of the password grant.</p>
<h2>Add a personal access token</h2>
<form method="post" action="/profile/personal_access_tokens">
  ${csrfField(session.data.csrf)}
  <label for="name">Name</label>
  <input type="text" id="name" name="name" required maxlength="255" value="${typed.name}">
  <label for="expires_at">Expires at (optional)</label>
  <input type="date" id="expires_at" name="expires_at" value="${typed.expiresAt}">
  <fieldset><legend>Scopes</legend>
  ${SCOPE_NAMES.map(
    (scope) =>
      html`<div><label class="inline"><input type="checkbox" name="scopes" value="${scope}"${typed.scopes.includes(scope) ? html` checked` : html``}> <code>${scope}</code> ${SCOPES[scope]}</label></div>`,
  )}
  </fieldset>
  <p><button type="submit">Create personal access token</button></p>
</form>
<h2>Active personal access tokens (${active.length})</h2>
<div class="table-scroll" tabindex="0" role="region" aria-label="Active personal access tokens"><table id="active-tokens" class="stack"><tr class="head"><th scope="col">Name</th><th scope="col">Created</th><th scope="col">Expires</th><th scope="col">Scopes</th><th scope="col">Last used</th><th scope="col">Action</th></tr>
${active.map(
  (
    row,
  ) => html`<tr><td data-label="Name">${row.name}</td><td data-label="Created">${when(row.created_at)}</td><td data-label="Expires">${when(row.expires_at)}</td><td data-label="Scopes">${row.scopes}</td><td data-label="Last used">${when(row.last_used_at)}</td>
<td class="actions">${confirmLink(`/profile/personal_access_tokens/${row.id}/revoke`, 'Revoke', `Revoke ${row.name}`)}</td></tr>`,
)}
</table></div>${active.length === 0 ? html`<p class="hint">None.</p>` : html``}
<h2>Inactive personal access tokens (${inactive.length})</h2>
<div class="table-scroll" tabindex="0" role="region" aria-label="Inactive personal access tokens"><table id="inactive-tokens" class="stack"><tr class="head"><th scope="col">Name</th><th scope="col">Created</th><th scope="col">State</th></tr>
${inactive.map(
  (row) =>
    html`<tr><td data-label="Name">${row.name}</td><td data-label="Created">${when(row.created_at)}</td><td data-label="State">${row.revoked_at === null ? 'Expired' : 'Revoked'}</td></tr>`,
)}
</table></div>${inactive.length === 0 ? html`<p class="hint">None.</p>` : html``}`,
        ),
      );
  };

  app.get(
    '/profile/personal_access_tokens',
    { config: { signedIn: true } },
    async (request, reply) => {
      const user = accountOf(request);
      const session = sessionOf(request);
      const created = await takeShownOnce(codehost.sessions, session, TOKEN_PURPOSE);
      const done = doneNotice(request, { revoked: 'The token was revoked.' });
      return tokensPage(reply, user, session, created ? { created } : done ? { done } : {});
    },
  );

  app.post(
    '/profile/personal_access_tokens',
    { config: { signedIn: true } },
    async (request, reply) => {
      const user = accountOf(request);
      const session = sessionOf(request);
      const typed: TokenForm = {
        name: field(request.body, 'name'),
        expiresAt: field(request.body, 'expires_at'),
        scopes: fieldValues(request.body, 'scopes'),
      };
      try {
        const scopes = fieldValues(request.body, 'scopes');
        if (!scopes.every(isScope)) throw new PersonalAccessTokenError('scopes', 'Unknown scope');
        const expiry = field(request.body, 'expires_at');
        const { token } = await codehost.personalAccessTokens.create(user.id, {
          name: field(request.body, 'name'),
          scopes: scopes as Scope[],
          expiresAt: expiry ? parseExpiryDate(expiry, Date.now()) : null,
        });
        await keepToShowOnce(codehost.sessions, session, { purpose: TOKEN_PURPOSE, value: token });
        return reply.redirect('/profile/personal_access_tokens', 303);
      } catch (error) {
        if (!(error instanceof PersonalAccessTokenError)) throw error;
        return tokensPage(reply, user, session, { error: error.message, status: 422, typed });
      }
    },
  );

  app.post(
    '/profile/personal_access_tokens/:id/revoke',
    { schema: { params: ROW_ID_PARAMS }, config: { signedIn: true } },
    async (request, reply) => {
      const user = accountOf(request);
      const { id } = request.params;
      if (!(await codehost.personalAccessTokens.revoke(user.id, id))) {
        throw new HttpError(problem(404, 'not-found', 'No such active token.'));
      }
      return reply.redirect('/profile/personal_access_tokens?done=revoked', 303);
    },
  );

  registerConfirmation(
    app,

    '/profile/personal_access_tokens/:id/revoke',
    async (user, id) => {
      const token = (await codehost.personalAccessTokens.listFor(user.id)).find(
        (row) => row.id === id && codehost.personalAccessTokens.isActive(row),
      );
      return token
        ? {
            title: `Revoke ${token.name}?`,
            consequence: `Anything using the token ${token.name} loses access at once. This cannot be undone.`,
            button: 'Revoke',
            back: '/profile/personal_access_tokens',
          }
        : undefined;
    },
  );
}
