import { sql } from 'kysely';
import type { MigrationSet } from '../../platform/db/migrations.js';
import { isPostgres, type MigrationDb, TIMESTAMP, withIdColumn } from '../../platform/db/schema.js';
import { counterTableMigration } from '../../platform/security/counters.js';

/**
 * codehost's schema history, applied in name order at start-up. Names are
 * `NNNN_what`; a released migration is never edited, only followed by a new one.
 * Booleans are 0/1 integers and times are epoch milliseconds, so one query serves
 * SQLite and PostgreSQL alike.
 */
export const codehostMigrations: MigrationSet = {
  '0001_rate_limit_counters': counterTableMigration,
  '0002_accounts': {
    async up(db: MigrationDb) {
      await withIdColumn(db, db.schema.createTable('users'))
        .addColumn('username', 'varchar(255)', (c) => c.notNull())
        .addColumn('username_normalized', 'varchar(255)', (c) => c.notNull().unique())
        .addColumn('name', 'varchar(255)', (c) => c.notNull())
        .addColumn('email', 'varchar(255)', (c) => c.notNull())
        .addColumn('password_hash', 'text', (c) => c.notNull())
        .addColumn('is_admin', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('state', 'varchar(16)', (c) =>
          c
            .notNull()
            .defaultTo('active')
            .check(sqlIn('state', ['active', 'blocked'])),
        )
        .addColumn('bio', 'varchar(255)', (c) => c.notNull().defaultTo(''))
        .addColumn('location', 'varchar(255)', (c) => c.notNull().defaultTo(''))
        .addColumn('skype', 'varchar(255)', (c) => c.notNull().defaultTo(''))
        .addColumn('linkedin', 'varchar(255)', (c) => c.notNull().defaultTo(''))
        .addColumn('twitter', 'varchar(255)', (c) => c.notNull().defaultTo(''))
        .addColumn('website_url', 'varchar(255)', (c) => c.notNull().defaultTo(''))
        .addColumn('projects_limit', 'integer', (c) => c.notNull().defaultTo(10))
        .addColumn('can_create_group', 'integer', (c) => c.notNull().defaultTo(1))
        .addColumn('external', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('theme_id', 'integer', (c) => c.notNull().defaultTo(1))
        .addColumn('color_scheme_id', 'integer', (c) => c.notNull().defaultTo(1))
        .addColumn('otp_secret', 'varchar(64)')
        .addColumn('otp_last_step', TIMESTAMP)
        .addColumn('created_at', TIMESTAMP, (c) => c.notNull())
        .addColumn('updated_at', TIMESTAMP, (c) => c.notNull())
        .addColumn('confirmed_at', TIMESTAMP)
        .addColumn('current_sign_in_at', TIMESTAMP)
        .addColumn('last_sign_in_at', TIMESTAMP)
        .execute();

      // Every address a user owns, the primary one included, so that one unique
      // index keeps any address from belonging to two accounts.
      await withIdColumn(db, db.schema.createTable('emails'))
        .addColumn('user_id', 'integer', (c) =>
          c.notNull().references('users.id').onDelete('cascade'),
        )
        .addColumn('email', 'varchar(255)', (c) => c.notNull())
        .addColumn('email_normalized', 'varchar(255)', (c) => c.notNull().unique())
        .addColumn('created_at', TIMESTAMP, (c) => c.notNull())
        .execute();
      await db.schema.createIndex('emails_user').on('emails').column('user_id').execute();

      await withIdColumn(db, db.schema.createTable('recovery_codes'))
        .addColumn('user_id', 'integer', (c) =>
          c.notNull().references('users.id').onDelete('cascade'),
        )
        .addColumn('code_hash', 'varchar(64)', (c) => c.notNull())
        .addColumn('used_at', TIMESTAMP)
        .execute();
      await db.schema
        .createIndex('recovery_codes_user')
        .on('recovery_codes')
        .column('user_id')
        .execute();

      await db.schema
        .createTable('sessions')
        .addColumn('id_hash', 'varchar(64)', (c) => c.primaryKey())
        .addColumn('user_id', 'integer', (c) => c.references('users.id').onDelete('cascade'))
        .addColumn('data', 'text', (c) => c.notNull())
        .addColumn('expires_at', TIMESTAMP, (c) => c.notNull())
        .execute();
      await db.schema.createIndex('sessions_expiry').on('sessions').column('expires_at').execute();
      await db.schema.createIndex('sessions_user').on('sessions').column('user_id').execute();

      await withIdColumn(db, db.schema.createTable('personal_access_tokens'))
        .addColumn('user_id', 'integer', (c) =>
          c.notNull().references('users.id').onDelete('cascade'),
        )
        .addColumn('name', 'varchar(255)', (c) => c.notNull())
        .addColumn('token_hash', 'varchar(64)', (c) => c.notNull().unique())
        .addColumn('scopes', 'varchar(255)', (c) => c.notNull())
        .addColumn('expires_at', TIMESTAMP)
        .addColumn('revoked_at', TIMESTAMP)
        .addColumn('last_used_at', TIMESTAMP)
        .addColumn('created_at', TIMESTAMP, (c) => c.notNull())
        .execute();
      await db.schema
        .createIndex('personal_access_tokens_user')
        .on('personal_access_tokens')
        .column('user_id')
        .execute();
    },
  },
  '0003_oauth': {
    async up(db: MigrationDb) {
      await withIdColumn(db, db.schema.createTable('oauth_applications'))
        .addColumn('uid', 'varchar(64)', (c) => c.notNull().unique())
        .addColumn('secret_hash', 'varchar(64)', (c) => c.notNull())
        .addColumn('name', 'varchar(255)', (c) => c.notNull())
        .addColumn('redirect_uri', 'text', (c) => c.notNull())
        .addColumn('scopes', 'varchar(255)', (c) => c.notNull())
        .addColumn('confidential', 'integer', (c) => c.notNull().defaultTo(1))
        .addColumn('owner_id', 'integer', (c) =>
          c.notNull().references('users.id').onDelete('cascade'),
        )
        .addColumn('created_at', TIMESTAMP, (c) => c.notNull())
        .addColumn('updated_at', TIMESTAMP, (c) => c.notNull())
        .execute();
      await db.schema
        .createIndex('oauth_applications_owner')
        .on('oauth_applications')
        .column('owner_id')
        .execute();

      await withIdColumn(db, db.schema.createTable('oauth_access_grants'))
        .addColumn('token_hash', 'varchar(64)', (c) => c.notNull().unique())
        .addColumn('resource_owner_id', 'integer', (c) =>
          c.notNull().references('users.id').onDelete('cascade'),
        )
        .addColumn('application_id', 'integer', (c) =>
          c.notNull().references('oauth_applications.id').onDelete('cascade'),
        )
        .addColumn('redirect_uri', 'text', (c) => c.notNull())
        .addColumn('scopes', 'varchar(255)', (c) => c.notNull())
        .addColumn('code_challenge', 'varchar(128)')
        .addColumn('expires_at', TIMESTAMP, (c) => c.notNull())
        .addColumn('used_at', TIMESTAMP)
        .addColumn('created_at', TIMESTAMP, (c) => c.notNull())
        .execute();

      await withIdColumn(db, db.schema.createTable('oauth_access_tokens'))
        .addColumn('token_hash', 'varchar(64)', (c) => c.notNull().unique())
        .addColumn('refresh_token_hash', 'varchar(64)', (c) => c.unique())
        .addColumn('resource_owner_id', 'integer', (c) =>
          c.notNull().references('users.id').onDelete('cascade'),
        )
        // Null for the password grant, which the spec allows without a client.
        .addColumn('application_id', 'integer', (c) =>
          c.references('oauth_applications.id').onDelete('cascade'),
        )
        // The code a token chain started from: replaying that code, or a rotated
        // refresh token of the chain, revokes the whole chain.
        .addColumn('grant_id', 'integer', (c) =>
          c.references('oauth_access_grants.id').onDelete('cascade'),
        )
        .addColumn('scopes', 'varchar(255)', (c) => c.notNull())
        .addColumn('expires_at', TIMESTAMP, (c) => c.notNull())
        .addColumn('revoked_at', TIMESTAMP)
        .addColumn('created_at', TIMESTAMP, (c) => c.notNull())
        .execute();
      await db.schema
        .createIndex('oauth_access_tokens_owner_app')
        .on('oauth_access_tokens')
        .columns(['resource_owner_id', 'application_id'])
        .execute();
      await db.schema
        .createIndex('oauth_access_tokens_grant')
        .on('oauth_access_tokens')
        .column('grant_id')
        .execute();
      // Neither database indexes foreign keys by itself; deletes cascade through these.
      await db.schema
        .createIndex('oauth_access_grants_app')
        .on('oauth_access_grants')
        .column('application_id')
        .execute();
      await db.schema
        .createIndex('oauth_access_tokens_app')
        .on('oauth_access_tokens')
        .column('application_id')
        .execute();
    },
  },
  '0004_namespaces_projects_notifications': {
    async up(db: MigrationDb) {
      // GitLab's model: a namespace is a user's own or a group; paths of both share
      // one unique index, so no group can take a username or the other way round.
      await withIdColumn(db, db.schema.createTable('namespaces'))
        .addColumn('kind', 'varchar(8)', (c) => c.notNull().check(sqlIn('kind', ['user', 'group'])))
        .addColumn('name', 'varchar(255)', (c) => c.notNull())
        .addColumn('path', 'varchar(255)', (c) => c.notNull())
        .addColumn('full_path', 'varchar(1024)', (c) => c.notNull())
        .addColumn('full_path_normalized', 'varchar(1024)', (c) => c.notNull().unique())
        // Names and paths of the ancestors joined; groups never move, so it holds.
        .addColumn('full_name', 'varchar(5200)', (c) => c.notNull())
        .addColumn('description', 'text', (c) => c.notNull().defaultTo(''))
        .addColumn('visibility_level', 'integer', (c) =>
          c.notNull().defaultTo(20).check(sql.raw('visibility_level in (0, 10, 20)')),
        )
        .addColumn('parent_id', 'integer', (c) => c.references('namespaces.id').onDelete('cascade'))
        .addColumn('owner_id', 'integer', (c) =>
          c.unique().references('users.id').onDelete('cascade'),
        )
        .addColumn('created_at', TIMESTAMP, (c) => c.notNull())
        .addColumn('updated_at', TIMESTAMP, (c) => c.notNull())
        .execute();
      await db.schema
        .createIndex('namespaces_parent')
        .on('namespaces')
        .column('parent_id')
        .execute();
      await sql`insert into namespaces (kind, name, path, full_path, full_path_normalized,
          full_name, description, visibility_level, owner_id, created_at, updated_at)
        select 'user', username, username, username, username_normalized, name, '', 20, id,
          created_at, updated_at from users`.execute(db);

      await withIdColumn(db, db.schema.createTable('projects'))
        .addColumn('namespace_id', 'integer', (c) =>
          c.notNull().references('namespaces.id').onDelete('cascade'),
        )
        .addColumn('name', 'varchar(255)', (c) => c.notNull())
        .addColumn('path', 'varchar(255)', (c) => c.notNull())
        .addColumn('full_path', 'varchar(1280)', (c) => c.notNull())
        .addColumn('full_path_normalized', 'varchar(1280)', (c) => c.notNull().unique())
        .addColumn('description', 'text', (c) => c.notNull().defaultTo(''))
        .addColumn('visibility_level', 'integer', (c) =>
          c.notNull().defaultTo(0).check(sql.raw('visibility_level in (0, 10, 20)')),
        )
        .addColumn('creator_id', 'integer', (c) => c.references('users.id').onDelete('set null'))
        .addColumn('created_at', TIMESTAMP, (c) => c.notNull())
        .addColumn('updated_at', TIMESTAMP, (c) => c.notNull())
        .execute();
      await db.schema
        .createIndex('projects_namespace')
        .on('projects')
        .column('namespace_id')
        .execute();
      await db.schema.createIndex('projects_creator').on('projects').column('creator_id').execute();

      // Polymorphic like GitLab's: source_type says which table source_id is in.
      await withIdColumn(db, db.schema.createTable('members'))
        .addColumn('user_id', 'integer', (c) =>
          c.notNull().references('users.id').onDelete('cascade'),
        )
        .addColumn('source_type', 'varchar(8)', (c) =>
          c.notNull().check(sqlIn('source_type', ['group', 'project'])),
        )
        .addColumn('source_id', 'integer', (c) => c.notNull())
        .addColumn('access_level', 'integer', (c) =>
          c.notNull().check(sql.raw('access_level in (10, 20, 30, 40, 50)')),
        )
        .addColumn('created_at', TIMESTAMP, (c) => c.notNull())
        .addColumn('updated_at', TIMESTAMP, (c) => c.notNull())
        .addUniqueConstraint('members_user_source', ['user_id', 'source_type', 'source_id'])
        .execute();
      await db.schema
        .createIndex('members_source')
        .on('members')
        .columns(['source_type', 'source_id'])
        .execute();

      // One row per user and source; the global row has source ('global', 0) rather
      // than NULLs, so that the unique constraint covers it too (NULLs never clash)
      // and two concurrent first writes end in one row.
      await withIdColumn(db, db.schema.createTable('notification_settings'))
        .addColumn('user_id', 'integer', (c) =>
          c.notNull().references('users.id').onDelete('cascade'),
        )
        .addColumn('source_type', 'varchar(8)', (c) =>
          c.notNull().check(sqlIn('source_type', ['global', 'group', 'project'])),
        )
        .addColumn('source_id', 'integer', (c) => c.notNull())
        .addColumn('level', 'integer', (c) => c.notNull().check(sql.raw('level between 0 and 5')))
        .$call((table) =>
          NOTIFICATION_EVENT_COLUMNS.reduce(
            (builder, event) =>
              builder.addColumn(event, 'integer', (c) => c.notNull().defaultTo(0)),
            table,
          ),
        )
        .addColumn('created_at', TIMESTAMP, (c) => c.notNull())
        .addColumn('updated_at', TIMESTAMP, (c) => c.notNull())
        .addUniqueConstraint('notification_settings_user_source', [
          'user_id',
          'source_type',
          'source_id',
        ])
        .execute();
      await db.schema
        .createIndex('notification_settings_source')
        .on('notification_settings')
        .columns(['source_type', 'source_id'])
        .execute();

      // GitLab keeps the notification address on the user; NULL means the primary e-mail.
      await db.schema.alterTable('users').addColumn('notification_email', 'varchar(255)').execute();
    },
  },
  '0005_refresh_rotation_time': {
    async up(db: MigrationDb) {
      // When a refresh token was spent by rotation (not revoked otherwise): a retry
      // within the grace window is a lost response, not theft.
      await db.schema
        .alterTable('oauth_access_tokens')
        .addColumn('rotated_at', TIMESTAMP)
        .execute();
    },
  },
  '0006_openid_connect': {
    async up(db: MigrationDb) {
      // The OpenID Connect provider's signing keys, shared by every instance. The
      // generation orders rotations and is unique, so two instances starting (or
      // rotating) at once make one key, not two.
      await withIdColumn(db, db.schema.createTable('oidc_signing_keys'))
        .addColumn('kid', 'varchar(64)', (c) => c.notNull().unique())
        .addColumn('alg', 'varchar(8)', (c) => c.notNull())
        .addColumn('generation', 'integer', (c) => c.notNull().unique())
        .addColumn('public_jwk', 'text', (c) => c.notNull())
        .addColumn('private_jwk', 'text', (c) => c.notNull())
        .addColumn('signs_from', TIMESTAMP, (c) => c.notNull())
        .addColumn('created_at', TIMESTAMP, (c) => c.notNull())
        .execute();
      // What an OpenID Connect authorization request brings to its ID token: the
      // relying party's nonce and when the user signed in.
      await db.schema
        .alterTable('oauth_access_grants')
        .addColumn('nonce', 'varchar(512)')
        .execute();
      await db.schema.alterTable('oauth_access_grants').addColumn('auth_time', TIMESTAMP).execute();
      // Where RP-initiated logout may send the browser back to, one per line.
      await db.schema
        .alterTable('oauth_applications')
        .addColumn('post_logout_redirect_uris', 'text', (c) => c.notNull().defaultTo(''))
        .execute();
    },
  },
  '0007_password_change_required': {
    async up(db: MigrationDb) {
      // Set for passwords someone else chose (the first root password, an admin's
      // reset): the owner is asked for one of their own at the next sign-in.
      await db.schema
        .alterTable('users')
        .addColumn('password_change_required', 'integer', (c) => c.notNull().defaultTo(0))
        .execute();
    },
  },
  '0008_profile_and_active_sessions': {
    async up(db: MigrationDb) {
      // The address a user chooses to show on their profile (one of their own);
      // NULL shows none, as on GitLab.
      await db.schema.alterTable('users').addColumn('public_email', 'varchar(255)').execute();
      // What a user needs to recognise a session on the active-sessions page. Rows
      // made before this migration show "unknown" and the time of this change.
      for (const column of ['user_agent', 'ip_address'] as const) {
        await db.schema
          .alterTable('sessions')
          .addColumn(column, 'varchar(512)', (c) => c.notNull().defaultTo(''))
          .execute();
      }
      for (const column of ['created_at', 'last_used_at'] as const) {
        await db.schema
          .alterTable('sessions')
          .addColumn(column, TIMESTAMP, (c) => c.notNull().defaultTo(0))
          .execute();
      }
    },
  },
  '0009_refresh_retry': {
    async up(db: MigrationDb) {
      // A rotated refresh token may be retried once within the grace window; this
      // says it was, so a second reuse is known for what it is.
      await db.schema
        .alterTable('oauth_access_tokens')
        .addColumn('retried_at', TIMESTAMP)
        .execute();
    },
  },
  '0010_device_authorization_grant': {
    async up(db: MigrationDb) {
      // RFC 8628 is offered per application, off until its owner turns it on.
      await db.schema
        .alterTable('oauth_applications')
        .addColumn('device_authorization_grant', 'integer', (c) => c.notNull().defaultTo(0))
        .execute();
      // A device's request from the moment it asks until its token is issued. Both
      // codes are kept only as hashes; the user is known once someone approves.
      await withIdColumn(db, db.schema.createTable('oauth_device_grants'))
        .addColumn('device_code_hash', 'varchar(64)', (c) => c.notNull().unique())
        .addColumn('user_code_hash', 'varchar(64)', (c) => c.notNull().unique())
        .addColumn('application_id', 'integer', (c) =>
          c.notNull().references('oauth_applications.id').onDelete('cascade'),
        )
        .addColumn('scopes', 'varchar(255)', (c) => c.notNull())
        .addColumn('resource_owner_id', 'integer', (c) =>
          c.references('users.id').onDelete('cascade'),
        )
        .addColumn('auth_time', TIMESTAMP)
        .addColumn('approved_at', TIMESTAMP)
        .addColumn('denied_at', TIMESTAMP)
        .addColumn('used_at', TIMESTAMP)
        // RFC 8628 section 3.5: slow_down adds five seconds for every later poll.
        .addColumn('interval_seconds', 'integer', (c) => c.notNull())
        .addColumn('last_polled_at', TIMESTAMP)
        .addColumn('expires_at', TIMESTAMP, (c) => c.notNull())
        .addColumn('created_at', TIMESTAMP, (c) => c.notNull())
        .execute();
      await db.schema
        .createIndex('oauth_device_grants_app')
        .on('oauth_device_grants')
        .column('application_id')
        .execute();
      await db.schema
        .createIndex('oauth_device_grants_expiry')
        .on('oauth_device_grants')
        .column('expires_at')
        .execute();
    },
  },
  '0011_passkeys': {
    async up(db: MigrationDb) {
      // A user's passkeys (WebAuthn credentials): the public key and the signature
      // counter, never anything secret; the credential ID finds one at sign-in.
      await withIdColumn(db, db.schema.createTable('passkeys'))
        .addColumn('user_id', 'integer', (c) =>
          c.notNull().references('users.id').onDelete('cascade'),
        )
        .addColumn('name', 'varchar(255)', (c) => c.notNull())
        .addColumn('credential_id', 'varchar(1400)', (c) => c.notNull().unique())
        .addColumn('public_key', 'text', (c) => c.notNull())
        .addColumn('counter', 'bigint', (c) => c.notNull())
        .addColumn('transports', 'varchar(255)', (c) => c.notNull().defaultTo(''))
        .addColumn('backed_up', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('created_at', TIMESTAMP, (c) => c.notNull())
        .addColumn('last_used_at', TIMESTAMP)
        .execute();
      await db.schema.createIndex('passkeys_user').on('passkeys').column('user_id').execute();
      // Kept with the user so the two-factor rule reads no other table: a passkey
      // is a second factor, as a TOTP secret is.
      await db.schema
        .alterTable('users')
        .addColumn('passkey_count', 'integer', (c) => c.notNull().defaultTo(0))
        .execute();
      // How the user signed in (RFC 8176 amr values, space-separated), carried from
      // the session to the ID tokens an authorization gives.
      for (const table of ['oauth_access_grants', 'oauth_device_grants'] as const) {
        await db.schema.alterTable(table).addColumn('amr', 'varchar(64)').execute();
      }
    },
  },
  '0012_backchannel_logout': {
    async up(db: MigrationDb) {
      // OpenID Connect Back-Channel Logout 1.0: where a relying party hears that a
      // session ended, and whether it needs the session's `sid` to act on it.
      await db.schema
        .alterTable('oauth_applications')
        .addColumn('backchannel_logout_uri', 'text', (c) => c.notNull().defaultTo(''))
        .execute();
      await db.schema
        .alterTable('oauth_applications')
        .addColumn('backchannel_logout_session_required', 'integer', (c) =>
          c.notNull().defaultTo(0),
        )
        .execute();
      // The session an authorization was approved in, for the ID tokens' `sid`.
      for (const table of ['oauth_access_grants', 'oauth_device_grants'] as const) {
        await db.schema.alterTable(table).addColumn('sid', 'varchar(64)').execute();
      }
      // Each signed-in browser session's OpenID Connect session ID. A row whose
      // browser session is gone (signed out, ended, expired, or removed by any
      // path, a command's included) is how its ending is noticed.
      await db.schema
        .createTable('oidc_sessions')
        .addColumn('sid', 'varchar(64)', (c) => c.primaryKey())
        .addColumn('user_id', 'integer', (c) =>
          c.notNull().references('users.id').onDelete('cascade'),
        )
        .addColumn('session_id_hash', 'varchar(64)', (c) => c.notNull())
        .addColumn('created_at', TIMESTAMP, (c) => c.notNull())
        .addColumn('ended_at', TIMESTAMP)
        .execute();
      await db.schema
        .createIndex('oidc_sessions_live')
        .on('oidc_sessions')
        .columns(['ended_at', 'session_id_hash'])
        .execute();
      // The relying parties that received an ID token naming a session.
      await db.schema
        .createTable('oidc_session_clients')
        .addColumn('sid', 'varchar(64)', (c) =>
          c.notNull().references('oidc_sessions.sid').onDelete('cascade'),
        )
        .addColumn('application_id', 'integer', (c) =>
          c.notNull().references('oauth_applications.id').onDelete('cascade'),
        )
        .addColumn('created_at', TIMESTAMP, (c) => c.notNull())
        .addPrimaryKeyConstraint('oidc_session_clients_pk', ['sid', 'application_id'])
        .execute();
      await db.schema
        .createIndex('oidc_session_clients_app')
        .on('oidc_session_clients')
        .column('application_id')
        .execute();
      // Logout tokens to send, each retried until its relying party takes it.
      await withIdColumn(db, db.schema.createTable('backchannel_logout_deliveries'))
        .addColumn('application_id', 'integer', (c) =>
          c.notNull().references('oauth_applications.id').onDelete('cascade'),
        )
        .addColumn('user_id', 'integer', (c) => c.notNull())
        .addColumn('sid', 'varchar(64)', (c) => c.notNull())
        .addColumn('jti', 'varchar(64)', (c) => c.notNull().unique())
        .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('next_attempt_at', TIMESTAMP, (c) => c.notNull())
        .addColumn('delivered_at', TIMESTAMP)
        .addColumn('failed_at', TIMESTAMP)
        .addColumn('last_error', 'varchar(500)')
        .addColumn('created_at', TIMESTAMP, (c) => c.notNull())
        .execute();
      await db.schema
        .createIndex('backchannel_logout_deliveries_due')
        .on('backchannel_logout_deliveries')
        .columns(['delivered_at', 'failed_at', 'next_attempt_at'])
        .execute();
    },
  },
  '0013_operator_clients_and_recovery': {
    async up(db: MigrationDb) {
      // A relying party set up by the operator (refdata beside codehost) may hear
      // of sign-outs on any network; one a user registers, only on public ones.
      await db.schema
        .alterTable('oauth_applications')
        .addColumn('configured_by_operator', 'integer', (c) => c.notNull().defaultTo(0))
        .execute();
      // When an administrator last turned off the user's second factors: every page
      // of the user's sessions says so until they set one up again or dismiss it.
      await db.schema
        .alterTable('users')
        .addColumn('second_factors_removed_at', TIMESTAMP)
        .execute();
    },
  },
  '0014_backchannel_logout_leases': {
    async up(db: MigrationDb) {
      // Logout tokens run on the kernel's leased queue: a claim is held in a column
      // of its own (it moved `next_attempt_at` before), and each relying party's
      // deliveries are taken in order, one at a time.
      await db.schema
        .alterTable('backchannel_logout_deliveries')
        .addColumn('lease_until', TIMESTAMP, (c) => c.notNull().defaultTo(0))
        .execute();
      await db.schema
        .createIndex('backchannel_logout_deliveries_by_application')
        .on('backchannel_logout_deliveries')
        .columns(['application_id', 'id'])
        .execute();
    },
  },
  '0015_resource_indicators_and_registration': {
    async up(db: MigrationDb) {
      // Clients that register themselves (RFC 7591) or are known by the address of
      // their metadata (Client ID Metadata Documents) belong to no user, as
      // GitLab's instance-wide and dynamic applications do; and such a client ID
      // is a URL, longer than the 64 characters of a generated one.
      if (isPostgres(db)) {
        await sql`alter table oauth_applications alter column owner_id drop not null`.execute(db);
        await sql`alter table oauth_applications alter column uid type varchar(2048)`.execute(db);
      } else {
        // SQLite changes a column's constraints by rebuilding the table, from its own
        // definition so that every column added since is kept in its place (foreign
        // keys are off during migrations, so the children keep their rows).
        const { rows } = await sql<{ sql: string }>`
          select sql from sqlite_master where type = 'table' and name = 'oauth_applications'`.execute(
          db,
        );
        const definition = rows[0]?.sql ?? '';
        const rebuilt = definition
          .replace(/"oauth_applications"/, '"oauth_applications_next"')
          .replace(/"uid" varchar\(64\)/, '"uid" varchar(2048)')
          .replace(/"owner_id" integer not null/, '"owner_id" integer');
        if (rebuilt === definition || !rebuilt.includes('"owner_id" integer references')) {
          throw new Error(`oauth_applications is not as migration 0015 expects: ${definition}`);
        }
        await sql.raw(rebuilt).execute(db);
        await sql`insert into oauth_applications_next select * from oauth_applications`.execute(db);
        await db.schema.dropTable('oauth_applications').execute();
        await db.schema
          .alterTable('oauth_applications_next')
          .renameTo('oauth_applications')
          .execute();
        await db.schema
          .createIndex('oauth_applications_owner')
          .on('oauth_applications')
          .column('owner_id')
          .execute();
      }
      // How the client came to be: 'owner' (a user or the operator), 'dynamic'
      // (RFC 7591) or 'metadata-document' (its client ID is its metadata's URL).
      await db.schema
        .alterTable('oauth_applications')
        .addColumn('registration', 'varchar(32)', (c) => c.notNull().defaultTo('owner'))
        .execute();
      // RFC 7592: the registration access token that reads or deletes a registration.
      await db.schema
        .alterTable('oauth_applications')
        .addColumn('registration_token_hash', 'varchar(64)')
        .execute();
      // The client's home page, shown on the consent page (RFC 7591 client_uri).
      await db.schema
        .alterTable('oauth_applications')
        .addColumn('client_uri', 'text', (c) => c.notNull().defaultTo(''))
        .execute();
      // When a metadata document was last read (its cached copy's age).
      await db.schema
        .alterTable('oauth_applications')
        .addColumn('metadata_fetched_at', TIMESTAMP)
        .execute();
      await db.schema
        .createIndex('oauth_applications_registration')
        .on('oauth_applications')
        .columns(['registration', 'created_at'])
        .execute();
      // RFC 8707: the resource server a grant, a device's request and a token are
      // for; NULL for GitLab's own API (an opaque token, as before).
      for (const table of [
        'oauth_access_grants',
        'oauth_device_grants',
        'oauth_access_tokens',
      ] as const) {
        await db.schema.alterTable(table).addColumn('resource', 'varchar(2048)').execute();
      }
      // The APIs codehost issues access tokens for (JWTs naming them as audience).
      await withIdColumn(db, db.schema.createTable('oauth_resource_servers'))
        .addColumn('identifier', 'varchar(2048)', (c) => c.notNull().unique())
        .addColumn('name', 'varchar(255)', (c) => c.notNull())
        .addColumn('created_at', TIMESTAMP, (c) => c.notNull())
        .addColumn('updated_at', TIMESTAMP, (c) => c.notNull())
        .execute();
    },
  },
};

/**
 * The ten e-mail events of GitLab 8.12, as they were when migration 0004 was
 * written (migrations never follow later changes of the domain's list).
 */
const NOTIFICATION_EVENT_COLUMNS = [
  'new_note',
  'new_issue',
  'reopen_issue',
  'close_issue',
  'reassign_issue',
  'new_merge_request',
  'reopen_merge_request',
  'close_merge_request',
  'reassign_merge_request',
  'merge_merge_request',
] as const;

/** A check that a column holds one of fixed values (literals from this file only). */
function sqlIn(column: string, values: readonly string[]) {
  return sql.raw(`${column} in (${values.map((value) => `'${value}'`).join(', ')})`);
}
