import type { FastifyReply, FastifyRequest } from 'fastify';
import { partValue } from '../../platform/http/request-parts.js';
import type { HttpApp } from '../../platform/http/server.js';
import { textField } from '../../platform/web/forms.js';
import { html } from '../../platform/web/html.js';
import type { UserRow } from '../accounts/users.js';
import { browserAnswers } from '../api/described-responses.js';
import type { Codehost } from '../context.js';
import { scopesOf } from '../oauth/applications.js';
import { accessTo, whoItIs } from '../oauth/consent-facts.js';
import { DEVICE_VERIFICATION_PATH } from '../oauth/device-authorization-route.js';
import {
  DEVICE_CODE_LIFETIME_SECONDS,
  type DeviceGrantRow,
  displayedUserCode,
  MAX_USER_CODE_INPUT,
  normalizedUserCode,
} from '../oauth/device-grants.js';
import { SCOPES } from '../oauth/scopes.js';
import { csrfField, page } from './layout.js';
import type { Session } from './sessions.js';
import { accountOf, sessionOf } from './surface.js';
import { doneNotice, field } from './web-context.js';

/**
 * RFC 8628 section 5.1: user codes are short, so wrong ones are counted, per
 * account and per address, and refused for a while once there are too many.
 */
const GUESS_WINDOW_MS = 15 * 60 * 1000;
const WRONG_CODES_PER_ACCOUNT = 10;
const WRONG_CODES_PER_ADDRESS = 30;

const TITLE = 'Connect a device';

/**
 * The verification page of the device authorization grant (RFC 8628 section
 * 3.3), at GitLab's address: a signed-in user types the code their device
 * shows (or arrives with it in the link), sees which application asks for
 * what, and approves or denies. Every step is a form, so it needs no script.
 */
