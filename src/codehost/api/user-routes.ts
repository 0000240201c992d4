import { Type } from '@sinclair/typebox';
import type { HttpApp } from '../../platform/http/server.js';
import { isTwoFactorEnabled, type UserRow } from '../accounts/users.js';
import type { Codehost } from '../context.js';
import { authenticateApiRequest } from './authentication.js';
import { answer, apiErrors, NullableTime } from './described-responses.js';

/** The API versions served; v4 is an alias, since the shapes used here did not change. */
export const API_PREFIXES = ['/api/v3', '/api/v4'] as const;

function iso(time: number | null): string | null {
  return time === null ? null : new Date(Number(time)).toISOString();
}

/** GitLab's full user shape, as `GET /user` returns it to the user themself. */
export function gitlabUser(user: UserRow, publicUrl: string) {
  return {
    id: user.id,
    username: user.username,
    name: user.name,
    state: user.state,
    avatar_url: null,
    web_url: `${publicUrl}/${encodeURIComponent(user.username)}`,
    created_at: iso(user.created_at),
    is_admin: user.is_admin === 1,
    bio: user.bio || null,
    location: user.location || null,
    skype: user.skype,
    linkedin: user.linkedin,
    twitter: user.twitter,
    website_url: user.website_url,
    // GitLab's column is '' when the user shows no address.
    public_email: user.public_email ?? '',
    last_sign_in_at: iso(user.last_sign_in_at),
    confirmed_at: iso(user.confirmed_at),
    email: user.email,
    theme_id: user.theme_id,
    color_scheme_id: user.color_scheme_id,
    projects_limit: user.projects_limit,
    current_sign_in_at: iso(user.current_sign_in_at),
    identities: [],
    can_create_group: user.can_create_group === 1,
    can_create_project: user.projects_limit > 0,
    // GitLab counts a WebAuthn device (a passkey) as two-factor authentication too.
    two_factor_enabled: isTwoFactorEnabled(user),
    external: user.external === 1,
  };
}

/** `gitlabUser`'s shape, for the API description. */
const GitLabUser = Type.Object({
  id: Type.Integer(),
  username: Type.String(),
  name: Type.String(),
  state: Type.Union([Type.Literal('active'), Type.Literal('blocked')]),
  avatar_url: Type.Null({ description: 'No avatars here' }),
  web_url: Type.String(),
  created_at: NullableTime,
  is_admin: Type.Boolean(),
  bio: Type.Union([Type.String(), Type.Null()]),
  location: Type.Union([Type.String(), Type.Null()]),
  skype: Type.String(),
  linkedin: Type.String(),
  twitter: Type.String(),
  website_url: Type.String(),
  public_email: Type.String({ description: 'Empty when the user shows no address' }),
  last_sign_in_at: NullableTime,
  confirmed_at: NullableTime,
  email: Type.String(),
  theme_id: Type.Integer(),
  color_scheme_id: Type.Integer(),
  projects_limit: Type.Integer(),
  current_sign_in_at: NullableTime,
  identities: Type.Array(Type.Never(), { description: 'Always empty: no external identities' }),
  can_create_group: Type.Boolean(),
  can_create_project: Type.Boolean(),
  two_factor_enabled: Type.Boolean(),
  external: Type.Boolean(),
});

export function registerUserRoutes(app: HttpApp, codehost: Codehost): void {
  for (const prefix of API_PREFIXES) {
    app.get(`${prefix}/user`, {
      schema: {
        summary: 'The user the token belongs to',
        description: 'Requires a token with the `api` or `read_user` scope.',
        tags: ['api'],
        response: {
          200: answer(GitLabUser, 'The user, in GitLab’s full shape'),
          ...apiErrors(400, 401, 403),
        },
      },
      config: { apiScopes: ['api', 'read_user'] },
      handler: async (request) => {
        const caller = await authenticateApiRequest(request, codehost);
        return gitlabUser(caller.user, codehost.config.publicUrl);
      },
    });
  }
}
