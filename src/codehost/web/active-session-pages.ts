import Bowser from 'bowser';
import type { FastifyReply } from 'fastify';
import { HttpError } from '../../platform/http/problem.js';
import type { HttpApp } from '../../platform/http/server.js';
import { html, timeTag } from '../../platform/web/html.js';
import type { UserRow } from '../accounts/users.js';
import type { Codehost } from '../context.js';
import { problem } from '../problem-codes.js';
import { csrfField, page } from './layout.js';
import type { Session } from './sessions.js';
import { accountOf, sessionOf } from './surface.js';
import { doneNotice, field } from './web-context.js';

const SETTINGS_PATH = '/profile/active_sessions';

/** "Chrome 131 on Linux": what a person recognises of a User-Agent header. */
export function describeBrowser(userAgent: string): string {
  if (userAgent === '') return 'Unknown browser';
  const parsed = Bowser.parse(userAgent);
  const browser = [parsed.browser.name, parsed.browser.version?.split('.')[0]]
    .filter(Boolean)
    .join(' ');
  const system = parsed.os.name;
  if (!browser) return userAgent.slice(0, 80);
  return system ? `${browser} on ${system}` : browser;
}

/**
 * `/profile/active_sessions`: every browser signed in to the account, with what
 * identifies it, and a way to end any one of them or all but this one.
 * Sessions are named in forms by the hash of their ID, never by the ID itself.
 */
export function registerActiveSessionPages(app: HttpApp, codehost: Codehost): void {
  const sessionsPage = async (
    reply: FastifyReply,
    user: UserRow,
    session: Session,
    notice?: string,
  ) => {
    const sessions = await codehost.sessions.activeFor(user.id);
    const now = Date.now();
    return reply.type('text/html').send(
      page(
        {
          title: 'Active sessions',
          user,
          csrf: session.data.csrf,
          settings: SETTINGS_PATH,
          notice: notice ? { kind: 'ok', text: notice } : undefined,
        },
        html`<p>The browsers signed in to your account. End any you do not recognise, then <a href="/profile/password/edit">change your password</a>.</p>
<div class="table-scroll" tabindex="0" role="region" aria-label="Signed-in sessions"><table id="active-sessions" class="stack">
<tr class="head"><th scope="col">Browser</th><th scope="col">Address</th><th scope="col">Signed in</th><th scope="col">Last used</th><th scope="col">Action</th></tr>
${sessions.map((entry) => {
  const current = entry.idHash === session.idHash;
  const browser = describeBrowser(entry.userAgent);
  return html`<tr><td data-label="Browser">${browser}${current ? html` <span class="badge">This browser</span>` : html``}</td>
<td data-label="Address">${entry.ipAddress || 'Unknown'}</td><td data-label="Signed in">${timeTag(entry.createdAt, now)}</td><td data-label="Last used">${timeTag(entry.lastUsedAt, now)}</td>
<td class="actions">${
    current
      ? html``
      : html`<form class="inline" method="post" action="${SETTINGS_PATH}/revoke">${csrfField(session.data.csrf)}<input type="hidden" name="session" value="${entry.idHash}"><button type="submit" aria-label="End the session of ${browser} at ${entry.ipAddress || 'an unknown address'}">End</button></form>`
  }</td></tr>`;
})}
</table></div>
${
  sessions.length > 1
    ? html`<form method="post" action="${SETTINGS_PATH}/revoke_others">${csrfField(session.data.csrf)}<p><button type="submit" class="danger">End all other sessions</button></p></form>`
    : html`<p>This is your only session.</p>`
}`,
      ),
    );
  };

  app.get(SETTINGS_PATH, { config: { signedIn: true } }, async (request, reply) => {
    const user = accountOf(request);
    const done = doneNotice(request, {
      ended: 'The session was ended.',
      others: 'Your other sessions were ended.',
    });
    return sessionsPage(reply, user, sessionOf(request), done?.text);
  });

  app.post(`${SETTINGS_PATH}/revoke`, { config: { signedIn: true } }, async (request, reply) => {
    const user = accountOf(request);
    const target = field(request.body, 'session');
    // This browser's own session ends through Sign out, which also clears its cookie.
    if (
      !/^[0-9a-f]{64}$/.test(target) ||
      target === request.session?.idHash ||
      !(await codehost.sessions.revoke(user.id, target))
    ) {
      throw new HttpError(
        problem(404, 'not-found', 'That session has already ended, or is not one of yours.'),
      );
    }
    codehost.backchannelLogout.nudge();
    return reply.redirect(`${SETTINGS_PATH}?done=ended`, 303);
  });

  app.post(
    `${SETTINGS_PATH}/revoke_others`,
    { config: { signedIn: true } },
    async (request, reply) => {
      const user = accountOf(request);
      await codehost.sessions.revokeOthers(user.id, sessionOf(request));
      codehost.backchannelLogout.nudge();
      return reply.redirect(`${SETTINGS_PATH}?done=others`, 303);
    },
  );
}
