import { Type } from '@sinclair/typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { HttpApp } from '../../../platform/http/server.js';
import { html, timeTag } from '../../../platform/web/html.js';
import { csrfField } from '../../../platform/web/layout.js';
import { READ_ROLES } from '../../auth/roles.js';
import {
  EVENT_LABELS,
  NOTIFICATION_EVENTS,
  type NotificationEvent,
  type Preference,
} from '../../review/notifications.js';
import { formFieldsOf } from '../authoring/form-fields.js';
import { pageHref } from '../links.js';
import type { Pages } from '../pages.js';

/** Who may see the pages for reading your inbox (checked by the surface). */
const READING_YOUR_INBOX = { roles: READ_ROLES, doing: 'Reading your inbox' } as const;
/** Who may see the pages for choosing what you are told of (checked by the surface). */
const CHOOSING_WHAT_YOU_ARE_TOLD_OF = {
  roles: READ_ROLES,
  doing: 'Choosing what you are told of',
} as const;

const INBOX_QUERY = Type.Object(
  {
    unread: Type.Optional(Type.Literal('1')),
    done: Type.Optional(Type.Union([Type.Literal('read'), Type.Literal('saved')])),
  },
  { additionalProperties: false },
);

/**
 * Each person's inbox (newest first, unread marked, the count in the site's
 * header) and the page where they choose, per event, what reaches their inbox
 * and their mail.
 */
export function registerInboxPages(app: HttpApp, pages: Pages): void {
  const notifications = pages.refdata.notifications;

  app.get(
    '/account/notifications',
    {
      config: { viewers: READING_YOUR_INBOX },
      schema: { querystring: INBOX_QUERY },
    },
    async (request, reply) => {
      const viewer = pages.signedInViewer(request);
      const unreadOnly = request.query.unread === '1';
      const items = await notifications.inbox(viewer.subject, unreadOnly);
      const unread = await notifications.unreadCount(viewer.subject);
      const people = await pages.people.lookUp(items.map((item) => item.actor));
      const session = await pages.ensureSession(request, reply);
      const now = Date.now();
      const where = (item: (typeof items)[number]) =>
        item.package_id !== null
          ? `/review/packages/${item.package_id}`
          : (pageHref(pages.refdata, item.iri ?? '') ?? '/');
      return pages.answer(
        request,
        reply,
        200,
        {
          title: 'Inbox',
          wide: true,
          notice:
            request.query.done === 'read' ? { kind: 'ok', text: 'Marked as read.' } : undefined,
        },
        html`<p id="unread-count">${unread === 0 ? 'Nothing unread.' : unread === 1 ? 'One unread.' : `${unread} unread.`}</p>
<p class="inline-list">${unreadOnly ? html`<a href="/account/notifications">Show everything</a>` : html`<a href="/account/notifications?unread=1">Show only unread</a>`} · <a href="/account/notifications/settings">What you are told of</a></p>
${
  unread > 0
    ? html`<form method="post" action="/account/notifications/read">${csrfField(session.data.csrf)}<button type="submit">Mark all as read</button></form>`
    : html``
}
${
  items.length === 0
    ? html`<p>Your inbox is empty.</p>`
    : html`<ol class="inbox" id="inbox">${items.map(
        (item) =>
          html`<li class="${item.read_at === null ? 'unread' : 'read'}">${item.read_at === null ? html`<span class="badge">New</span> ` : html``}<a href="${where(item)}">${item.title}</a> <span class="hint">by ${people.label(item.actor)} ${timeTag(Number(item.created_at), now)}</span><p class="inbox-text">${item.text}</p></li>`,
      )}</ol>`
}`,
      );
    },
  );

  app.post(
    '/account/notifications/read',
    { config: { viewers: READING_YOUR_INBOX } },
    async (request, reply) => {
      const viewer = pages.signedInViewer(request);
      await notifications.markRead(viewer.subject, undefined);
      return reply.redirect('/account/notifications?done=read', 303);
    },
  );

  const settingsPage = async (
    request: FastifyRequest,
    reply: FastifyReply,
    subject: string,
    saved: boolean,
  ) => {
    const chosen = await notifications.preferences(subject);
    const email = await notifications.emailOf(subject);
    const session = await pages.ensureSession(request, reply);
    const box = (event: NotificationEvent, where: keyof Preference, label: string) => {
      const id = `${event}-${where}`;
      return html`<div><input type="checkbox" id="${id}" name="${id}" value="1"${chosen[event][where] ? html` checked` : html``}> <label class="inline" for="${id}">${label}</label></div>`;
    };
    return pages.answer(
      request,
      reply,
      200,
      {
        title: 'What you are told of',
        notice: saved ? { kind: 'ok', text: 'Saved.' } : undefined,
      },
      html`<p>${email ? html`Mail goes to <strong>${email}</strong>, the address your identity provider gave.` : html`refdata knows no address of yours (it learns a verified one when you sign in through your identity provider): you are told in your inbox only.`}</p>
<form method="post" action="/account/notifications/settings">${csrfField(session.data.csrf)}
${NOTIFICATION_EVENTS.map(
  (event) =>
    html`<fieldset class="group"><legend>${EVENT_LABELS[event]}</legend>${box(event, 'inbox', 'In my inbox')}${box(event, 'email', 'By mail')}</fieldset>`,
)}
<p class="actions"><button type="submit" class="primary">Save</button> <a href="/account/notifications">Back to the inbox</a></p>
</form>`,
    );
  };

  app.get(
    '/account/notifications/settings',
    {
      config: { viewers: CHOOSING_WHAT_YOU_ARE_TOLD_OF },
      schema: { querystring: INBOX_QUERY },
    },
    async (request, reply) => {
      const viewer = pages.signedInViewer(request);
      return settingsPage(request, reply, viewer.subject, request.query.done === 'saved');
    },
  );

  app.post(
    '/account/notifications/settings',
    { config: { viewers: CHOOSING_WHAT_YOU_ARE_TOLD_OF } },
    async (request, reply) => {
      const viewer = pages.signedInViewer(request);
      const fields = formFieldsOf(request.body);
      // An unticked box is not sent: each event is set from what is.
      await notifications.setPreferences(
        viewer.subject,
        Object.fromEntries(
          NOTIFICATION_EVENTS.map((event) => [
            event,
            {
              inbox: fields.get(`${event}-inbox`) === '1',
              email: fields.get(`${event}-email`) === '1',
            },
          ]),
        ),
      );
      return reply.redirect('/account/notifications/settings?done=saved', 303);
    },
  );
}
