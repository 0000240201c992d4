import type { FastifyReply } from 'fastify';
import { HttpError } from '../../platform/http/problem.js';
import type { HttpApp } from '../../platform/http/server.js';
import { fieldError, textField } from '../../platform/web/forms.js';
import { html, type Markup, timeTag } from '../../platform/web/html.js';
import { keepToShowOnce, takeShownOnce } from '../../platform/web/shown-once.js';
import type { UserRow } from '../accounts/users.js';
import type { Codehost } from '../context.js';
import {
  ApplicationError,
  type ApplicationInput,
  type ApplicationRow,
  postLogoutRedirectUrisOf,
  redirectUrisOf,
} from '../oauth/applications.js';
import { isScope, SCOPE_NAMES, SCOPES } from '../oauth/scopes.js';
import { problem } from '../problem-codes.js';
import { confirmLink, registerConfirmation } from './confirm.js';
import { copyable } from './copy.js';
import { csrfField, page } from './layout.js';
import type { Session } from './sessions.js';
import { accountOf, sessionOf } from './surface.js';
import { doneNotice, field, fieldValues, ROW_ID_PARAMS } from './web-context.js';

function applicationForm(
  csrf: string,
  action: string,
  values: {
    name: string;
    redirectUris: string;
    postLogoutRedirectUris?: string;
    scopes: readonly string[];
    confidential: boolean;
    deviceAuthorizationGrant?: boolean | undefined;
    backchannelLogoutUri?: string | undefined;
    backchannelLogoutSessionRequired?: boolean | undefined;
  },
  submit: string,
  refused?: ApplicationError,
): Markup {
  const error = (field: ApplicationError['field']) =>
    refused?.field === field ? refused.message : undefined;
  return html`<form method="post" action="${action}">
  ${csrfField(csrf)}
  ${textField({ name: 'name', label: 'Name', value: values.name, error: error('name'), required: true, maxLength: 255 })}
  ${textField({ name: 'redirect_uri', label: 'Redirect URI (one per line)', value: values.redirectUris, error: error('redirect_uri'), required: true, multiline: true })}
  ${textField({ name: 'post_logout_redirect_uri', label: 'Post-logout redirect URI (OpenID Connect, one per line, optional)', value: values.postLogoutRedirectUris ?? '', error: error('post_logout_redirect_uri'), multiline: true })}
  ${textField({ name: 'backchannel_logout_uri', label: 'Back-channel logout URI (OpenID Connect, optional)', value: values.backchannelLogoutUri ?? '', error: error('backchannel_logout_uri'), maxLength: 2000, hint: 'codehost posts a signed logout token here when a session the application signed in through ends.' })}
  <div><label class="inline"><input type="checkbox" name="backchannel_logout_session_required" value="1"${values.backchannelLogoutSessionRequired ? html` checked` : html``}> The application needs the session ID (<code>sid</code>) in logout tokens</label></div>
  <fieldset${refused?.field === 'scopes' ? html` aria-describedby="scopes-error"` : html``}><legend>Scopes</legend>
  ${SCOPE_NAMES.map(
    (scope) =>
      html`<div><label class="inline"><input type="checkbox" name="scopes" value="${scope}"${values.scopes.includes(scope) ? html` checked` : html``}> <code>${scope}</code> ${SCOPES[scope]}</label></div>`,
  )}
  ${fieldError('scopes-error', error('scopes'))}
  </fieldset>
  <label class="inline"><input type="checkbox" name="confidential" value="1"${values.confidential ? html` checked` : html``}> Confidential: the application runs on a server and can keep its secret (public clients must use PKCE)</label>
  <div><label class="inline"><input type="checkbox" name="device_authorization_grant" value="1"${values.deviceAuthorizationGrant ? html` checked` : html``}> Device authorization grant: a command-line tool, editor or device without a browser signs in by showing a code that you enter at <code>/oauth/device</code></label></div>
  <p><button type="submit">${submit}</button></p>
</form>`;
}

