import type { FastifyReply } from 'fastify';
import { HttpError } from '../../platform/http/problem.js';
import type { HttpApp } from '../../platform/http/server.js';
import { textField } from '../../platform/web/forms.js';
import { html, timeTag } from '../../platform/web/html.js';
import { MAX_PASSKEYS, PasskeyRefused, passkeysNeedADomain } from '../accounts/passkeys.js';
import type { UserRow } from '../accounts/users.js';
import type { Codehost } from '../context.js';
import { problem } from '../problem-codes.js';
import { csrfField, page } from './layout.js';
import {
  MAX_CEREMONY_ANSWER,
  offerRegistration,
  PASSKEY_SCRIPTS,
  passkeyForm,
  takeChallenge,
} from './passkey-forms.js';
import type { Session } from './sessions.js';
import { accountOf, sessionOf } from './surface.js';
import { recoveryCodesPage } from './two-factor-pages.js';
import { currentPasswordAccepted, doneNotice, field, ROW_ID_PARAMS } from './web-context.js';

const SETTINGS_PATH = '/profile/passkeys';

/**
 * The account's passkeys: add one (named, with the password, as GitLab asks
 * before a WebAuthn device is registered), see each with when it was added and
 * last used, and remove one with the password. Any passkey turns two-factor
 * authentication on: it is then the second step after the password, or the
 * whole sign-in.
 */
export function registerPasskeyPages(app: HttpApp, codehost: Codehost): void {
  const passkeysPage = async (
    reply: FastifyReply,
    user: UserRow,
    session: Session,
    notice?: { kind: 'ok' | 'error'; text: string },
    typedName = '',
  ) => {
    const passkeys = await codehost.passkeys.ownedBy(user.id);
    const ceremony = await offerRegistration(codehost, session, user);
    const now = Date.now();
    return reply
      .status(notice?.kind === 'error' ? 422 : 200)
      .type('text/html')
      .send(
        page(
          {
            title: 'Passkeys',
            user,
            csrf: session.data.csrf,
            settings: SETTINGS_PATH,
            notice,
            scripts: PASSKEY_SCRIPTS,
          },
          html`<p>A passkey signs you in with your device’s screen lock (fingerprint, face or PIN) instead of your password, and cannot be phished. Once you have one, signing in with your password also asks for a passkey or your authenticator app’s code.</p>
<h2>Your passkeys (${passkeys.length})</h2>
${
  passkeys.length === 0
    ? html`<p class="hint">None yet.</p>`
    : html`<div class="table-scroll" tabindex="0" role="region" aria-label="Your passkeys"><table id="passkeys" class="stack">
<tr class="head"><th scope="col">Name</th><th scope="col">Added</th><th scope="col">Last used</th><th scope="col">Kept</th><th scope="col">Remove</th></tr>
${passkeys.map(
  (passkey) => html`<tr><td data-label="Name">${passkey.name}</td>
<td data-label="Added">${timeTag(Number(passkey.created_at), now)}</td>
<td data-label="Last used">${passkey.last_used_at === null ? 'Never' : timeTag(Number(passkey.last_used_at), now)}</td>
<td data-label="Kept">${passkey.backed_up ? 'Synced between devices' : 'On one device'}</td>
<td class="actions"><form method="post" action="${SETTINGS_PATH}/${String(passkey.id)}/delete">${csrfField(session.data.csrf)}
<label for="remove-password-${String(passkey.id)}">Current password</label>
<input type="password" id="remove-password-${String(passkey.id)}" name="current_password" autocomplete="current-password" required>
<button type="submit" class="danger" aria-label="Remove the passkey ${passkey.name}">Remove</button></form></td></tr>`,
)}
</table></div>`
}
<h2>Add a passkey</h2>
${codehost.passkeys.party.byAddress ? html`<p class="notice error" id="passkeys-unavailable">${passkeysNeedADomain(codehost.passkeys.party, 'person')}</p>` : html``}
${
  passkeys.length >= MAX_PASSKEYS
    ? html`<p>You have ${String(MAX_PASSKEYS)} passkeys, the most an account holds. Remove one to add another.</p>`
    : html`<section data-passkey-section hidden aria-label="Add a passkey">
${passkeyForm({
  id: 'add-passkey',
  action: SETTINGS_PATH,
  csrf: session.data.csrf,
  kind: 'register',
  ceremony,
  button: 'Add passkey',
  fields: html`${textField({ name: 'name', label: 'Name', value: typedName, required: true, maxLength: 255, hint: 'Which device or password manager holds it, such as “Work laptop”.' })}
  <label for="current_password">Current password</label>
  <input type="password" id="current_password" name="current_password" autocomplete="current-password" required>`,
})}
</section>
<p data-passkey-unsupported>Adding a passkey needs a browser with JavaScript and WebAuthn.</p>`
}`,
        ),
      );
  };

  app.get(SETTINGS_PATH, { config: { signedIn: true } }, async (request, reply) => {
    const done = doneNotice(request, {
      added: 'The passkey was added.',
      removed: 'The passkey was removed.',
    });
    return passkeysPage(reply, accountOf(request), sessionOf(request), done);
  });

  app.post(SETTINGS_PATH, { config: { signedIn: true } }, async (request, reply) => {
    const user = accountOf(request);
    const session = sessionOf(request);
    const name = field(request.body, 'name');
    const typed = name.slice(0, 255);
    const refuse = (message: string) =>
      passkeysPage(reply, user, session, { kind: 'error', text: message }, typed);
    // The challenge is spent whatever happens next: an answer is checked once.
    const challenge = await takeChallenge(codehost, session);
    if (!(await currentPasswordAccepted(codehost, user, request.body))) {
      return refuse('The current password is not right.');
    }
    if (challenge === undefined) return refuse('The passkey request has expired. Try again.');
    try {
      await codehost.passkeys.register(user, {
        name,
        responseText: field(request.body, 'credential').slice(0, MAX_CEREMONY_ANSWER),
        expectedChallenge: challenge,
      });
    } catch (error) {
      if (error instanceof PasskeyRefused) return refuse(error.message);
      throw error;
    }
    // A first second factor comes with recovery codes, as GitLab's do: a lost
    // passkey must not lock its owner out.
    const codes = await codehost.twoFactor.ensureRecoveryCodes(user.id);
    if (codes) {
      return recoveryCodesPage(
        reply,
        { ...user, passkey_count: user.passkey_count + 1, second_factors_removed_at: null },
        session,
        codes,
        'The passkey was added.',
      );
    }
    return reply.redirect(`${SETTINGS_PATH}?done=added`, 303);
  });

  app.post(
    `${SETTINGS_PATH}/:id/delete`,
    { schema: { params: ROW_ID_PARAMS }, config: { signedIn: true } },
    async (request, reply) => {
      const user = accountOf(request);
      const session = sessionOf(request);
      const owned = (await codehost.passkeys.ownedBy(user.id)).some(
        (passkey) => passkey.id === request.params.id,
      );
      if (!owned) throw new HttpError(problem(404, 'not-found', 'No such passkey.'));
      if (!(await currentPasswordAccepted(codehost, user, request.body))) {
        return passkeysPage(reply, user, session, {
          kind: 'error',
          text: 'The passkey was not removed: the current password is not right.',
        });
      }
      if (!(await codehost.passkeys.remove(user.id, request.params.id))) {
        throw new HttpError(problem(404, 'not-found', 'No such passkey.'));
      }
      await codehost.twoFactor.forgetCodesWithoutSecondFactor(user.id);
      return reply.redirect(`${SETTINGS_PATH}?done=removed`, 303);
    },
  );
}