export function registerDevicePages(app: HttpApp, codehost: Codehost): void {
  const guessKeys = (request: FastifyRequest, user: UserRow) => [
    { key: `device-code-guesses:user:${user.id}`, limit: WRONG_CODES_PER_ACCOUNT },
    { key: `device-code-guesses:address:${request.ip}`, limit: WRONG_CODES_PER_ADDRESS },
  ];

  const codeForm = (
    reply: FastifyReply,
    user: UserRow,
    session: Session,
    options: {
      value?: string;
      /** What is wrong with the typed code, beside the field. */
      error?: string;
      /** What happened, above the form (a decision made, a limit reached). */
      notice?: { kind: 'ok' | 'error'; text: string } | undefined;
      status?: number;
      retryAfterSeconds?: number;
    } = {},
  ) => {
    if (options.retryAfterSeconds !== undefined) {
      reply.header('retry-after', String(options.retryAfterSeconds));
    }
    return reply
      .status(options.status ?? 200)
      .type('text/html')
      .send(
        page(
          {
            title: TITLE,
            user,
            csrf: session.data.csrf,
            notice: options.notice,
          },
          html`<p>Enter the code your device, command-line tool or editor shows to let it use your account.</p>
<form method="post" action="${DEVICE_VERIFICATION_PATH}">
${csrfField(session.data.csrf)}
${textField({ name: 'user_code', label: 'Code', value: options.value ?? '', error: options.error, required: true, maxLength: MAX_USER_CODE_INPUT, autocomplete: 'off', autofocus: true, hint: 'Eight letters, such as WDJB-MJHT; capitals and the dash do not matter.' })}
<p><button type="submit" id="continue">Continue</button></p>
</form>`,
        ),
      );
  };

  const confirmPage = async (
    reply: FastifyReply,
    user: UserRow,
    session: Session,
    grant: DeviceGrantRow,
    userCode: string,
  ) => {
    const application = await codehost.applications.findById(grant.application_id);
    const resource =
      grant.resource === null ? undefined : await codehost.resourceServers.find(grant.resource);
    const decisionForm = (decision: 'approve' | 'deny', label: string) =>
      html`<form class="inline" method="post" action="${DEVICE_VERIFICATION_PATH}/decision">${csrfField(session.data.csrf)}<input type="hidden" name="user_code" value="${userCode}"><input type="hidden" name="decision" value="${decision}"><button type="submit" id="${decision}">${label}</button></form>`;
    return reply.type('text/html').send(
      page(
        { title: 'Authorize the device?', user, csrf: session.data.csrf },
        html`<p><strong id="application-name">${application?.name ?? 'An application'}</strong> asks to use your account from a device.</p>
${application ? whoItIs(application) : html``}
${accessTo(resource)}
<p>Check that the device shows <strong class="user-code" id="user-code">${displayedUserCode(userCode)}</strong>. Continue only if you started signing in on that device yourself, just now: never for a code someone sent you.</p>
<p>It will be able to:</p>
<ul id="scopes">${scopesOf(grant).map((scope) => html`<li><code>${scope}</code>: ${SCOPES[scope]}</li>`)}</ul>
${decisionForm('approve', 'Authorize')}
${decisionForm('deny', 'Deny')}`,
      ),
    );
  };

  /**
   * The waiting request the typed code names, or an answer already sent: the
   * form again, saying what is wrong. Only a code that names no request is a
   * guess; one answered a moment ago (a reload, a second tab) or expired is
   * said as such. Too many guesses and even a right code waits (429).
   */
  const lookUp = async (
    request: FastifyRequest,
    reply: FastifyReply,
    user: UserRow,
    session: Session,
  ): Promise<{ grant: DeviceGrantRow; userCode: string } | undefined> => {
    const typed = field(request.body, 'user_code').trim();
    const value = typed.slice(0, MAX_USER_CODE_INPUT);
    const refuse = async (error: string) => {
      await codeForm(reply, user, session, { value, status: 422, error });
      return undefined;
    };
    const keys = guessKeys(request, user);
    for (const { key, limit } of keys) {
      const state = await codehost.counters.peek(key, GUESS_WINDOW_MS);
      if (state.count >= limit) {
        await codeForm(reply, user, session, {
          value,
          status: 429,
          retryAfterSeconds: Math.ceil(state.resetsInMs / 1000),
          notice: {
            kind: 'error',
            text: `Too many codes that named no device. Try again in ${Math.ceil(state.resetsInMs / 60_000)} minutes.`,
          },
        });
        return undefined;
      }
    }
    const userCode = normalizedUserCode(typed);
    if (userCode === undefined) {
      return refuse('Enter the code your device shows: eight letters, such as WDJB-MJHT.');
    }
    const found = await codehost.deviceGrants.findByUserCode(userCode);
    if (!found) {
      for (const { key } of keys) await codehost.counters.hit(key, GUESS_WINDOW_MS);
      return refuse(
        'No device is waiting with that code. Check it against your device’s screen, or ask the device for a new one.',
      );
    }
    const yours = found.grant.resource_owner_id === user.id;
    switch (found.state) {
      case 'waiting':
        return { grant: found.grant, userCode };
      case 'approved':
        return refuse(
          yours
            ? 'You authorized this code already: the device is connected. Its access can be revoked on your Applications page.'
            : 'This code was answered already. Ask your device for a new one.',
        );
      case 'denied':
        return refuse(
          yours
            ? 'You denied this code already. To connect the device, ask it for a new code.'
            : 'This code was answered already. Ask your device for a new one.',
        );
      case 'expired':
        return refuse(
          `That code has expired (codes last ${DEVICE_CODE_LIFETIME_SECONDS / 60} minutes). Ask your device for a new one.`,
        );
    }
  };

  app.get(
    DEVICE_VERIFICATION_PATH,
    {
      schema: {
        summary: 'Enter the code a device shows (RFC 8628 verification page)',
        tags: ['oauth'],
        hide: false,
        response: browserAnswers(200, 302),
      },
      config: { signedIn: true },
    },
    async (request, reply) => {
      const user = accountOf(request);
      // verification_uri_complete fills the code in; the person still checks it
      // against the device and continues (RFC 8628 section 5.4).
      const given = partValue(request.query, 'user_code');
      const value = typeof given === 'string' ? given.slice(0, MAX_USER_CODE_INPUT) : '';
      // After a decision (Post/Redirect/Get, so Back and Reload post nothing again).
      const notice = doneNotice(request, {
        approved:
          'The device is connected: go back to it, it signs in by itself within a few seconds. You can revoke its access on your Applications page.',
        denied: 'Denied: nothing was shared, and the device is told so.',
      });
      return codeForm(reply, user, sessionOf(request), { value, notice });
    },
  );

  app.post(
    DEVICE_VERIFICATION_PATH,
    {
      schema: {
        summary: 'Look up the code, then see which application asks for what (303)',
        tags: ['oauth'],
        hide: false,
        response: browserAnswers(303, 403, 422, 429),
      },
      config: { signedIn: true },
    },
    async (request, reply) => {
      const user = accountOf(request);
      const session = sessionOf(request);
      const found = await lookUp(request, reply, user, session);
      if (!found) return reply;
      // Post/Redirect/Get: the confirmation is a page of its own, so that Back from the
      // decision, or Reload, shows it again rather than the browser's resubmission prompt.
      session.data.deviceUserCode = found.userCode;
      await codehost.sessions.save(session);
      return reply.redirect(`${DEVICE_VERIFICATION_PATH}/confirm`, 303);
    },
  );

  app.get(
    `${DEVICE_VERIFICATION_PATH}/confirm`,
    {
      schema: {
        summary: 'Which application asks for what, for the code this browser looked up',
        tags: ['oauth'],
        hide: false,
        response: browserAnswers(200, 302, 303),
      },
      config: { signedIn: true },
    },
    async (request, reply) => {
      const user = accountOf(request);
      const session = sessionOf(request);
      const userCode = session.data.deviceUserCode;
      // Nothing looked up in this browser: the page to type a code.
      if (userCode === undefined) return reply.redirect(DEVICE_VERIFICATION_PATH, 303);
      const found = await codehost.deviceGrants.findByUserCode(userCode);
      if (found?.state !== 'waiting') {
        // Answered (here or elsewhere) or expired since: the code form says which.
        return codeForm(reply, user, session, {
          notice: {
            kind: 'error',
            text:
              found?.state === 'approved' && found.grant.resource_owner_id === user.id
                ? 'You authorized this code already: the device is connected. Its access can be revoked on your Applications page.'
                : 'That code is no longer waiting for an answer. Ask your device for a new one if it is not connected.',
          },
        });
      }
      return confirmPage(reply, user, session, found.grant, userCode);
    },
  );

  app.post(
    `${DEVICE_VERIFICATION_PATH}/decision`,
    {
      schema: {
        summary: "The user's answer to a device: approve or deny",
        tags: ['oauth'],
        hide: false,
        response: browserAnswers(303, 400, 403, 422, 429),
      },
      config: { signedIn: true },
    },
    async (request, reply) => {
      const user = accountOf(request);
      const session = sessionOf(request);
      const decision = field(request.body, 'decision');
      if (decision !== 'approve' && decision !== 'deny') {
        return codeForm(reply, user, session, {
          status: 400,
          notice: { kind: 'error', text: 'Choose Authorize or Deny.' },
          value: field(request.body, 'user_code').slice(0, MAX_USER_CODE_INPUT),
        });
      }
      const found = await lookUp(request, reply, user, session);
      if (!found) return reply;
      const approve = decision === 'approve';
      const decided = await codehost.deviceGrants.decide(found.grant.id, {
        userId: user.id,
        approve,
        // This session's sign-in, not the user's latest (another browser may have made it).
        authTime: session.data.authTime ?? user.current_sign_in_at,
        amr: session.data.amr,
        sid: session.data.sid,
      });
      // The code stays the session's: Back from here shows its confirmation page saying
      // it was answered, until another code is looked up.
      if (!decided) {
        return codeForm(reply, user, session, {
          status: 422,
          notice: {
            kind: 'error',
            text: 'That code was answered in another tab, or expired, a moment ago. Ask your device for a new one if it is not connected.',
          },
        });
      }
      return reply.redirect(
        `${DEVICE_VERIFICATION_PATH}?done=${approve ? 'approved' : 'denied'}`,
        303,
      );
    },
  );
}
