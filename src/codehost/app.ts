import cookie from '@fastify/cookie';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { registerRateLimiting } from '../platform/http/rate-limit.js';
import type { HttpApp } from '../platform/http/server.js';
import { registerSurface } from '../platform/http/surface.js';
import type { ServiceDefinition } from '../platform/service.js';
import { accountCommands } from './accounts/commands.js';
import { createInitialAdmin } from './accounts/initial-admin.js';
import { passkeysNeedADomain, relyingPartyOf } from './accounts/passkeys.js';
import { PasswordHasher } from './accounts/passwords.js';
import { UserStore } from './accounts/users.js';
import { registerApplicationRoutes } from './api/application-routes.js';
import { internalErrorOf } from './api/described-responses.js';
import { registerGroupRoutes } from './api/group-routes.js';
import { registerMemberRoutes } from './api/member-routes.js';
import { registerNotificationRoutes } from './api/notification-routes.js';
import { codehostApiSecurity } from './api/openapi-security.js';
import { registerProjectRoutes } from './api/project-routes.js';
import { registerUserRoutes } from './api/user-routes.js';
import { type CodehostSettings, readCodehostSettings } from './config.js';
import { type Codehost, createCodehost } from './context.js';
import { registerCors } from './cors.js';
import { codehostMigrations } from './db/migrations.js';
import type { CodehostTables } from './db/tables.js';
import { renderApiError, renderMachineError, renderOAuthError, renderPageError } from './errors.js';
import { namespaceCommands } from './namespaces/commands.js';
import { registerAuthorizeRoutes } from './oauth/authorize-routes.js';
import { registerDeviceAuthorizationRoute } from './oauth/device-authorization-route.js';
import { DEVICE_CODE_GRANT_TYPE } from './oauth/grants/device-code.js';
import type { Grant } from './oauth/grants/grant.js';
import { BUILT_IN_GRANTS, grantsByType } from './oauth/grants/index.js';
import { registerMetadataRoutes } from './oauth/metadata-routes.js';
import { registerRegistrationRoutes } from './oauth/registration-routes.js';
import { registerTokenRoutes } from './oauth/token-routes.js';
import { oidcCommands } from './oidc/commands.js';
import { registerLogoutRoutes } from './oidc/logout-routes.js';
import { registerOidcRoutes } from './oidc/routes.js';
import { SigningKeyStore } from './oidc/signing-keys.js';
import { registerUserinfoRoute } from './oidc/userinfo-route.js';
import { registerActiveSessionPages } from './web/active-session-pages.js';
import { registerApplicationPages } from './web/application-pages.js';
import { registerScript } from './web/copy.js';
import { registerDevicePages } from './web/device-pages.js';
import { registerEmailPages } from './web/email-pages.js';
import { registerNamespacePages } from './web/namespace-pages.js';
import { registerNotificationPages } from './web/notification-pages.js';
import { registerPasskeyScripts } from './web/passkey-forms.js';
import { registerPasskeyPages } from './web/passkey-pages.js';
import { registerPasswordPages } from './web/password-pages.js';
import { registerProfilePages } from './web/profile-pages.js';
import { registerSignInPages } from './web/sign-in-pages.js';
import { installPageHooks } from './web/surface.js';
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
): ServiceDefinition<CodehostTables, CodehostSettings> {
  const grants = grantsByType(options.grants ?? BUILT_IN_GRANTS);
  return {
    name: 'codehost',
    defaultPort: 8080,
    readSettings: readCodehostSettings,
    title: 'codehost',
    description:
      'OAuth 2.0 authorization server and notification-settings API of a code-hosting service, wire-compatible with GitLab (`/oauth/*`, `/api/v3`, `/api/v4`). API errors use GitLab\'s `{"message": ...}` shape; OAuth errors RFC 6749\'s `{"error", "error_description"}`.',
    apiTags: [
      {
        name: 'oauth',
        description: 'OAuth 2.0 authorization server (RFC 6749, 7009, 7636, 7662, 8414)',
      },
      { name: 'api', description: 'GitLab API v3 (and the v4 alias): the current user' },
      { name: 'applications', description: "OAuth applications (GitLab's Applications API)" },
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
    errorRenderer: () => renderMachineError,
    adminCommands: [...accountCommands, ...namespaceCommands, ...oidcCommands],
    async initialize({ database, platform, config }) {
      const users = new UserStore(database.db, new PasswordHasher(platform.security.passwordHash));
      // The OpenID Connect signing key is made on first start, before any request needs it.
      await new SigningKeyStore(database.db).ensureKey();
      const party = relyingPartyOf(config.publicUrl);
      const notices = [
        await createInitialAdmin(users, platform.dataDir),
        party.byAddress ? `codehost: ${passkeysNeedADomain(party, 'operator')}` : undefined,
      ].filter((notice) => notice !== undefined);
      return notices.length > 0 ? notices.join('\n') : undefined;
    },
    async registerRoutes(app, { database, config, platform, settings }) {
      const context = createCodehost(database.db, config, platform, grants);
      registerCors(app);
      await registerRateLimiting(app, context.counters);
      registerScript(app);
      registerPasskeyScripts(app);

      // Each surface is a scoped plugin with its own error shape and hooks; a new
      // route module is a line in its surface's list.
      await registerSurface(
        app,
        // Every address no other surface claims is a page a person may be reading.
        { name: 'web', renderError: renderPageError, claims: ['/*'], ownsItsPaths: true },
        async (web) => {
          await web.register(cookie);
          installPageHooks(web, context);
          for (const register of WEB_PAGES) register(web, context);
        },
      );
      await registerSurface(
        app,
        { name: 'api', renderError: renderApiError, claims: ['/api/*'], ownsItsPaths: true },
        (api) => {
          api.addHook('onSend', plainJsonType);
          for (const register of API_ROUTES) register(api, context);
        },
      );
      await registerSurface(
        app,
        { name: 'oauth', renderError: renderOAuthError, ownsItsPaths: true },
        (oauth) => {
          // RFC 6749 section 5.1: token responses must not be cached; nor claims.
          oauth.addHook('onRequest', async (_request, reply) => {
            reply.header('cache-control', 'no-store').header('pragma', 'no-cache');
          });
          registerTokenRoutes(oauth, context);
          // RFC 8628's endpoint exists with its grant (a server may be built without it).
          if (context.grants.has(DEVICE_CODE_GRANT_TYPE)) {
            registerDeviceAuthorizationRoute(oauth, context);
          }
          registerUserinfoRoute(oauth, context);
          registerRegistrationRoutes(oauth, context);
        },
      );
      // The documents programs read to find the rest, and every other address
      // below the prefixes programs call, answer as the API does.
      await registerSurface(
        app,
        {
          name: 'discovery',
          renderError: renderMachineError,
          claims: ['/oauth/*', '/.well-known/*', '/-/*', '/openapi.json'],
          ownsItsPaths: true,
        },
        (discovery) => {
          registerMetadataRoutes(discovery, context);
          registerOidcRoutes(discovery, context);
        },
      );

      // An address the api surface claims but no API route serves (`/api/v5/x`) is
      // answered outside the surface, by the not-found handler or the project
      // pages' catch-all, in the API's shape: its type is made plain there too.
      app.addHook('onSend', async (request, reply, payload) =>
        (request.is404 || request.routeOptions.config.catchAll) &&
        app.routeTable.ownerOf(request.url) === renderApiError
          ? plainJsonType(request, reply, payload)
          : payload,
      );

      // An instance that takes no logout tokens on still records sessions' relying
      // parties; another on the same database tells them.
      if (settings.workers.has('backchannel-logout')) context.backchannelLogout.start(app.log);
      app.addHook('onClose', async () => context.backchannelLogout.close());

      const sweep = setInterval(() => {
        Promise.all([
          context.sessions.purgeExpired(),
          // A day past expiry, a device still polling hears expired_token, not invalid_grant.
          context.deviceGrants.purgeExpired(24 * 60 * 60 * 1000),
          context.counters.purge(24 * 60 * 60 * 1000),
        ]).catch((error: unknown) => app.log.warn({ err: error }, 'sweeping expired rows failed'));
      }, SWEEP_INTERVAL_MS);
      sweep.unref();
      app.addHook('onClose', async () => clearInterval(sweep));
    },
  };
}

/** The web surface's pages: a new page module is a line here. */
const WEB_PAGES: readonly ((web: HttpApp, codehost: Codehost) => void)[] = [
  registerSignInPages,
  registerProfilePages,
  registerEmailPages,
  registerPasswordPages,
  registerTwoFactorPages,
  registerPasskeyPages,
  registerActiveSessionPages,
  registerApplicationPages,
  registerTokenPages,
  registerNotificationPages,
  registerNamespacePages,
  registerAuthorizeRoutes,
  registerDevicePages,
  registerLogoutRoutes,
];

/** The API's route modules (GitLab v3 and its v4 alias). */
const API_ROUTES: readonly ((api: HttpApp, codehost: Codehost) => void)[] = [
  registerUserRoutes,
  registerApplicationRoutes,
  registerGroupRoutes,
  registerProjectRoutes,
  registerMemberRoutes,
  registerNotificationRoutes,
];

/**
 * GitLab's API says `Content-Type: application/json`, without a charset (JSON
 * is UTF-8 by definition); older clients parse a body only when it is exactly that.
 */
async function plainJsonType(_request: FastifyRequest, reply: FastifyReply, payload: unknown) {
  const type = reply.getHeader('content-type');
  if (typeof type === 'string' && type.startsWith('application/json')) {
    reply.header('content-type', 'application/json');
  }
  return payload;
}

export const codehost = codehostService();
