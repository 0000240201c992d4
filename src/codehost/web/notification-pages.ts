import type { FastifyReply, FastifyRequest } from 'fastify';
import { HttpError } from '../../platform/http/problem.js';
import { partValue } from '../../platform/http/request-parts.js';
import type { HttpApp } from '../../platform/http/server.js';
import { html, type Markup } from '../../platform/web/html.js';
import { normalizeEmail, type UserRow } from '../accounts/users.js';
import { readableGroupById, readableProjectById } from '../api/lookup.js';
import { inIds } from '../api/queries.js';
import type { Codehost } from '../context.js';
import type { SourceType } from '../db/tables.js';
import {
  isNotificationLevel,
  NOTIFICATION_EVENTS,
  NOTIFICATION_LEVELS,
  type NotificationEvent,
  type NotificationLevel,
  type NotificationSetting,
  type NotificationSource,
} from '../notifications/settings.js';
import { problem } from '../problem-codes.js';
import { csrfField, page } from './layout.js';
import type { Session } from './sessions.js';
import { accountOf, sessionOf } from './surface.js';
import { field, fieldValues, ROW_ID_PARAMS } from './web-context.js';

/** How GitLab's notifications page names the levels. */
const LEVEL_LABELS: Record<NotificationLevel, string> = {
  global: 'Global',
  watch: 'Watch',
  participating: 'Participate',
  mention: 'On mention',
  disabled: 'Disabled',
  custom: 'Custom',
};

/** `global` means "as my global setting", so the global setting itself cannot be it. */
const GLOBAL_CHOICES = NOTIFICATION_LEVELS.filter((level) => level !== 'global');

/** Rows listed per kind; members of more see the first ones. */
const LISTED = 200;

/** GitLab's names of the ten custom events. */
const EVENT_LABELS: Record<NotificationEvent, string> = {
  new_note: 'New note',
  new_issue: 'New issue',
  reopen_issue: 'Reopen issue',
  close_issue: 'Close issue',
  reassign_issue: 'Reassign issue',
  new_merge_request: 'New merge request',
  reopen_merge_request: 'Reopen merge request',
  close_merge_request: 'Close merge request',
  reassign_merge_request: 'Reassign merge request',
  merge_merge_request: 'Merge merge request',
};

/** Where the custom events of a source are chosen. */
function customPath(source: NotificationSource): string {
  return source.type === 'global'
    ? '/profile/notifications/custom'
    : `/profile/notifications/${source.type}s/${source.id}/custom`;
}

function levelSelect(
  id: string,
  current: NotificationLevel,
  choices: readonly NotificationLevel[],
): Markup {
  return html`<select id="${id}" name="level">${choices.map(
    (level) =>
      html`<option value="${level}"${level === current ? html` selected` : html``}>${LEVEL_LABELS[level]}</option>`,
  )}</select>`;
}

/**
 * The user's notification settings, as on GitLab's profile page: the global level
 * and address, then a level for each group and project the user belongs to.
 */
