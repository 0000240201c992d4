import type { FastifyReply, FastifyRequest } from 'fastify';
import { partValue } from '../../platform/http/request-parts.js';
import type { HttpApp } from '../../platform/http/server.js';
import { copyable } from '../../platform/web/copy.js';
import { errorSummary, type FieldErrors, fieldError, textField } from '../../platform/web/forms.js';
import { html, timeTag } from '../../platform/web/html.js';
import { csrfField } from '../../platform/web/layout.js';
import { formField } from '../../platform/web/page-checks.js';
import { keepToShowOnce, takeShownOnce } from '../../platform/web/shown-once.js';
import { MAX_PERSONAL_TOKEN_DAYS, PersonalTokenRefused } from '../auth/personal-tokens.js';
import { READ_ROLES, ROLES } from '../auth/roles.js';
import type { Pages } from './pages.js';

/** Who may see the pages of their own access tokens (checked by the surface). */
const MANAGING_YOUR_TOKENS = { roles: READ_ROLES, doing: 'Managing your access tokens' } as const;

const DAY_MS = 86_400_000;
/** What the sealed value in the session is, for the page that shows it. */
const SHOWN_ONCE_PURPOSE = 'personal access token';
const day = (time: number) => new Date(time).toISOString().slice(0, 10);

interface FormState {
  name: string;
  roles: readonly string[];
  expiresOn: string;
  errors: FieldErrors;
}

/**
 * Personal access tokens for refdata's API, as GitLab's: a person makes one
 * with a name, some of their roles and an expiry, sees it once, uses it with
 * `Authorization: Bearer`, sees when it was last used, and revokes it.
 */
