import type { Kysely } from 'kysely';
import type { ServiceDefinition } from '../platform/service.js';
import { registerAccessCheck } from './auth/authenticate.js';
import { authCommands } from './auth/commands.js';
import { refdataApiSecurity } from './auth/openapi-security.js';
import { registerResourceMetadataRoute } from './auth/resource-metadata.js';
import { registerKeySetRoute } from './auth/routes.js';
import { loadOrCreateSigningKey } from './auth/signing-key.js';
import { Catalogues } from './catalogues/catalogues.js';
import { registerAncestorRoutes } from './cfihos/ancestors.js';
import { registerChangeFeedRoutes } from './changes/routes.js';
import { type RefdataSettings, readRefdataSettings } from './config.js';
import { createRefdata } from './context.js';
import { refdataMigrations } from './db/migrations.js';
import type { RefdataTables } from './db/tables.js';
import { problems } from './described-responses.js';
import { LIBRARY_FAMILY } from './families/family.js';
import { FamilyRegistry } from './families/registry.js';
import { importCommands } from './imports/commands.js';
import { registerImportRoutes } from './imports/routes.js';
import { registerLifecycleRoutes } from './lifecycle/routes.js';
import { problemDetailsRenderer, registerProblemTypeRoutes } from './problems.js';
import { registerQualityRoutes } from './quality/routes.js';
import { registerDereferenceRoutes } from './rdf/routes.js';
import { registerVocabularyRoutes } from './rdf/vocabulary-routes.js';
import { registerReleaseRoutes } from './releases/routes.js';
import { registerResourceRoutes } from './resources/routes.js';
import { REFDATA_TEXT_POLICY } from './resources/text.js';
import { registerCommentRoutes } from './review/comment-routes.js';
import { registerNotificationRoutes } from './review/notification-routes.js';
import { registerReviewRoutes } from './review/routes.js';
import { searchCommands } from './search/commands.js';
import { registerSearchRoutes } from './search/routes.js';
import { registerShaclRoutes } from './shacl/routes.js';
import { sparqlCommands } from './sparql/commands.js';
import { registerSparqlRoutes } from './sparql/routes.js';
import { registerSymbolRoutes } from './symbols/routes.js';
import { pageOrProblemRenderer } from './web/errors.js';
import { registerWebSurface } from './web/plugin.js';
import { registerWebhookRoutes } from './webhooks/routes.js';
import { WebhookSecrets } from './webhooks/secrets.js';

/**
 * The refdata service authoring `families` (every family by default; tests add
 * one of their own to show a family is all it takes).
 */
