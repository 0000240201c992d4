import cookie from '@fastify/cookie';
import type { Config } from '../../platform/config.js';
import type { HttpApp } from '../../platform/http/server.js';
import { registerSurface } from '../../platform/http/surface.js';
import { registerPageScript } from '../../platform/web/copy.js';
import { errorContent } from '../../platform/web/layout.js';
import type { RefdataSettings } from '../config.js';
import type { Refdata } from '../context.js';
import { registerDraftPages } from './authoring/draft-pages.js';
import { registerMyDraftsPage } from './authoring/my-drafts-page.js';
import { registerPickRoute } from './authoring/pick-route.js';
import { registerReviewPages } from './authoring/review-pages.js';
import { AUTHORING_SCRIPT, AUTHORING_SCRIPT_PATH } from './authoring/script.js';
import { registerSubmitPages } from './authoring/submit-pages.js';
import { registerBackchannelLogout } from './backchannel-logout.js';
import { registerChangeFeedPage } from './change-feed-page.js';
import { registerFirstRun } from './first-run.js';
import { registerHierarchyRoutes } from './hierarchy/routes.js';
import { registerHomePage } from './home-page.js';
import { registerImportPages } from './import-pages.js';
import { registerOidcSignIn } from './oidc-sign-in.js';
import { Pages, SCRIPT_PATH } from './pages.js';
import { registerQualityPages } from './quality-pages.js';
import { registerQueryPage } from './query-page.js';
import { registerReleasePages } from './release-pages.js';
import { registerResourcePages } from './resource-pages.js';
import { registerDiscussionPages } from './review/discussion.js';
import { registerInboxPages } from './review/inbox-pages.js';
import { registerLibrarySubmission } from './review/library-submission.js';
import { registerPackagePages } from './review/package-pages.js';
import { registerSearchPage } from './search-page.js';
import { refdataSessions } from './session.js';
import { registerSignInPages } from './sign-in-pages.js';
import { surfaceStrategy } from './surface.js';
import { registerSymbolGallery } from './symbol-gallery.js';
import { registerTokenPages } from './token-pages.js';
import { registerWebhookPages } from './webhook-pages.js';

/** Every page of the web surface: a new page is a new module and a line here. */
const PAGE_MODULES: readonly ((web: HttpApp, pages: Pages) => void)[] = [
  registerHomePage,
  registerSignInPages,
  registerResourcePages,
  registerSearchPage,
  registerQueryPage,
  registerSymbolGallery,
  registerDraftPages,
  registerSubmitPages,
  registerReviewPages,
  registerMyDraftsPage,
  registerPickRoute,
  registerWebhookPages,
  registerImportPages,
  registerReleasePages,
  registerChangeFeedPage,
  registerFirstRun,
  registerLibrarySubmission,
  registerQualityPages,
  registerPackagePages,
  registerDiscussionPages,
  registerInboxPages,
  registerTokenPages,
  registerHierarchyRoutes,
];

/** Expired sessions are swept this often. */
const SWEEP_INTERVAL_MS = 10 * 60 * 1000;

/**
 * refdata's web pages, registered as a scoped plugin of their own: their
 * routes share sessions and answer failures as pages in the site's frame, while
 * the API beside them keeps bearer tokens and Problem Details. Where both serve
 * one address (a resource's IRI), the `surface` constraint picks by Accept.
 */
export async function registerWebSurface(
  app: HttpApp,
  refdata: Refdata,
  platform: Config,
  settings: RefdataSettings['web'],
): Promise<Pages> {
  app.addConstraintStrategy(surfaceStrategy);
  await app.register(cookie);
  const sessions = refdataSessions(refdata.db, {
    lifetimeMs: platform.security.sessionLifetimeSeconds * 1000,
    secureCookie: refdata.publicUrl.startsWith('https:'),
  });
  const oidc = refdata.provider;
  const pages = new Pages(refdata, sessions, {
    anonymousRead: settings.anonymousRead,
    signIn: { provider: oidc },
  });
  // The pages' scripts are assets, served without a session to anyone.
  registerPageScript(app, SCRIPT_PATH);
  app.get(AUTHORING_SCRIPT_PATH, { schema: { hide: true } }, async (_request, reply) =>
    reply
      .type('text/javascript')
      .header('cache-control', 'public, max-age=3600')
      .send(AUTHORING_SCRIPT),
  );
  await registerSurface(
    app,
    {
      name: 'web',
      renderError: (problem, { traceId, request }) => {
        const { title, body } = errorContent(problem, traceId);
        return {
          contentType: 'text/html; charset=utf-8',
          body: pages.render(request, { title }, body),
        };
      },
    },
    (web) => {
      pages.installHooks(web);
      for (const register of PAGE_MODULES) register(web, pages);
      if (oidc) registerOidcSignIn(web, pages, oidc);
    },
  );
  // The provider's server posts here, outside the pages' sessions and form tokens.
  if (oidc) registerBackchannelLogout(app, sessions, oidc);
  const sweep = setInterval(() => {
    sessions
      .purgeExpired()
      .catch((error: unknown) => app.log.warn({ err: error }, 'sweeping expired sessions failed'));
  }, SWEEP_INTERVAL_MS);
  sweep.unref();
  app.addHook('onClose', async () => clearInterval(sweep));
  return pages;
}
