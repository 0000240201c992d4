import createClient from 'openapi-fetch';
import type { paths } from '../generated/codehost.js';

/**
 * A GitLab client's round of notification settings, written against the types
 * generated from codehost's own description: a token from the password grant,
 * the global setting, then a group's and a project's. Returns what each step
 * answered, for the test to hold against what the settings should be.
 */
export async function notificationSettingsRound(
  baseUrl: string,
  account: { username: string; password: string; clientId: string; clientSecret: string },
) {
  const oauth = createClient<paths>({ baseUrl });
  const token = await oauth.POST('/oauth/token', {
    body: {
      grant_type: 'password',
      username: account.username,
      password: account.password,
      client_id: account.clientId,
      client_secret: account.clientSecret,
      scope: 'api',
    },
  });
  if (!token.data)
    throw new Error(`token: ${token.response.status} ${JSON.stringify(token.error)}`);

  const api = createClient<paths>({
    baseUrl,
    headers: { authorization: `Bearer ${token.data.access_token}` },
  });
  const user = await api.GET('/api/v4/user');
  const globalBefore = await api.GET('/api/v4/notification_settings');
  const globalAfter = await api.PUT('/api/v4/notification_settings', {
    body: { level: 'custom', new_note: true, merge_merge_request: true },
  });

  const group = await api.POST('/api/v4/groups', {
    body: { name: `Notified ${account.username}`, path: `notified-${account.username}` },
  });
  if (!group.data)
    throw new Error(`group: ${group.response.status} ${JSON.stringify(group.error)}`);
  const groupId = String(group.data.id);
  const groupBefore = await api.GET('/api/v4/groups/{id}/notification_settings', {
    params: { path: { id: groupId } },
  });
  const groupAfter = await api.PUT('/api/v4/groups/{id}/notification_settings', {
    params: { path: { id: groupId } },
    body: { level: 'watch' },
  });

  const project = await api.POST('/api/v4/projects', {
    body: { name: 'Settings', namespace_id: group.data.id },
  });
  if (!project.data) {
    throw new Error(`project: ${project.response.status} ${JSON.stringify(project.error)}`);
  }
  // By its full path, as GitLab clients often name a project.
  const projectPath = project.data.path_with_namespace;
  const projectAfter = await api.PUT('/api/v4/projects/{id}/notification_settings', {
    params: { path: { id: projectPath } },
    body: { level: 'disabled' },
  });
  const projectRead = await api.GET('/api/v4/projects/{id}/notification_settings', {
    params: { path: { id: String(project.data.id) } },
  });
  const missing = await api.GET('/api/v4/projects/{id}/notification_settings', {
    params: { path: { id: '999999999' } },
  });

  return {
    username: user.data?.username,
    globalBefore: globalBefore.data,
    globalAfter: globalAfter.data,
    groupBefore: groupBefore.data,
    groupAfter: groupAfter.data,
    projectAfter: projectAfter.data,
    projectRead: projectRead.data,
    // GitLab's `{"message"}`, or OAuth's error for a refused token.
    missing: {
      status: missing.response.status,
      message: missing.error && 'message' in missing.error ? missing.error.message : undefined,
    },
  };
}