/** The form as typed, scopes included whatever they are, to show it again. */
function typedValues(body: unknown): ApplicationInput {
  return {
    name: field(body, 'name'),
    redirectUris: field(body, 'redirect_uri'),
    postLogoutRedirectUris: field(body, 'post_logout_redirect_uri'),
    scopes: fieldValues(body, 'scopes').filter(isScope),
    confidential: field(body, 'confidential') === '1',
    deviceAuthorizationGrant: field(body, 'device_authorization_grant') === '1',
    backchannelLogoutUri: field(body, 'backchannel_logout_uri'),
    backchannelLogoutSessionRequired: field(body, 'backchannel_logout_session_required') === '1',
  };
}

function inputFrom(body: unknown): ApplicationInput {
  if (!fieldValues(body, 'scopes').every(isScope)) {
    throw new ApplicationError('scopes', 'Unknown scope');
  }
  return typedValues(body);
}

/** What a kept secret belongs to: this application's page shows it, no other. */
function secretPurpose(application: ApplicationRow): string {
  return `application-secret-${application.id}`;
}

export function registerApplicationPages(app: HttpApp, codehost: Codehost): void {
  const listPage = async (
    reply: FastifyReply,
    user: UserRow,
    session: Session,
    options: {
      refused?: ApplicationError;
      values?: ApplicationInput;
      status?: number;
      done?: { kind: 'ok'; text: string } | undefined;
    } = {},
  ) => {
    const owned = await codehost.applications.ownedBy(user.id);
    const authorized = await codehost.tokens.authorizedApplications(user.id);
    const now = Date.now();
    const values = options.values ?? {
      name: '',
      redirectUris: '',
      // Nothing ticked: an application asks for what it needs, no more.
      scopes: [],
      confidential: true,
    };
    return reply
      .status(options.status ?? 200)
      .type('text/html')
      .send(
        page(
          {
            title: 'Applications',
            user,
            csrf: session.data.csrf,
            settings: '/profile/applications',
            notice: options.refused
              ? { kind: 'error', text: options.refused.message }
              : options.done,
          },
          html`<h2>Add new application</h2>
${applicationForm(session.data.csrf, '/profile/applications', values, 'Save application', options.refused)}
<h2>Your applications (${owned.length})</h2>
<div class="table-scroll" tabindex="0" role="region" aria-label="Your applications"><table id="applications" class="stack"><tr class="head"><th scope="col">Name</th><th scope="col">Callback URL</th><th scope="col">Scopes</th><th scope="col">Actions</th></tr>
${owned.map(
  (
    application,
  ) => html`<tr><td data-label="Name"><a href="/profile/applications/${application.id}">${application.name}</a></td>
<td data-label="Callback URL">${redirectUrisOf(application).map((uri) => html`<div><code>${uri}</code></div>`)}</td>
<td data-label="Scopes">${application.scopes}</td>
<td class="actions"><a href="/profile/applications/${application.id}/edit" aria-label="Edit ${application.name}">Edit</a>
${confirmLink(`/profile/applications/${application.id}/delete`, 'Destroy', `Destroy ${application.name}`)}</td></tr>`,
)}
</table></div>${owned.length === 0 ? html`<p class="hint">None yet.</p>` : html``}
<h2>Authorized applications (${authorized.length})</h2>
<div class="table-scroll" tabindex="0" role="region" aria-label="Authorized applications"><table id="authorized-applications" class="stack"><tr class="head"><th scope="col">Name</th><th scope="col">Authorized</th><th scope="col">Scopes</th><th scope="col">Action</th></tr>
${authorized.map(
  (
    entry,
  ) => html`<tr><td data-label="Name">${entry.name}${entry.registration === 'owner' ? html`` : html` <span class="badge" title="${entry.registration === 'dynamic' ? 'This client registered itself with codehost (RFC 7591); nobody here vouches for it.' : 'This client is known by the address of its own metadata; nobody here vouches for it.'}">registered itself</span>`}</td><td data-label="Authorized">${timeTag(entry.authorizedAt, now)}</td><td data-label="Scopes">${entry.scopes}</td>
<td class="actions">${confirmLink(`/profile/applications/authorized/${entry.id}/revoke`, 'Revoke access', `Revoke access of ${entry.name}`)}</td></tr>`,
)}
</table></div>${authorized.length === 0 ? html`<p class="hint">None.</p>` : html``}`,
        ),
      );
  };

  const showPage = (
    reply: FastifyReply,
    user: UserRow,
    session: Session,
    application: ApplicationRow,
    secret?: string,
  ) =>
    reply.type('text/html').send(
      page(
        {
          title: `Application: ${application.name}`,
          user,
          csrf: session.data.csrf,
          settings: '/profile/applications',
          notice: secret
            ? {
                kind: 'ok',
                text: 'Copy the secret now: it is stored only as a hash and will not be shown again.',
              }
            : undefined,
        },
        html`<table>
<tr><th>Application ID</th><td>${copyable('application-id', application.uid)}</td></tr>
<tr><th>Secret</th><td>${secret ? copyable('application-secret', secret) : html`<em>hidden; renew it to get a new one</em>`}</td></tr>
<tr><th>Callback URL</th><td>${redirectUrisOf(application).map((uri) => html`<div><code>${uri}</code></div>`)}</td></tr>
<tr><th>Post-logout redirect URI</th><td>${postLogoutRedirectUrisOf(application).map((uri) => html`<div><code>${uri}</code></div>`)}</td></tr>
<tr><th>Scopes</th><td>${application.scopes}</td></tr>
<tr><th>Confidential</th><td>${application.confidential ? 'Yes' : 'No'}</td></tr>
<tr><th>Back-channel logout URI</th><td>${application.backchannel_logout_uri ? html`<code>${application.backchannel_logout_uri}</code>${application.backchannel_logout_session_required ? html` (with <code>sid</code>)` : html``}` : 'None'}</td></tr>
<tr><th>Device authorization grant</th><td>${application.device_authorization_grant ? 'On' : 'Off'}</td></tr>
</table>
<p><a href="/profile/applications/${application.id}/edit">Edit</a></p>
<p>${confirmLink(`/profile/applications/${application.id}/renew_secret`, 'Renew secret')}</p>
<p><a href="/profile/applications">Back to applications</a></p>`,
      ),
    );

  const editPage = (
    reply: FastifyReply,
    user: UserRow,
    session: Session,
    application: ApplicationRow,
    refused?: { error: ApplicationError; values: ApplicationInput },
  ) =>
    reply
      .status(refused ? 422 : 200)
      .type('text/html')
      .send(
        page(
          {
            title: `Edit application: ${application.name}`,
            user,
            csrf: session.data.csrf,
            settings: '/profile/applications',
            notice: refused ? { kind: 'error', text: refused.error.message } : undefined,
          },
          applicationForm(
            session.data.csrf,
            `/profile/applications/${application.id}`,
            refused?.values ?? {
              name: application.name,
              redirectUris: redirectUrisOf(application).join('\n'),
              postLogoutRedirectUris: postLogoutRedirectUrisOf(application).join('\n'),
              scopes: application.scopes.split(' '),
              confidential: application.confidential === 1,
              deviceAuthorizationGrant: application.device_authorization_grant === 1,
              backchannelLogoutUri: application.backchannel_logout_uri,
              backchannelLogoutSessionRequired:
                application.backchannel_logout_session_required === 1,
            },
            'Save application',
            refused?.error,
          ),
        ),
      );

  const owned = async (user: UserRow, id: number) => {
    const application = await codehost.applications.findOwned(user.id, id);
    if (!application) throw new HttpError(problem(404, 'not-found', 'No such application.'));
    return application;
  };

  app.get('/profile/applications', { config: { signedIn: true } }, async (request, reply) => {
    const user = accountOf(request);
    return listPage(reply, user, sessionOf(request), {
      done: doneNotice(request, {
        destroyed: 'The application was destroyed.',
        revoked: 'Access was revoked.',
      }),
    });
  });

  app.post('/profile/applications', { config: { signedIn: true } }, async (request, reply) => {
    const user = accountOf(request);
    const session = sessionOf(request);
    let input: ApplicationInput | undefined;
    try {
      input = inputFrom(request.body);
      const { application, secret } = await codehost.applications.create(user.id, input);
      await keepToShowOnce(codehost.sessions, session, {
        purpose: secretPurpose(application),
        value: secret,
      });
      return reply.redirect(`/profile/applications/${application.id}`, 303);
    } catch (error) {
      if (!(error instanceof ApplicationError)) throw error;
      return listPage(reply, user, session, {
        refused: error,
        status: 422,
        values: input ?? typedValues(request.body),
      });
    }
  });

  app.get(
    '/profile/applications/:id',
    { schema: { params: ROW_ID_PARAMS }, config: { signedIn: true } },
    async (request, reply) => {
      const user = accountOf(request);
      const { id } = request.params;
      const session = sessionOf(request);
      const application = await owned(user, id);
      const secret = await takeShownOnce(codehost.sessions, session, secretPurpose(application));
      return showPage(reply, user, session, application, secret);
    },
  );

  app.get(
    '/profile/applications/:id/edit',
    { schema: { params: ROW_ID_PARAMS }, config: { signedIn: true } },
    async (request, reply) => {
      const user = accountOf(request);
      const session = sessionOf(request);
      const { id } = request.params;
      return editPage(reply, user, session, await owned(user, id));
    },
  );

  app.post(
    '/profile/applications/:id',
    { schema: { params: ROW_ID_PARAMS }, config: { signedIn: true } },
    async (request, reply) => {
      const user = accountOf(request);
      const session = sessionOf(request);
      const { id } = request.params;
      const application = await owned(user, id);
      let input: ApplicationInput | undefined;
      try {
        input = inputFrom(request.body);
        await codehost.applications.update(user.id, application.id, input);
      } catch (error) {
        if (!(error instanceof ApplicationError)) throw error;
        return editPage(reply, user, session, application, {
          error,
          values: input ?? typedValues(request.body),
        });
      }
      return reply.redirect(`/profile/applications/${application.id}`, 302);
    },
  );

  app.post(
    '/profile/applications/:id/delete',
    { schema: { params: ROW_ID_PARAMS }, config: { signedIn: true } },
    async (request, reply) => {
      const user = accountOf(request);
      const { id } = request.params;
      if (!(await codehost.applications.delete(user.id, id))) {
        throw new HttpError(problem(404, 'not-found', 'No such application.'));
      }
      return reply.redirect('/profile/applications?done=destroyed', 302);
    },
  );

  app.post(
    '/profile/applications/:id/renew_secret',
    { schema: { params: ROW_ID_PARAMS }, config: { signedIn: true } },
    async (request, reply) => {
      const user = accountOf(request);
      const { id } = request.params;
      const application = await owned(user, id);
      const secret = await codehost.applications.renewSecret(user.id, application.id);
      // Destroyed between the lookup and now.
      if (secret === undefined)
        throw new HttpError(problem(404, 'not-found', 'No such application.'));
      await keepToShowOnce(codehost.sessions, sessionOf(request), {
        purpose: secretPurpose(application),
        value: secret,
      });
      return reply.redirect(`/profile/applications/${application.id}`, 303);
    },
  );

  app.post(
    '/profile/applications/authorized/:id/revoke',
    { schema: { params: ROW_ID_PARAMS }, config: { signedIn: true } },
    async (request, reply) => {
      const user = accountOf(request);
      const { id } = request.params;
      await codehost.tokens.revokeAuthorization(user.id, id);
      return reply.redirect('/profile/applications?done=revoked', 302);
    },
  );

  registerConfirmation(app, '/profile/applications/:id/delete', async (user, id) => {
    const application = await codehost.applications.findOwned(user.id, id);
    return application
      ? {
          title: `Destroy ${application.name}?`,
          consequence: `Every token issued to ${application.name} stops working at once, and the application can no longer sign anyone in. This cannot be undone.`,
          button: 'Destroy',
          back: '/profile/applications',
        }
      : undefined;
  });
  registerConfirmation(
    app,

    '/profile/applications/:id/renew_secret',
    async (user, id) => {
      const application = await codehost.applications.findOwned(user.id, id);
      return application
        ? {
            title: `Renew the secret of ${application.name}?`,
            consequence: `A new secret is made and shown once. The current secret stops working at once: ${application.name} cannot get tokens until it is configured with the new one.`,
            button: 'Renew secret',
            back: `/profile/applications/${application.id}`,
          }
        : undefined;
    },
  );
  registerConfirmation(
    app,

    '/profile/applications/authorized/:id/revoke',
    async (user, id) => {
      const entry = (await codehost.tokens.authorizedApplications(user.id)).find(
        (authorized) => authorized.id === id,
      );
      return entry
        ? {
            title: `Revoke access of ${entry.name}?`,
            consequence: `${entry.name} loses every token it holds for your account. It will have to ask for your permission again.`,
            button: 'Revoke access',
            back: '/profile/applications',
          }
        : undefined;
    },
  );
}
