import { Type } from '@sinclair/typebox';
import type { HttpApp } from '../../platform/http/server.js';
import { normalizeEmail, type UserRow } from '../accounts/users.js';
import type { Codehost } from '../context.js';
import type { SourceType } from '../db/tables.js';
import { notificationChanges } from '../notifications/changes.js';
import {
  NOTIFICATION_EVENTS,
  NOTIFICATION_LEVELS,
  type NotificationSetting,
} from '../notifications/settings.js';
import { RecordInvalid } from '../record-invalid.js';
import { authenticateApiRequest } from './authentication.js';
import { answer, apiErrors } from './described-responses.js';
import { notFound, recordInvalidError } from './gitlab-errors.js';
import { projectKey, readableGroup, readableProject } from './lookup.js';
import { describedBody, ID_PARAMS, requestParameters, stringParameter } from './parameters.js';
import { API_PREFIXES } from './user-routes.js';

/** GitLab's shape: the events only while the level is `custom`. */
function settingShape(setting: NotificationSetting) {
  return setting.level === 'custom'
    ? { level: setting.level, events: setting.events }
    : { level: setting.level };
}

function globalShape(setting: NotificationSetting, notificationEmail: string) {
  const { level, ...rest } = settingShape(setting);
  return { level, notification_email: notificationEmail, ...rest };
}

function notificationEmailOf(user: UserRow): string {
  return user.notification_email ?? user.email;
}

/**
 * The address to store for `notification_email`: null (the primary e-mail) for
 * an empty value, as GitLab resets a blank one; otherwise one of the user's own
 * addresses, in the form the user registered it.
 */
async function ownedAddress(codehost: Codehost, user: UserRow, wanted: string) {
  if (wanted.trim() === '') return null;
  const owned = (await codehost.users.emailsOf(user)).find(
    (address) => normalizeEmail(address) === normalizeEmail(wanted),
  );
  if (owned === undefined) {
    throw recordInvalidError(
      new RecordInvalid({ notification_email: ['is not an email you own'] }),
    );
  }
  return owned === user.email ? null : owned;
}

/** A readable project's setting for the user, read with the project in one statement; 404 otherwise. */
async function readableProjectSetting(codehost: Codehost, user: UserRow, id: string) {
  const key = projectKey(id);
  const found = key
    ? await codehost.notificationSettings.findForReadableProject(user, key)
    : undefined;
  if (!found) throw notFound('Project');
  return found.setting;
}

const UNAUTHORIZED_DOC = 'Requires a token with the `api` scope.';

const Level = Type.Union(
  NOTIFICATION_LEVELS.map((level) => Type.Literal(level)),
  { description: 'GitLab notification level' },
);
const Events = Type.Object(
  Object.fromEntries(NOTIFICATION_EVENTS.map((event) => [event, Type.Boolean()])),
  { description: 'Which e-mails a `custom` level sends; present only at that level' },
);
const SourceSetting = Type.Object({ level: Level, events: Type.Optional(Events) });
const GlobalSetting = Type.Object({
  level: Level,
  notification_email: Type.String({ description: 'Where notification e-mails go' }),
  events: Type.Optional(Events),
});

/** What `notificationChanges` reads: only the parameters sent change anything. */
const SettingChanges = {
  level: Type.Optional(Level),
  ...Object.fromEntries(
    NOTIFICATION_EVENTS.map((event) => [
      event,
      Type.Optional(
        Type.Boolean({ description: 'Whether this event sends an e-mail (custom level)' }),
      ),
    ]),
  ),
};
const GlobalChanges = Type.Object({
  ...SettingChanges,
  notification_email: Type.Optional(
    Type.String({ description: 'One of your e-mail addresses; empty for the primary one' }),
  ),
});

