import type { FastifyReply } from 'fastify';
import { partValue } from '../../platform/http/request-parts.js';
import type { HttpApp } from '../../platform/http/server.js';
import { errorSummary, type FieldErrors, textField } from '../../platform/web/forms.js';
import { html } from '../../platform/web/html.js';
import {
  PROFILE_FIELDS,
  PROFILE_MAX_LENGTH,
  type ProfileInput,
  profileErrors,
  profileOf,
  saveProfile,
} from '../accounts/profile.js';
import type { UserRow } from '../accounts/users.js';
import type { Codehost } from '../context.js';
import { csrfField, page } from './layout.js';
import type { Session } from './sessions.js';
import { accountOf, sessionOf } from './surface.js';
import { doneNotice, field } from './web-context.js';

const SETTINGS_PATH = '/profile';

/**
 * `/profile`: GitLab's "Edit profile". The fields are the ones `/api/v3/user`
 * returns; a refused form comes back with everything typed and each problem
 * beside its field.
 */
export function registerProfilePages(app: HttpApp, codehost: Codehost): void {
  const profilePage = async (
    reply: FastifyReply,
    user: UserRow,
    session: Session,
    values: ProfileInput,
    options: { errors?: FieldErrors; saved?: boolean; notice?: { kind: 'ok'; text: string } } = {},
  ) => {
    const errors = options.errors ?? {};
    const summary = errorSummary(errors);
    const emails = await codehost.users.emailsOf(user);
    const text = (
      name: Exclude<keyof ProfileInput, 'public_email' | 'bio'>,
      label: string,
      extra: { type?: 'url'; hint?: string; required?: boolean; autocomplete?: string } = {},
    ) =>
      textField({
        name,
        label,
        value: values[name],
        error: errors[name],
        maxLength: PROFILE_MAX_LENGTH,
        ...extra,
      });
    return reply
      .status(summary ? 422 : 200)
      .type('text/html')
      .send(
        page(
          {
            title: 'Edit profile',
            user,
            csrf: session.data.csrf,
            settings: SETTINGS_PATH,
            notice: summary
              ? { kind: 'error', text: summary }
              : options.saved
                ? { kind: 'ok', text: 'Profile was successfully updated.' }
                : options.notice,
          },
          html`<p>This information appears on <a href="/${user.username}">your public page</a> and in the API. Your username is <strong>${user.username}</strong>.</p>
<form method="post" action="${SETTINGS_PATH}" novalidate>
  ${csrfField(session.data.csrf)}
  ${text('name', 'Full name', { required: true, autocomplete: 'name' })}
  <label for="public_email">Public email</label>
  <select id="public_email" name="public_email" aria-describedby="public_email-hint${errors.public_email ? ' public_email-error' : ''}">
    <option value="">Do not show on profile</option>
    ${emails.map(
      (email) =>
        html`<option value="${email}"${email === values.public_email ? html` selected` : html``}>${email}</option>`,
    )}
  </select>
  <p class="hint" id="public_email-hint">One of your <a href="/profile/emails">e-mail addresses</a>, shown on your public page.</p>
  ${errors.public_email ? html`<p class="field-error" id="public_email-error">${errors.public_email}</p>` : html``}
  ${text('website_url', 'Website', { type: 'url', hint: 'An address starting with http:// or https://.', autocomplete: 'url' })}
  ${text('location', 'Location')}
  ${textField({ name: 'bio', label: 'Bio', value: values.bio, error: errors.bio, maxLength: PROFILE_MAX_LENGTH, multiline: true, hint: `Tell us about yourself in ${PROFILE_MAX_LENGTH} characters or fewer.` })}
  ${text('skype', 'Skype')}
  ${text('linkedin', 'LinkedIn')}
  ${text('twitter', 'Twitter')}
  <p><button type="submit">Update profile settings</button></p>
</form>`,
        ),
      );
  };

  app.get(SETTINGS_PATH, { config: { signedIn: true } }, async (request, reply) => {
    const user = accountOf(request);
    const saved = partValue(request.query, 'saved') === '1';
    const notice = doneNotice(request, {
      password_changed: 'Your password was changed. Your other sessions have been signed out.',
    });
    return profilePage(reply, user, sessionOf(request), profileOf(user), {
      saved,
      ...(notice ? { notice } : {}),
    });
  });

  app.post(SETTINGS_PATH, { config: { signedIn: true } }, async (request, reply) => {
    const user = accountOf(request);
    const values = Object.fromEntries(
      PROFILE_FIELDS.map((name) => [name, field(request.body, name).trim()]),
    ) as unknown as ProfileInput;
    const errors = profileErrors(values, await codehost.users.emailsOf(user));
    if (Object.keys(errors).length > 0) {
      return profilePage(reply, user, sessionOf(request), values, { errors });
    }
    await saveProfile(codehost.db, user.id, values, Date.now());
    return reply.redirect(`${SETTINGS_PATH}?saved=1`, 303);
  });
}