export function registerTokenPages(app: HttpApp, pages: Pages): void {
  const tokens = pages.refdata.personalTokens;

  const show = async (
    request: FastifyRequest,
    reply: FastifyReply,
    options: { status?: number; made?: string; revoked?: boolean; form?: FormState } = {},
  ) => {
    const viewer = pages.signedInViewer(request);
    const session = await pages.ensureSession(request, reply);
    const now = Date.now();
    const form = options.form ?? {
      name: '',
      roles: viewer.roles,
      expiresOn: day(now + 30 * DAY_MS),
      errors: {},
    };
    const mine = await tokens.of(viewer.subject);
    const summary = errorSummary(form.errors);
    const state = (row: (typeof mine)[number]) =>
      row.revoked_at !== null
        ? 'Revoked'
        : Number(row.expires_at) <= now
          ? 'Expired'
          : html`Until ${day(Number(row.expires_at))}`;
    return pages.answer(
      request,
      reply,
      options.status ?? 200,
      {
        title: 'Access tokens',
        notice: summary
          ? { kind: 'error', text: summary }
          : options.revoked
            ? { kind: 'ok', text: 'The token was revoked: it no longer works.' }
            : undefined,
      },
      html`<p>A token lets a script or a tool use refdata’s API as you, with the roles you give it, until it expires or you revoke it: send it as <code>Authorization: Bearer &lt;token&gt;</code>. Tools that sign in by themselves can use <code>npm run cli -- refdata-login</code> instead.</p>
${
  options.made
    ? html`<section class="secret-once" aria-labelledby="made-heading"><h2 id="made-heading">Your new token</h2><p>Copy it now: it is not shown again.</p><p>${copyable('new-token', options.made, { label: 'Copy token' })}</p></section>`
    : html``
}
<h2>Make a token</h2>
<form method="post" action="/account/tokens" novalidate>${csrfField(session.data.csrf)}
${textField({ name: 'name', label: 'Name', value: form.name, error: form.errors.name, hint: 'What it is for, such as “nightly sync”.', maxLength: 255, required: true })}
<fieldset class="group"${form.errors.roles ? html` aria-describedby="roles-error"` : html``}><legend>Roles</legend>
${ROLES.filter((role) => viewer.roles.includes(role)).map(
  (role) =>
    html`<div><input type="checkbox" id="role-${role}" name="roles" value="${role}"${form.roles.includes(role) ? html` checked` : html``}> <label class="inline" for="role-${role}">${role}</label></div>`,
)}
${fieldError(form.errors.roles ? 'roles-error' : undefined, form.errors.roles)}</fieldset>
<label for="expires_at">Expires at the end of</label>
<input type="date" id="expires_at" name="expires_at" value="${form.expiresOn}" min="${day(now + DAY_MS)}" max="${day(now + MAX_PERSONAL_TOKEN_DAYS * DAY_MS)}" required${form.errors.expires_at ? html` aria-invalid="true" aria-describedby="expires_at-error"` : html``}>
${fieldError(form.errors.expires_at ? 'expires_at-error' : undefined, form.errors.expires_at)}
<p class="actions"><button type="submit" class="primary">Make token</button></p>
</form>
<h2>Your tokens (${String(mine.length)})</h2>
${
  mine.length === 0
    ? html`<p>You have none.</p>`
    : html`<div class="table-scroll" tabindex="0" role="region" aria-label="Your tokens"><table id="tokens" class="stack"><tr class="head"><th scope="col">Name</th><th scope="col">Roles</th><th scope="col">Made</th><th scope="col">Last used</th><th scope="col">Works</th><th scope="col">Action</th></tr>
${mine.map(
  (row) =>
    html`<tr><td data-label="Name">${row.name}</td><td data-label="Roles">${row.roles.split(' ').join(', ')}</td><td data-label="Made">${timeTag(Number(row.created_at), now)}</td><td data-label="Last used">${timeTag(row.last_used_at === null ? null : Number(row.last_used_at), now)}</td><td data-label="Works">${state(row)}</td>
<td class="actions">${
      row.revoked_at === null && Number(row.expires_at) > now
        ? html`<form method="post" action="/account/tokens/${String(row.id)}/revoke">${csrfField(session.data.csrf)}<button type="submit" aria-label="Revoke ${row.name}">Revoke</button></form>`
        : html``
    }</td></tr>`,
)}
</table></div>`
}`,
    );
  };

  app.get(
    '/account/tokens',
    { config: { viewers: MANAGING_YOUR_TOKENS } },
    async (request, reply) => {
      const session = pages.sessionOf(request);
      const made = session && (await takeShownOnce(pages.sessions, session, SHOWN_ONCE_PURPOSE));
      return show(request, reply, {
        revoked: partValue(request.query, 'done') === 'revoked',
        ...(made ? { made } : {}),
      });
    },
  );

  app.post(
    '/account/tokens',
    { config: { viewers: MANAGING_YOUR_TOKENS } },
    async (request, reply) => {
      const viewer = pages.signedInViewer(request);
      const body = (request.body ?? {}) as Record<string, unknown>;
      const chosen = body.roles;
      const roles = (Array.isArray(chosen) ? chosen : chosen === undefined ? [] : [chosen]).filter(
        (role): role is string => typeof role === 'string',
      );
      const form: FormState = {
        name: formField(request.body, 'name') ?? '',
        roles,
        expiresOn: formField(request.body, 'expires_at') ?? '',
        errors: {},
      };
      try {
        const { token } = await tokens.create({
          subject: viewer.subject,
          held: viewer.roles,
          name: form.name,
          roles,
          expiresOn: form.expiresOn,
        });
        // Post/Redirect/Get: the token is shown once on the page redirected to.
        const session = await pages.ensureSession(request, reply);
        await keepToShowOnce(pages.sessions, session, {
          purpose: SHOWN_ONCE_PURPOSE,
          value: token,
        });
        return reply.redirect('/account/tokens', 303);
      } catch (error) {
        if (!(error instanceof PersonalTokenRefused)) throw error;
        return show(request, reply, {
          status: 422,
          form: { ...form, errors: { [error.field]: error.message } },
        });
      }
    },
  );

  app.post<{ Params: { id: string } }>(
    '/account/tokens/:id/revoke',
    { config: { viewers: MANAGING_YOUR_TOKENS } },
    async (request, reply) => {
      const viewer = pages.signedInViewer(request);
      const id = Number(request.params.id);
      if (Number.isSafeInteger(id) && id > 0) await tokens.revoke(viewer.subject, id);
      // Another's token or one already revoked: the page shows the person's own as they are.
      return reply.redirect('/account/tokens?done=revoked', 303);
    },
  );
}
