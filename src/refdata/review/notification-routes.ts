import { Type } from '@sinclair/typebox';
import type { HttpApp } from '../../platform/http/server.js';
import { principalOf } from '../auth/authenticate.js';
import { READ_ROLES } from '../auth/roles.js';
import type { Refdata } from '../context.js';
import { answer, problems } from '../described-responses.js';
import { NOTIFICATION_EVENTS, type NotificationEvent, type Preference } from './notifications.js';

const PreferenceJson = Type.Object(
  { inbox: Type.Boolean(), email: Type.Boolean() },
  { additionalProperties: false },
);
const Settings = Type.Object(
  Object.fromEntries(NOTIFICATION_EVENTS.map((event) => [event, PreferenceJson])) as Record<
    NotificationEvent,
    typeof PreferenceJson
  >,
  { additionalProperties: false },
);
const SettingsChange = Type.Partial(Settings, { additionalProperties: false });
const Entry = Type.Object({
  id: Type.Integer(),
  event: Type.String(),
  actor: Type.String(),
  iri: Type.Union([Type.String(), Type.Null()]),
  package: Type.Union([Type.Integer(), Type.Null()]),
  title: Type.String(),
  text: Type.String(),
  createdAt: Type.String({ format: 'date-time' }),
  read: Type.Boolean(),
});

/** Each person's inbox and what they want to be told (docs/review.md#notifications). */
export function registerNotificationRoutes(app: HttpApp, refdata: Refdata): void {
  const notifications = refdata.notifications;

  app.get('/notifications', {
    schema: {
      summary: 'My inbox, newest first, with how many are unread',
      tags: ['review'],
      querystring: Type.Object(
        { unread: Type.Optional(Type.Boolean()) },
        { additionalProperties: false },
      ),
      response: {
        200: answer(
          'The inbox',
          'application/json',
          Type.Object({ unread: Type.Integer(), items: Type.Array(Entry) }),
        ),
        ...problems(400, 401, 403),
      },
    },
    config: { access: { roles: READ_ROLES } },
    handler: async (request) => {
      const me = principalOf(request);
      await notifications.noteRoles(me.subject, me.roles);
      const items = await notifications.inbox(me.subject, request.query.unread === true);
      return {
        unread: await notifications.unreadCount(me.subject),
        items: items.map((item) => ({
          id: item.id,
          event: item.event,
          actor: item.actor,
          iri: item.iri,
          package: item.package_id,
          title: item.title,
          text: item.text,
          createdAt: new Date(Number(item.created_at)).toISOString(),
          read: item.read_at !== null,
        })),
      };
    },
  });

  app.post('/notifications/read', {
    schema: {
      summary: 'Mark entries of my inbox read ({} for all of them)',
      tags: ['review'],
      body: Type.Object(
        {
          ids: Type.Optional(
            Type.Array(Type.Integer({ minimum: 1, maximum: 2 ** 31 - 1 }), { maxItems: 1000 }),
          ),
        },
        { additionalProperties: false },
      ),
      response: {
        200: answer(
          'How many were marked, and how many remain unread',
          'application/json',
          Type.Object({ marked: Type.Integer(), unread: Type.Integer() }),
        ),
        ...problems(400, 401, 403, 413, 415),
      },
    },
    config: { access: { roles: READ_ROLES } },
    handler: async (request) => {
      const me = principalOf(request).subject;
      const marked = await notifications.markRead(me, request.body.ids);
      return { marked, unread: await notifications.unreadCount(me) };
    },
  });

  app.get('/notification-settings', {
    schema: {
      summary: 'What I am told of, in the inbox and by mail, per event',
      tags: ['review'],
      response: {
        200: answer(
          'Each event and where it goes; mail needs an address, known when signed in',
          'application/json',
          Type.Object({ events: Settings, email: Type.Union([Type.String(), Type.Null()]) }),
        ),
        ...problems(401, 403),
      },
    },
    config: { access: { roles: READ_ROLES } },
    handler: async (request) => {
      const me = principalOf(request);
      await notifications.noteRoles(me.subject, me.roles);
      return {
        events: await notifications.preferences(me.subject),
        email: await notifications.emailOf(me.subject),
      };
    },
  });

  app.put('/notification-settings', {
    schema: {
      summary: 'Change what I am told of (the events named; the rest stay)',
      tags: ['review'],
      body: SettingsChange,
      response: {
        200: answer(
          'The settings as they are now',
          'application/json',
          Type.Object({ events: Settings, email: Type.Union([Type.String(), Type.Null()]) }),
        ),
        ...problems(400, 401, 403, 413, 415),
      },
    },
    config: { access: { roles: READ_ROLES } },
    handler: async (request) => {
      const me = principalOf(request);
      await notifications.noteRoles(me.subject, me.roles);
      await notifications.setPreferences(
        me.subject,
        request.body as Partial<Record<NotificationEvent, Preference>>,
      );
      return {
        events: await notifications.preferences(me.subject),
        email: await notifications.emailOf(me.subject),
      };
    },
  });
}
