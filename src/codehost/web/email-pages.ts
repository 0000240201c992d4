import type { FastifyReply } from 'fastify';
import { HttpError } from '../../platform/http/problem.js';
import { partValue } from '../../platform/http/request-parts.js';
import type { HttpApp } from '../../platform/http/server.js';
import { textField } from '../../platform/web/forms.js';
import { html } from '../../platform/web/html.js';
import { AccountError, normalizeEmail, type UserRow, validEmail } from '../accounts/users.js';
import type { Codehost } from '../context.js';
import { problem } from '../problem-codes.js';
import { csrfField, page } from './layout.js';
import type { Session } from './sessions.js';
import { accountOf, sessionOf } from './surface.js';
import { field, ROW_ID_PARAMS } from './web-context.js';

const SETTINGS_PATH = '/profile/emails';

/** Why an address cannot be removed, in words the user can act on. */
const REFUSALS = {
  primary: 'Your primary e-mail address cannot be removed.',
  notification:
    'This address receives your notifications. Choose another notification address on the Notifications page first.',
  unknown: 'That address is not one of yours (it may have been removed already).',
} as const;

/**
 * `/profile/emails`: the primary address and the secondary ones a user adds,
 * which notifications and the public profile may use. Addresses are taken as
 * given: this service sends no mail to confirm them (see docs/web.md).
 */
export function registerEmailPages(app: HttpApp, codehost: Codehost): void {
  const emailsPage = async (
    reply: FastifyReply,
    user: UserRow,
    session: Session,
    options: { typed?: string; error?: string; notice?: string; status?: number } = {},
  ) => {
    const secondary = await codehost.users.secondaryEmails(user);
    const notificationAddress = normalizeEmail(user.notification_email ?? user.email);
    const publicAddress = user.public_email ? normalizeEmail(user.public_email) : undefined;
    const uses = (email: string, primary = false) => {
      const normalized = normalizeEmail(email);
      return [
        primary ? 'Primary' : undefined,
        normalized === notificationAddress ? 'Notifications' : undefined,
        normalized === publicAddress ? 'Public' : undefined,
      ]
        .filter((use) => use !== undefined)
        .map((use) => html` <span class="badge">${use}</span>`);
    };
    return reply
      .status(options.status ?? 200)
      .type('text/html')
      .send(
        page(
          {
            title: 'Emails',
            user,
            csrf: session.data.csrf,
            settings: SETTINGS_PATH,
            notice: options.error
              ? { kind: 'error', text: options.error }
              : options.notice
                ? { kind: 'ok', text: options.notice }
                : undefined,
          },
          html`<p>Your primary address is the one you sign in with. Secondary addresses can receive your notifications or be shown on your profile.</p>
<div class="table-scroll" tabindex="0" role="region" aria-label="Your e-mail addresses"><table id="emails" class="stack">
<tr class="head"><th scope="col">Address</th><th scope="col">Action</th></tr>
<tr><td data-label="Address">${user.email}${uses(user.email, true)}</td><td class="actions"></td></tr>
${secondary.map(
  (row) => html`<tr><td data-label="Address">${row.email}${uses(row.email)}</td>
<td class="actions"><form class="inline" method="post" action="${SETTINGS_PATH}/${row.id}/delete">${csrfField(session.data.csrf)}<button type="submit" aria-label="Remove ${row.email}">Remove</button></form></td></tr>`,
)}
</table></div>
<h2>Add an e-mail address</h2>
<form method="post" action="${SETTINGS_PATH}">
  ${csrfField(session.data.csrf)}
  ${textField({ name: 'email', label: 'E-mail address', type: 'email', value: options.typed ?? '', error: options.error && options.typed !== undefined ? options.error : undefined, maxLength: 255, required: true, autocomplete: 'email' })}
  <p><button type="submit">Add email address</button></p>
</form>`,
        ),
      );
  };

  app.get(SETTINGS_PATH, { config: { signedIn: true } }, async (request, reply) => {
    const user = accountOf(request);
    const notice =
      partValue(request.query, 'added') === '1'
        ? 'The address was added.'
        : partValue(request.query, 'removed') === '1'
          ? 'The address was removed.'
          : undefined;
    return emailsPage(reply, user, sessionOf(request), notice ? { notice } : {});
  });

  app.post(SETTINGS_PATH, { config: { signedIn: true } }, async (request, reply) => {
    const user = accountOf(request);
    const typed = field(request.body, 'email').trim();
    const refuse = (error: string) =>
      emailsPage(reply, user, sessionOf(request), { typed, error, status: 422 });
    if (!validEmail(typed)) return refuse('Enter an e-mail address such as name@example.com.');
    try {
      await codehost.users.addEmail(user.id, typed);
    } catch (error) {
      if (!(error instanceof AccountError)) throw error;
      return refuse('This address is already in use, by you or by someone else.');
    }
    return reply.redirect(`${SETTINGS_PATH}?added=1`, 303);
  });

  app.post(
    `${SETTINGS_PATH}/:id/delete`,
    { schema: { params: ROW_ID_PARAMS }, config: { signedIn: true } },
    async (request, reply) => {
      const user = accountOf(request);
      const { id } = request.params;
      const row = (await codehost.users.secondaryEmails(user)).find((email) => email.id === id);
      if (!row) throw new HttpError(problem(404, 'not-found', REFUSALS.unknown));
      const outcome = await codehost.users.removeEmail(user, row.email);
      if (outcome !== 'removed') {
        return emailsPage(reply, user, sessionOf(request), {
          error: REFUSALS[outcome],
          status: 422,
        });
      }
      return reply.redirect(`${SETTINGS_PATH}?removed=1`, 303);
    },
  );
}