export function refdataService(
  families: FamilyRegistry = new FamilyRegistry(),
): ServiceDefinition<RefdataTables, RefdataSettings> {
  return {
    name: 'refdata',
    defaultPort: 8081,
    readSettings: readRefdataSettings,
    title: 'refdata',
    description:
      'Reference-data authoring service: Draft and Submitted resources of twelve families, dereferencing in JSON and RDF, search, SPARQL 1.1 queries over the published view (`/sparql`), complete IMF SHACL, a change feed (`/changes`) and webhooks. Requests carry `Authorization: Bearer` JWT access tokens with the roles Reader, Creator or Reviewer. Errors are RFC 9457 Problem Details (`application/problem+json`) with a `traceId`.',
    apiTags: [
      { name: 'authoring', description: 'Create and update Drafts of each resource family' },
      { name: 'lifecycle', description: 'Submit, review and the history of changes' },
      { name: 'dereferencing', description: 'Resources at their IRIs, as JSON, RDF or HTML' },
      { name: 'search', description: 'The search index' },
      { name: 'sparql', description: 'SPARQL 1.1 queries over the published (or working) view' },
      { name: 'shacl', description: 'Complete IMF SHACL of block and terminal types' },
      {
        name: 'changes',
        description: 'Every version of every resource, as a Linked Data Event Stream (/changes)',
      },
      {
        name: 'webhooks',
        description: 'Subscriptions that POST each change to a URL, signed per Standard Webhooks',
      },
      {
        name: 'imports',
        description: 'Bulk imports of CSV and .xlsx files into a library, as background jobs',
      },
      { name: 'authentication', description: "refdata's own token keys" },
      { name: 'problems', description: 'Problem types used in error responses' },
    ],
    apiSecurity: (_config, settings) => refdataApiSecurity(settings),
    // Every operation answers an unforeseen failure as it answers any problem.
    internalError: () => problems(500)[500],
    migrations: refdataMigrations,
    errorRenderer: (config) => pageOrProblemRenderer(problemDetailsRenderer(config.publicUrl)),
    bodyText: REFDATA_TEXT_POLICY,
    adminCommands: [...authCommands, ...searchCommands, ...sparqlCommands, ...importCommands],
    async initialize({ settings, database, config }) {
      // The first thing a new user needs: how to call the API at all.
      const tokens = settings.tokens.jwksUrl
        ? `refdata accepts access tokens issued by ${settings.tokens.issuer}.`
        : 'refdata API token: npm run cli -- refdata-token-mint <you> --roles=Creator,Reviewer.';
      // The embedded default keeps mail in a folder: said, so nobody waits for it in vain.
      const mail = settings.review.mail.smtpUrl
        ? ''
        : ` Notification mail is written to ${settings.review.mail.folder} (set REFDATA_SMTP_URL to send it).`;
      // An instance with no library says where to start (its home page offers CFIHOS).
      const library = await (database.db as Kysely<RefdataTables>)
        .selectFrom('resources')
        .select('id')
        .where('family', '=', LIBRARY_FAMILY)
        .limit(1)
        .executeTakeFirst();
      const start = library
        ? ''
        : ` No library yet: ${config.publicUrl} offers a Creator the CFIHOS v2.0 Core library to start from.`;
      return `${tokens} A first walk through both services: docs/getting-started.md.${start}${mail}`;
    },
    async registerRoutes(app, { database, config, settings, platform }) {
      // Without an identity provider, refdata signs its own tokens and publishes the key.
      const signingKey = settings.tokens.jwksUrl
        ? undefined
        : await loadOrCreateSigningKey(settings.tokens.signingKeyFile);
      const catalogues = await Catalogues.load(settings.cataloguesDir);
      const webhookSecrets = await WebhookSecrets.load(settings.webhooks.keyFile);
      const context = createRefdata(
        database.db,
        config,
        settings,
        signingKey,
        catalogues,
        families,
        app.log,
        webhookSecrets,
        platform,
      );
      // Built at start, side by side, each waited for a little so that a small
      // database is searchable and queryable at once.
      app.addHook('onReady', async () => {
        await Promise.all([
          context.search.start(settings.search.startWaitMilliseconds),
          context.sparql.start(),
        ]);
        context.webhooks.start();
        context.imports.start();
        if (settings.workers.has('mail')) context.mailer.start();
      });
      app.addHook('onClose', async () => {
        await Promise.all([
          context.search.close(),
          context.sparql.close(),
          context.webhooks.close(),
          context.imports.close(),
          context.mailer.close(),
        ]);
      });
      await registerWebSurface(app, context, platform, settings.web);
      registerProblemTypeRoutes(app, config.publicUrl);
      if (signingKey) registerKeySetRoute(app, signingKey);
      registerResourceMetadataRoute(app, config.publicUrl, [
        ...(settings.web.oidc ? [settings.web.oidc.issuer] : []),
        ...(settings.tokens.jwksUrl ? [settings.tokens.issuer] : []),
      ]);
      // The API's one check of its callers: each route declares its `access` in its config.
      registerAccessCheck(app, context.verifier, context.anonymousRead);
      registerResourceRoutes(app, context);
      registerLifecycleRoutes(app, context);
      registerDereferenceRoutes(app, context);
      registerVocabularyRoutes(app, context);
      registerSymbolRoutes(app, context);
      registerAncestorRoutes(app, context);
      registerSearchRoutes(app, context);
      registerShaclRoutes(app, context);
      registerSparqlRoutes(app, context);
      registerChangeFeedRoutes(app, context);
      registerWebhookRoutes(app, context);
      registerImportRoutes(app, context);
      registerReleaseRoutes(app, context);
      registerQualityRoutes(app, context);
      registerReviewRoutes(app, context);
      registerCommentRoutes(app, context);
      registerNotificationRoutes(app, context);
    },
  };
}

export const refdata = refdataService();
