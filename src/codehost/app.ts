import cookie from '@fastify/cookie';
import { registerRateLimiting } from '../platform/http/rate-limit.js';
import type { ServiceDefinition } from '../platform/service.js';
import { accountCommands } from './accounts/commands.js';
import { createInitialAdmin } from './accounts/initial-admin.js';
import { PasswordHasher } from './accounts/passwords.js';
import { UserStore } from './accounts/users.js';
import { internalErrorOf } from './api/described-responses.js';
import { registerGroupRoutes } from './api/group-routes.js';
import { registerMemberRoutes } from './api/member-routes.js';
import { registerNotificationRoutes } from './api/notification-routes.js';
import { codehostApiSecurity } from './api/openapi-security.js';
import { registerProjectRoutes } from './api/project-routes.js';
import { registerUserRoutes } from './api/user-routes.js';
import { createCodehost } from './context.js';
import { registerCors } from './cors.js';
import { codehostMigrations } from './db/migrations.js';
import type { CodehostTables } from './db/tables.js';
import { renderCodehostError } from './errors.js';
import { namespaceCommands } from './namespaces/commands.js';
import { registerAuthorizeRoutes } from './oauth/authorize-routes.js';
import type { Grant } from './oauth/grants/grant.js';
import { BUILT_IN_GRANTS, grantsByType } from './oauth/grants/index.js';
import { registerMetadataRoutes } from './oauth/metadata-routes.js';
import { registerTokenRoutes } from './oauth/token-routes.js';
import { oidcCommands } from './oidc/commands.js';
import { registerLogoutRoutes } from './oidc/logout-routes.js';
import { registerOidcRoutes } from './oidc/routes.js';
import { SigningKeyStore } from './oidc/signing-keys.js';
import { registerActiveSessionPages } from './web/active-session-pages.js';
import { registerApplicationPages } from './web/application-pages.js';
import { registerScript } from './web/copy.js';
import { registerEmailPages } from './web/email-pages.js';
import { registerNamespacePages } from './web/namespace-pages.js';
import { registerNotificationPages } from './web/notification-pages.js';
import { registerPasswordPages } from './web/password-pages.js';
import { registerProfilePages } from './web/profile-pages.js';
import { registerSignInPages } from './web/sign-in-pages.js';
import { registerTokenPages } from './web/token-pages.js';
import { registerTwoFactorPages } from './web/two-factor-pages.js';

/** Expired sessions and ended rate-limit windows are swept this often. */
const SWEEP_INTERVAL_MS = 10 * 60 * 1000;

/**
 * The codehost service; `grants` are the token endpoint's (the built-in three
 * unless a caller, such as a test of a new grant, gives others).
 */
export function codehostService(
  options: { grants?: readonly Grant[] } = {},
): ServiceDefinition<CodehostTables> {
  const grants = grantsByType(options.grants ?? BUILT_IN_GRANTS);
  return {
    name: 'codehost',
    title: 'codehost',
    description:
      'OAuth 2.0 authorization server and notification-settings API of a code-hosting service, wire-compatible with GitLab (`/oauth/*`, `/api/v3`, `/api/v4`). API errors use GitLab\'s `{"message": ...}` shape; OAuth errors RFC 6749\'s `{"error", "error_description"}`.',
    apiTags: [
      {
        name: 'oauth',
        description: 'OAuth 2.0 authorization server (RFC 6749, 7009, 7636, 7662, 8414)',
      },
      { name: 'api', description: 'GitLab API v3 (and the v4 alias): the current user' },
      { name: 'groups', description: 'Groups and their members' },
      { name: 'projects', description: 'Projects and their members' },
      {
        name: 'notification settings',
        description: 'Global, group and project notification levels (GitLab 8.12)',
      },
    ],
    migrations: codehostMigrations,
    apiSecurity: (config) => codehostApiSecurity(config.publicUrl),
    internalError: internalErrorOf,
    errorRenderer: () => renderCodehostError,
    adminCommands: [...accountCommands, ...namespaceCommands, ...oidcCommands],
    async initialize({ database, platform }) {
      const users = new UserStore(database.db, new PasswordHasher(platform.security.passwordHash));
      // The OpenID Connect signing key is made on first start, before any request needs it.
      await new SigningKeyStore(database.db).ensureKey();
      return createInitialAdmin(users, platform.dataDir);
    },
    async registerRoutes(app, { database, config, platform }) {
      const context = createCodehost(database.db, config, platform, grants);
      await app.register(cookie);
      registerCors(app);
      app.decorateRequest('session', undefined);
      await registerRateLimiting(app, context.counters);

      registerSignInPages(app, context);
      registerScript(app);
      registerProfilePages(app, context);
      registerEmailPages(app, context);
      registerPasswordPages(app, context);
      registerTwoFactorPages(app, context);
      registerActiveSessionPages(app, context);
      registerApplicationPages(app, context);
      registerTokenPages(app, context);
      registerNotificationPages(app, context);
      registerNamespacePages(app, context);
      registerAuthorizeRoutes(app, context);
      registerTokenRoutes(app, context);
      registerMetadataRoutes(app, context);
      registerOidcRoutes(app, context);
      registerLogoutRoutes(app, context);
      registerUserRoutes(app, context);
      registerGroupRoutes(app, context);
      registerProjectRoutes(app, context);
      registerMemberRoutes(app, context);
      registerNotificationRoutes(app, context);
      app.addHook('onSend', async (request, reply, payload) => {
        // GitLab's API says `Content-Type: application/json`, without a charset (JSON
        // is UTF-8 by definition); older clients parse a body only when it is exactly that.
        const type = reply.getHeader('content-type');
        if (
          request.url.startsWith('/api/') &&
          typeof type === 'string' &&
          type.startsWith('application/json')
        ) {
          reply.header('content-type', 'application/json');
        }
        return payload;
      });

      const sweep = setInterval(() => {
        Promise.all([
          context.sessions.purgeExpired(),
          context.counters.purge(24 * 60 * 60 * 1000),
        ]).catch((error: unknown) => app.log.warn({ err: error }, 'sweeping expired rows failed'));
      }, SWEEP_INTERVAL_MS);
      sweep.unref();
      app.addHook('onClose', async () => clearInterval(sweep));
    },
  };
}

export const codehost = codehostService();
