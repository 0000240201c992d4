/**
 * codehost's fewest-statement anchors: for each benchmarked route, the fewest
 * statements that could answer it, written by hand, served by
 * `pg-anchor-server.ts` beside the route's own statements (`pg-anchors.ts`).
 */
import { createHash } from 'node:crypto';
import { NOTIFICATION_LEVELS } from '../src/codehost/notifications/settings.js';
import type { AnchorStatement, ValueSource } from './pg-anchor-server.js';

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

/** What every fewest-statement read checks: the token is live and its user active. */
const LIVE_TOKEN = `t.token_hash = $1 and t.revoked_at is null and t.expires_at > $2 and u.state = 'active'`;

const CAN_READ_PROJECT = `(u.is_admin = 1 or p.visibility_level >= 10 or exists (
  select 1 from members m left join namespaces g on m.source_type = 'group' and g.id = m.source_id
  where m.user_id = u.id and ((m.source_type = 'project' and m.source_id = p.id)
    or g.full_path_normalized = n.full_path_normalized
    or n.full_path_normalized like g.full_path_normalized || '/%')))`;

/** The benchmark's routes, by short names. */
export type FewestKey = 'user' | 'get-settings' | 'put-settings' | 'refresh' | 'password';

/** The fewest statements for each route, by the route's name in the benchmark. */
export function fewestStatements(input: {
  projectId: number;
  clientId: string;
  clientSecret: string;
  username: string;
}): Record<FewestKey, { statements: AnchorStatement[]; verifyPasswordAfter?: number }> {
  const now: ValueSource = { now: 0 };
  const project: ValueSource = { constant: String(input.projectId) };
  const custom = String(NOTIFICATION_LEVELS.indexOf('custom'));
  return {
    user: {
      statements: [
        {
          sql: `select u.* from oauth_access_tokens t join users u on u.id = t.resource_owner_id where ${LIVE_TOKEN}`,
          values: [{ secretHash: true }, now],
        },
      ],
    },
    'get-settings': {
      statements: [
        {
          sql: `select u.id as caller, s.* from oauth_access_tokens t
            join users u on u.id = t.resource_owner_id
            join projects p on p.id = $3 join namespaces n on n.id = p.namespace_id
            left join notification_settings s on s.user_id = u.id and s.source_type = 'project' and s.source_id = p.id
            where ${LIVE_TOKEN} and ${CAN_READ_PROJECT}`,
          values: [{ secretHash: true }, now, project],
        },
      ],
    },
    'put-settings': {
      statements: [
        {
          sql: `with caller as (select u.id as user_id, p.id as project_id from oauth_access_tokens t
              join users u on u.id = t.resource_owner_id
              join projects p on p.id = $3 join namespaces n on n.id = p.namespace_id
              where ${LIVE_TOKEN} and ${CAN_READ_PROJECT})
            insert into notification_settings (user_id, source_type, source_id, level, new_note, merge_merge_request, created_at, updated_at)
            select user_id, 'project', project_id, $4, 1, 0, $2, $2 from caller
            on conflict (user_id, source_type, source_id) do update set level = excluded.level,
              new_note = excluded.new_note, merge_merge_request = excluded.merge_merge_request, updated_at = excluded.updated_at
            returning *`,
          values: [{ secretHash: true }, now, project, { constant: custom }],
        },
      ],
    },
    refresh: {
      statements: [
        {
          sql: `with client as (select id from oauth_applications where uid = $2 and secret_hash = $3),
            previous as (update oauth_access_tokens t set revoked_at = $4, rotated_at = $4 from client c
              where t.refresh_token_hash = $1 and t.application_id = c.id and t.revoked_at is null returning t.*)
            insert into oauth_access_tokens (token_hash, refresh_token_hash, resource_owner_id, application_id, grant_id, scopes, expires_at, created_at)
            select $5, $6, previous.resource_owner_id, previous.application_id, previous.grant_id, previous.scopes, $4::bigint + 7200000, $4
            from previous join users u on u.id = previous.resource_owner_id and u.state = 'active'
            returning *`,
          values: [
            { secretHash: true },
            { constant: input.clientId },
            { constant: sha256(input.clientSecret) },
            now,
            { freshHash: true },
            { freshHash: true },
          ],
        },
      ],
    },
    password: {
      statements: [
        {
          sql: `select * from users where username_normalized = $1 and state = 'active'`,
          values: [{ constant: input.username.toLowerCase() }],
        },
        {
          sql: `insert into oauth_access_tokens (token_hash, resource_owner_id, scopes, expires_at, created_at)
            values ($1, $2, 'api', $3::bigint + 7200000, $3) returning *`,
          values: [{ freshHash: true }, { from: [0, 'id'], fallback: null }, now],
        },
      ],
      verifyPasswordAfter: 1,
    },
  };
}
