import type { FastifyReply } from 'fastify';
import { HttpError, problem } from '../../platform/http/problem.js';
import type { HttpApp } from '../../platform/http/server.js';
import { normalizeEmail, type UserRow } from '../accounts/users.js';
import { readableGroupById, readableProjectById } from '../api/lookup.js';
import { inIds } from '../api/queries.js';
import type { Codehost } from '../context.js';
import type { SourceType } from '../db/tables.js';
import {
  isNotificationLevel,
  NOTIFICATION_LEVELS,
  type NotificationLevel,
} from '../notifications/settings.js';
import { html, type Markup } from './html.js';
import { csrfField, page } from './layout.js';
import type { Session } from './sessions.js';
import { field, ID_PARAMS, signedInUser, webRoute } from './web-context.js';

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
      .selectAll()
      .where((eb) =>
        eb.or([inIds('id', reach.projectIds), inIds('namespace_id', reach.namespaceIds)]),
      )
      .orderBy('full_path_normalized')
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
    const row = (type: SourceType, id: number, label: string, level: NotificationLevel) =>
      html`<tr><td>${label}</td><td><form class="inline" method="post" action="/profile/notifications/${type}s/${id}">${csrfField(csrf)}${levelSelect(`${type}-${id}-level`, level, NOTIFICATION_LEVELS)} <button type="submit" id="${type}-${id}-save">Save</button></form></td></tr>`;

    return reply
      .status(status)
      .type('text/html')
      .send(
        page(
          { title: 'Notifications', user, csrf, notice },
          html`<form method="post" action="/profile/notifications">
  ${csrfField(csrf)}
  <label for="notification_email">Notification email</label>
  <select id="notification_email" name="notification_email">${emails.map(
    (address) =>
      html`<option value="${address}"${address === current ? html` selected` : html``}>${address}</option>`,
  )}</select>
  <label for="global-level">Global notification level</label>
  ${levelSelect('global-level', global.level, GLOBAL_CHOICES)}
  <p><button type="submit" id="global-save">Update settings</button></p>
</form>
<h2>Groups</h2>
${
  groups.length === 0
    ? html`<p>You are not a member of any group.</p>`
    : html`<table id="group-settings"><tr><th>Group</th><th>Level</th></tr>${groups.map((group) =>
        row('group', group.id, group.full_path, groupLevels.get(group.id) ?? 'global'),
      )}</table>`
}
<h2>Projects</h2>
${
  projects.length === 0
    ? html`<p>You are not a member of any project.</p>`
    : html`<table id="project-settings"><tr><th>Project</th><th>Level</th></tr>${projects.map(
        (project) =>
          row('project', project.id, project.full_path, projectLevels.get(project.id) ?? 'global'),
      )}</table>`
}`,
        ),
      );
  };

  app.get('/profile/notifications', webRoute(codehost), async (request, reply) => {
    const user = await signedInUser(codehost, request, reply);
    if (!user) return reply;
    const saved = (request.query as Record<string, unknown>).saved === '1';
    return render(
      reply,
      user,
      request.session as Session,
      saved ? { kind: 'ok', text: 'Notification settings saved.' } : undefined,
    );
  });

  app.post('/profile/notifications', webRoute(codehost), async (request, reply) => {
    const user = await signedInUser(codehost, request, reply);
    if (!user) return reply;
    const level = field(request.body, 'level');
    const wanted = field(request.body, 'notification_email');
    const owned = (await codehost.users.emailsOf(user)).find(
      (address) => normalizeEmail(address) === normalizeEmail(wanted),
    );
    if (!(GLOBAL_CHOICES as readonly string[]).includes(level) || owned === undefined) {
      return render(
        reply,
        user,
        request.session as Session,
        {
          kind: 'error',
          text: 'Choose a level from the list and one of your own e-mail addresses.',
        },
        422,
      );
    }
    await codehost.notificationSettings.update(
      user.id,
      { type: 'global' },
      { level: level as NotificationLevel },
      async (trx) => {
        await trx
          .updateTable('users')
          .set({ notification_email: owned === user.email ? null : owned, updated_at: Date.now() })
          .where('id', '=', user.id)
          .execute();
      },
    );
    return reply.redirect('/profile/notifications?saved=1', 303);
  });

  for (const type of ['group', 'project'] as const) {
    app.post(
      `/profile/notifications/${type}s/:id`,
      webRoute(codehost, { schema: { params: ID_PARAMS } }),
      async (request, reply) => {
        const user = await signedInUser(codehost, request, reply);
        if (!user) return reply;
        const { id } = request.params as { id: number };
        const readable =
          type === 'group'
            ? await readableGroupById(codehost, user, id)
            : await readableProjectById(codehost, user, id);
        if (!readable) throw new HttpError(problem(404, 'not-found', `No such ${type}.`));
        const level = field(request.body, 'level');
        if (!isNotificationLevel(level)) {
          return render(
            reply,
            user,
            request.session as Session,
            { kind: 'error', text: 'Choose a level from the list.' },
            422,
          );
        }
        await codehost.notificationSettings.update(user.id, { type, id }, { level });
        return reply.redirect('/profile/notifications?saved=1', 303);
      },
    );
  }
}
