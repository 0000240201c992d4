/**
 * Real GitLab client libraries from the npm registry, unchanged, against a
 * listening codehost: @gitbeaker/rest (current, API v4) and the older `gitlab`
 * package configured for API v3. They read and change notification settings at
 * all three scopes and use the groups, projects and members endpoints.
 */
import { Gitlab as Gitbeaker } from '@gitbeaker/rest';
import { Gitlab as LegacyGitlab } from 'gitlab';
import { describe, expect, it } from 'vitest';
import { DATABASE_KINDS } from '../harness.js';
import { apiToken, codehostForTests, createUser } from './helpers.js';

describe.each(DATABASE_KINDS)('GitLab client libraries against codehost on %s', (kind) => {
  const service = codehostForTests(kind, { listen: true });

  it('@gitbeaker/rest over /api/v4: groups, projects, members and notification settings', async () => {
    const user = await createUser(service);
    const teammate = await createUser(service);
    const api = new Gitbeaker({ host: service.url, token: await apiToken(service, user.id) });

    const group = await api.Groups.create(`Beaker team ${user.id}`, `beaker.${user.id}`, {
      visibility: 'private',
    });
    expect(group.full_path).toBe(`beaker.${user.id}`);
    const project = await api.Projects.create({
      name: 'Beaker app',
      namespaceId: group.id as number,
    });
    expect(project.path_with_namespace).toBe(`beaker.${user.id}/beaker-app`);
    const member = await api.GroupMembers.add(group.id as number, 30, { userId: teammate.id });
    expect(member.access_level).toBe(30);
    const groups = await api.Groups.all({ pagination: 'offset', perPage: 1 });
    expect(groups.map((entry) => entry.id)).toContain(group.id);

    expect(await api.NotificationSettings.show()).toEqual({
      level: 'participating',
      notification_email: user.email,
    });
    expect(await api.NotificationSettings.edit({ level: 'watch' })).toMatchObject({
      level: 'watch',
    });

    expect(await api.NotificationSettings.show({ groupId: group.id as number })).toEqual({
      level: 'global',
    });
    await api.NotificationSettings.edit({ groupId: group.id as number, level: 'mention' });
    expect(await api.NotificationSettings.show({ groupId: group.full_path as string })).toEqual({
      level: 'mention',
    });

    const custom = await api.NotificationSettings.edit({
      projectId: project.path_with_namespace as string,
      level: 'custom',
      newNote: true,
      closeIssue: true,
    });
    expect(custom).toMatchObject({
      level: 'custom',
      events: { new_note: true, close_issue: true, new_issue: false },
    });
    expect(await api.NotificationSettings.show({ projectId: project.id as number })).toEqual(
      custom,
    );

    // The library surfaces GitLab's error body.
    await expect(api.NotificationSettings.edit({ level: 'bogus' })).rejects.toMatchObject({
      cause: { description: "'bogus' is not a valid level" },
    });
  });

  it('the gitlab package with version 3 over /api/v3: all three scopes', async () => {
    const user = await createUser(service);
    const api = new LegacyGitlab({
      host: service.url,
      token: await apiToken(service, user.id),
      version: 3,
    });
    // Its typings demand a group or project id; its code (and GitLab) also serves
    // the global scope without one.
    const settings = api.NotificationSettings as unknown as {
      all(options: Record<string, unknown>): Promise<unknown>;
      edit(options: Record<string, unknown>): Promise<unknown>;
    };

    const group = (await api.Groups.create({
      name: `Legacy team ${user.id}`,
      path: `legacy-${user.id}`,
    })) as { id: number; full_path: string };
    const project = (await api.Projects.create({
      name: 'Legacy app',
      namespaceId: group.id,
    })) as { id: number; path_with_namespace: string };
    expect(project.path_with_namespace).toBe(`legacy-${user.id}/legacy-app`);

    expect(await settings.all({})).toEqual({
      level: 'participating',
      notification_email: user.email,
    });
    expect(await settings.edit({ level: 'disabled' })).toEqual({
      level: 'disabled',
      notification_email: user.email,
    });
    expect(await settings.all({ groupId: group.id })).toEqual({ level: 'global' });
    expect(await settings.edit({ groupId: group.id, level: 'watch' })).toEqual({
      level: 'watch',
    });
    expect(await settings.all({ groupId: group.full_path })).toEqual({
      level: 'watch',
    });
    await settings.edit({
      projectId: project.path_with_namespace,
      level: 'custom',
      mergeMergeRequest: true,
    });
    expect(await settings.all({ projectId: project.id })).toMatchObject({
      level: 'custom',
      events: { merge_merge_request: true, new_note: false },
    });
    await expect(settings.all({ projectId: 'nobody/nothing' })).rejects.toMatchObject({
      description: '404 Project Not Found',
    });
  });
});