export function registerNotificationPages(app: HttpApp, codehost: Codehost): void {
  const render = async (
    reply: FastifyReply,
    user: UserRow,
    session: Session,
    notice?: { kind: 'ok' | 'error'; text: string },
    status = 200,
  ) => {
    const global = await codehost.notificationSettings.global(user.id);
    const emails = await codehost.users.emailsOf(user);
    const current = user.notification_email ?? user.email;
    const groupIds = await codehost.access.memberGroupIds(user);
    const groups = await codehost.db
      .selectFrom('namespaces')
      .selectAll()
      .where('kind', '=', 'group')
      .where(inIds('id', groupIds))
      .orderBy('full_path_normalized')
      .limit(LISTED)
      .execute();
    const reach = await codehost.access.memberProjectFilter(user);
    const projects = await codehost.db
      .selectFrom('projects')
      .innerJoin('namespaces', 'namespaces.id', 'projects.namespace_id')
      .select([
        'projects.id',
        'projects.name',
        'projects.full_path',
        'namespaces.full_name as namespace_name',
      ])
      .where((eb) =>
        eb.or([
          inIds('projects.id', reach.projectIds),
          inIds('projects.namespace_id', reach.namespaceIds),
        ]),
      )
      .orderBy('projects.full_path_normalized')
      .limit(LISTED)
      .execute();
    const groupLevels = await codehost.notificationSettings.levels(
      user.id,
      'group',
      groups.map((group) => group.id),
    );
    const projectLevels = await codehost.notificationSettings.levels(
      user.id,
      'project',
      projects.map((project) => project.id),
    );
    const csrf = session.data.csrf;
    const row = (
      type: SourceType,
      id: number,
      name: string,
      href: string,
      level: NotificationLevel,
    ) =>
      html`<tr><th scope="row"><a href="${href}">${name}</a></th><td class="actions"><form class="inline" method="post" action="/profile/notifications/${type}s/${id}">${csrfField(csrf)}<label class="visually-hidden" for="${type}-${id}-level">Notification level for ${name}</label>${levelSelect(`${type}-${id}-level`, level, NOTIFICATION_LEVELS)} <button type="submit" id="${type}-${id}-save" aria-label="Save the level for ${name}">Save</button>${
        level === 'custom' ? html` <a href="${customPath({ type, id })}">Custom events</a>` : html``
      }</form></td></tr>`;
    /** The groups or projects the user is a member of, each with its level and a form to change it. */
    const levelTable = (
      type: SourceType,
      heading: string,
      sources: { id: number; name: string; href: string; level: NotificationLevel }[],
    ) =>
      html`<h2>${heading}</h2>${
        sources.length === 0
          ? html`<p>You are not a member of any ${type}.</p>`
          : html`<div class="table-scroll" tabindex="0" role="region" aria-label="${
              type === 'group' ? 'Group' : 'Project'
            } notification levels"><table id="${type}-settings" class="stack"><tr class="head"><th scope="col">${
              type === 'group' ? 'Group' : 'Project'
            }</th><th scope="col">Level</th></tr>${sources.map((source) =>
              row(type, source.id, source.name, source.href, source.level),
            )}</table></div>`
      }`;

    return reply
      .status(status)
      .type('text/html')
      .send(
        page(
          { title: 'Notifications', user, csrf, notice, settings: '/profile/notifications' },
          html`<form method="post" action="/profile/notifications">
  ${csrfField(csrf)}
  <label for="notification_email">Notification email</label>
  <select id="notification_email" name="notification_email">${emails.map(
    (address) =>
      html`<option value="${address}"${address === current ? html` selected` : html``}>${address}</option>`,
  )}</select>
  <label for="global-level">Global notification level</label>
  ${levelSelect('global-level', global.level, GLOBAL_CHOICES)}
  <p class="hint">Custom lets you choose which of ten events notify you${global.level === 'custom' ? html`: <a href="${customPath({ type: 'global' })}">choose the events</a>` : html` (you choose them after saving)`}.</p>
  <p><button type="submit" id="global-save">Update settings</button></p>
</form>
${levelTable(
  'group',
  'Groups',
  groups.map((group) => ({
    id: group.id,
    name: group.full_name,
    href: `/groups/${group.full_path}`,
    level: groupLevels.get(group.id) ?? 'global',
  })),
)}
${levelTable(
  'project',
  'Projects',
  projects.map((project) => ({
    id: project.id,
    name: `${project.namespace_name} / ${project.name}`,
    href: `/${project.full_path}`,
    level: projectLevels.get(project.id) ?? 'global',
  })),
)}`,
        ),
      );
  };

  app.get('/profile/notifications', { config: { signedIn: true } }, async (request, reply) => {
    const user = accountOf(request);
    const saved = partValue(request.query, 'saved') === '1';
    return render(
      reply,
      user,
      sessionOf(request),
      saved ? { kind: 'ok', text: 'Notification settings saved.' } : undefined,
    );
  });

  app.post('/profile/notifications', { config: { signedIn: true } }, async (request, reply) => {
    const user = accountOf(request);
    const level = field(request.body, 'level');
    const wanted = field(request.body, 'notification_email');
    const owned = (await codehost.users.emailsOf(user)).find(
      (address) => normalizeEmail(address) === normalizeEmail(wanted),
    );
    if (!(GLOBAL_CHOICES as readonly string[]).includes(level) || owned === undefined) {
      return render(
        reply,
        user,
        sessionOf(request),
        {
          kind: 'error',
          text: 'Choose a level from the list and one of your own e-mail addresses.',
        },
        422,
      );
    }
    // Custom is chosen with its events, on the events page: until they are saved
    // (or if the user cancels there), the level stays what it was.
    const global = await codehost.notificationSettings.global(user.id);
    const choosingEvents = level === 'custom' && global.level !== 'custom';
    await codehost.notificationSettings.update(
      user.id,
      { type: 'global' },
      choosingEvents ? {} : { level: level as NotificationLevel },
      async (trx) => {
        await trx
          .updateTable('users')
          .set({ notification_email: owned === user.email ? null : owned, updated_at: Date.now() })
          .where('id', '=', user.id)
          .execute();
      },
    );
    if (choosingEvents) return reply.redirect(customPath({ type: 'global' }), 303);
    return reply.redirect('/profile/notifications?saved=1', 303);
  });

  /** The group or project a path names, with its name, if the user may read it. */
  const sourceOf = async (user: UserRow, type: SourceType, id: number) => {
    if (type === 'group') {
      const group = await readableGroupById(codehost, user, id);
      return group ? { name: group.full_name } : undefined;
    }
    const project = await readableProjectById(codehost, user, id);
    return project
      ? { name: `${project.namespace.full_name} / ${project.project.name}` }
      : undefined;
  };

  for (const type of ['group', 'project'] as const) {
    app.post(
      `/profile/notifications/${type}s/:id`,
      { schema: { params: ROW_ID_PARAMS }, config: { signedIn: true } },
      async (request, reply) => {
        const user = accountOf(request);
        const { id } = request.params;
        if (!(await sourceOf(user, type, id))) {
          throw new HttpError(problem(404, 'not-found', `No such ${type}.`));
        }
        const level = field(request.body, 'level');
        if (!isNotificationLevel(level)) {
          return render(
            reply,
            user,
            sessionOf(request),
            { kind: 'error', text: 'Choose a level from the list.' },
            422,
          );
        }
        const current = await codehost.notificationSettings.find(user.id, { type, id });
        if (level === 'custom' && current?.level !== 'custom') {
          // Set with its events, on the events page; Cancel there changes nothing.
          return reply.redirect(customPath({ type, id }), 303);
        }
        await codehost.notificationSettings.update(user.id, { type, id }, { level });
        return reply.redirect('/profile/notifications?saved=1', 303);
      },
    );
  }

  // The custom level's ten events, as checkboxes, for the global setting and for
  // each group and project. Saving them also sets the level to custom.
  const customPage = (
    reply: FastifyReply,
    user: UserRow,
    session: Session,
    source: NotificationSource,
    name: string,
    setting: NotificationSetting,
  ) =>
    reply.type('text/html').send(
      page(
        {
          title: `Custom notification events: ${name}`,
          user,
          csrf: session.data.csrf,
          settings: '/profile/notifications',
        },
        html`<form method="post" action="${customPath(source)}">
  ${csrfField(session.data.csrf)}
  <fieldset><legend>E-mail me when</legend>
  ${NOTIFICATION_EVENTS.map(
    (event) =>
      html`<div><label class="inline"><input type="checkbox" name="events" value="${event}"${setting.events[event] ? html` checked` : html``}> ${EVENT_LABELS[event]}</label></div>`,
  )}
  </fieldset>
  <p class="hint">Saving sets the level of ${name} to Custom${setting.level === 'custom' ? '' : html`; Cancel leaves it as it is`}.</p>
  <p><button type="submit">Save events</button> <a href="/profile/notifications">Cancel</a></p>
</form>`,
      ),
    );

  const customRoute = (
    path: string,
    resolve: (
      user: UserRow,
      params: unknown,
    ) => Promise<{ source: NotificationSource; name: string } | undefined>,
    schema = {},
  ) => {
    const target = async (request: FastifyRequest, user: UserRow) => {
      const found = await resolve(user, request.params);
      if (!found) throw new HttpError(problem(404, 'not-found', 'No such group or project.'));
      return found;
    };
    app.get(path, { schema, config: { signedIn: true } }, async (request, reply) => {
      const user = accountOf(request);
      const { source, name } = await target(request, user);
      const setting =
        source.type === 'global'
          ? await codehost.notificationSettings.global(user.id)
          : ((await codehost.notificationSettings.find(user.id, source)) ?? NO_EVENTS);
      return customPage(reply, user, sessionOf(request), source, name, setting);
    });
    app.post(path, { schema, config: { signedIn: true } }, async (request, reply) => {
      const user = accountOf(request);
      const { source } = await target(request, user);
      const chosen = fieldValues(request.body, 'events');
      const unknown = chosen.find(
        (event) => !(NOTIFICATION_EVENTS as readonly string[]).includes(event),
      );
      if (unknown !== undefined) {
        throw new HttpError(problem(400, 'validation', 'Choose events from the list.'));
      }
      const events = Object.fromEntries(
        NOTIFICATION_EVENTS.map((event) => [event, chosen.includes(event)]),
      ) as Record<NotificationEvent, boolean>;
      await codehost.notificationSettings.update(user.id, source, { level: 'custom', events });
      return reply.redirect('/profile/notifications?saved=1', 303);
    });
  };

  customRoute(customPath({ type: 'global' }), async () => ({
    source: { type: 'global' },
    name: 'global setting',
  }));
  for (const type of ['group', 'project'] as const) {
    customRoute(
      `/profile/notifications/${type}s/:id/custom`,
      async (user, params) => {
        const { id } = params as { id: number };
        const found = await sourceOf(user, type, id);
        return found ? { source: { type, id }, name: found.name } : undefined;
      },
      { params: ROW_ID_PARAMS },
    );
  }
}

/** What a source without a stored setting shows: no event chosen yet. */
const NO_EVENTS: NotificationSetting = {
  level: 'global',
  events: Object.fromEntries(NOTIFICATION_EVENTS.map((event) => [event, false])) as Record<
    NotificationEvent,
    boolean
  >,
};