export function registerNotificationRoutes(app: HttpApp, codehost: Codehost): void {
  for (const prefix of API_PREFIXES) {
    app.get(`${prefix}/notification_settings`, {
      schema: {
        summary: 'Global notification level and e-mail (the first read stores `participating`)',
        description: UNAUTHORIZED_DOC,
        tags: ['notification settings'],
        response: {
          200: answer(GlobalSetting, 'The global setting'),
          ...apiErrors(401, 403),
        },
      },
      config: { apiScopes: ['api'] },
      handler: async (request) => {
        const { user } = await authenticateApiRequest(request, codehost);
        const setting = await codehost.notificationSettings.global(user.id);
        return globalShape(setting, notificationEmailOf(user));
      },
    });

    app.put(`${prefix}/notification_settings`, {
      schema: {
        summary: 'Change the global notification level, events or e-mail',
        description: `${UNAUTHORIZED_DOC} Parameters may come in the query string, a form or a JSON body; only those sent change.`,
        tags: ['notification settings'],
        ...describedBody(GlobalChanges),
        response: {
          200: answer(GlobalSetting, 'The global setting as it now is'),
          ...apiErrors(400, 401, 403, 413, 415),
        },
      },
      config: { apiScopes: ['api'] },
      handler: async (request) => {
        const { user } = await authenticateApiRequest(request, codehost);
        const parameters = requestParameters(request);
        const changes = notificationChanges(parameters);
        const wanted = stringParameter(parameters, 'notification_email');
        const address =
          wanted === undefined ? undefined : await ownedAddress(codehost, user, wanted);
        const setting = await codehost.notificationSettings.update(
          user.id,
          { type: 'global' },
          changes,
          address === undefined
            ? undefined
            : async (trx) => {
                await trx
                  .updateTable('users')
                  .set({ notification_email: address, updated_at: Date.now() })
                  .where('id', '=', user.id)
                  .execute();
              },
        );
        return globalShape(
          setting,
          address === undefined ? notificationEmailOf(user) : (address ?? user.email),
        );
      },
    });

    for (const type of ['group', 'project'] as const satisfies readonly SourceType[]) {
      const path = `${prefix}/${type}s/:id/notification_settings`;
      const sourceId = async (id: string, user: UserRow) =>
        type === 'group'
          ? (await readableGroup(codehost, user, id)).id
          : (await readableProject(codehost, user, id)).project.id;

      app.get(path, {
        schema: {
          summary: `A ${type}'s notification level (\`global\` until one is set; reading stores nothing)`,
          description: UNAUTHORIZED_DOC,
          tags: ['notification settings'],
          params: ID_PARAMS,
          response: {
            200: answer(SourceSetting, `The ${type}'s setting`),
            ...apiErrors(400, 401, 403, 404),
          },
        },
        config: { apiScopes: ['api'] },
        handler: async (request) => {
          const { user } = await authenticateApiRequest(request, codehost);
          const setting =
            type === 'project'
              ? await readableProjectSetting(codehost, user, request.params.id)
              : await codehost.notificationSettings.find(user.id, {
                  type,
                  id: await sourceId(request.params.id, user),
                });
          return setting ? settingShape(setting) : { level: 'global' as const };
        },
      });

      app.put(path, {
        schema: {
          summary: `Change a ${type}'s notification level or events`,
          description: `${UNAUTHORIZED_DOC} Parameters may come in the query string, a form or a JSON body; only those sent change.`,
          tags: ['notification settings'],
          params: ID_PARAMS,
          ...describedBody(Type.Object(SettingChanges)),
          response: {
            200: answer(SourceSetting, `The ${type}'s setting as it now is`),
            ...apiErrors(400, 401, 403, 404, 413, 415),
          },
        },
        config: { apiScopes: ['api'] },
        handler: async (request) => {
          const { user } = await authenticateApiRequest(request, codehost);
          const id = await sourceId(request.params.id, user);
          const changes = notificationChanges(requestParameters(request));
          return settingShape(
            await codehost.notificationSettings.update(user.id, { type, id }, changes),
          );
        },
      });
    }
  }
}
