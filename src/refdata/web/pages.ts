import type { FastifyReply, FastifyRequest } from 'fastify';
import { HttpError } from '../../platform/http/problem.js';
import { partValue } from '../../platform/http/request-parts.js';
import type { HttpApp } from '../../platform/http/server.js';
import { readAsset } from '../../platform/web/assets.js';
import { allowFormRedirectTo } from '../../platform/web/csp.js';
import { html, type Markup } from '../../platform/web/html.js';
import { csrfField, frame, type Notice } from '../../platform/web/layout.js';
import { checkPageRequest } from '../../platform/web/page-checks.js';
import { safeReturnPath } from '../../platform/web/return-path.js';
import type { IdentityProvider } from '../auth/identity-provider.js';
import { READ_ROLES, REVIEW_ROLES, type Role, WRITE_ROLES } from '../auth/roles.js';
import type { Refdata } from '../context.js';
import { problem } from '../problem-codes.js';
import { STATUS_STYLE } from '../rdf/html.js';
import { PeopleStore } from './people.js';
import type { RefdataSession, RefdataSessions, Viewer } from './session.js';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** A page served even when anonymous reading is off (signing in). */
    open?: boolean;
    /**
     * The page is for signed-in people (holding one of `roles`, when given): a
     * visitor is sent to sign in, anyone else is told what `doing` takes.
     * Checked when the request arrives, before its body is read.
     */
    viewers?: PageViewers;
  }
}

/** Who may see a page; see `viewers` in the route's config. */
export interface PageViewers {
  roles?: readonly Role[];
  /** What the page is for, as the refusal says it ("Importing takes the Creator role"). */
  doing: string;
}

/** How people can sign in to this deployment. */
export interface SignInMethods {
  /** The identity provider, when one is configured (besides token sign-in). */
  provider: IdentityProvider | undefined;
}

export interface PageOptions {
  title: string;
  /** See `FrameOptions.titleLanguage`. */
  titleLanguage?: string | undefined;
  notice?: Notice | undefined;
  /** Tables and lists that use the width of the screen. */
  wide?: boolean;
  /** Scripts beyond the pages' own (the authoring forms'). */
  scripts?: readonly string[];
  /** See `FrameOptions.refreshSeconds`. */
  refreshSeconds?: number;
}

/** The pages' one script (Copy buttons), served by the web plugin. */
export const SCRIPT_PATH = '/assets/refdata.js';

/** refdata's own styles, after the shared ones. */
const STYLE = readAsset(new URL('./assets/refdata.css', import.meta.url));

/**
 * The web pages' shared machinery: each request's session (kept beside the
 * request, not on it, so the two services' session types never meet), the
 * anonymous-reading rule, the checks every page gets, and the frame with
 * refdata's header (search box, sign-in state).
 */
export class Pages {
  private readonly loaded = new WeakMap<FastifyRequest, RefdataSession>();
  /** Signed-in viewers one of whose webhooks was disabled: every page tells them. */
  private readonly webhookTrouble = new WeakSet<FastifyRequest>();
  /** How many unread entries the viewer's inbox holds, for the header. */
  private readonly unread = new WeakMap<FastifyRequest, number>();
  /** Who the actors on a page are (names, not subjects). */
  readonly people: PeopleStore;

  constructor(
    readonly refdata: Refdata,
    readonly sessions: RefdataSessions,
    readonly options: { anonymousRead: boolean; signIn: SignInMethods },
  ) {
    this.people = new PeopleStore(refdata.db);
  }

  /**
   * What every page gets, as hooks of the web surface: never cached, the
   * session loaded, anonymous reading enforced (pages declared `open`, such as
   * signing in, are served even when it is off; every other page then asks to
   * sign in first), and the checks every page request gets.
   */
  installHooks(web: HttpApp): void {
    web.addHook('onRoute', (route) => {
      // Pages are for people; the API description is for programs.
      route.schema = { hide: true, ...route.schema };
      // A malformed part of a page's address is checked in the preHandler.
      route.attachValidation = true;
    });
    web.addHook('onRequest', async (request, reply) => {
      reply.header('cache-control', 'no-store');
      // Signing in and out through the provider ends in a redirect there.
      const provider = this.options.signIn.provider;
      if (provider) allowFormRedirectTo(reply, provider.config.issuer);
      const session = await this.sessions.load(request);
      if (session) this.loaded.set(request, session);
      const open = request.routeOptions.config.open === true;
      const declared = request.routeOptions.config.viewers;
      if (!session?.data.viewer && (declared || (!open && !this.options.anonymousRead))) {
        return reply.redirect(signInAddress(request.url), 302);
      }
      if (declared && session?.data.viewer) refuseUnlessHolding(session.data.viewer, declared);
      return undefined;
    });
    web.addHook('preHandler', async (request) => {
      const data = this.sessionOf(request)?.data;
      checkPageRequest(request, data && { csrf: data.csrf, signedIn: Boolean(data.viewer) });
      if (
        data?.viewer &&
        (await this.refdata.webhooks.subscriptions.anyDisabled(data.viewer.subject))
      )
        this.webhookTrouble.add(request);
      if (data?.viewer)
        this.unread.set(request, await this.refdata.notifications.unreadCount(data.viewer.subject));
    });
  }

  sessionOf(request: FastifyRequest): RefdataSession | undefined {
    return this.loaded.get(request);
  }

  viewerOf(request: FastifyRequest): Viewer | undefined {
    return this.sessionOf(request)?.data.viewer;
  }

  /** The signed-in viewer of a page that declares its `viewers`. */
  signedInViewer(request: FastifyRequest): Viewer {
    const viewer = this.viewerOf(request);
    if (!viewer || !request.routeOptions.config.viewers) {
      throw new Error(`${request.routeOptions.url} reads its viewer without declaring viewers.`);
    }
    return viewer;
  }

  /** Whether the viewer holds one of `roles`. */
  holds(request: FastifyRequest, roles: readonly Role[]): boolean {
    return this.viewerOf(request)?.roles.some((role) => roles.includes(role)) ?? false;
  }

  /** The request's session, starting an anonymous one so a form can carry a token. */
  async ensureSession(request: FastifyRequest, reply: FastifyReply): Promise<RefdataSession> {
    const existing = this.sessionOf(request);
    if (existing) return existing;
    const session = await this.sessions.start(reply, {});
    this.loaded.set(request, session);
    return session;
  }

  /**
   * Starts a signed-in session for `viewer`: a new session ID (a planted one gains
   * nothing), then on to where they were going.
   */
  async signIn(
    request: FastifyRequest,
    reply: FastifyReply,
    viewer: Viewer,
    options: { returnTo: string; idToken?: string; sid?: string; until?: number },
  ): Promise<FastifyReply> {
    const session = await this.sessions.start(
      reply,
      {
        viewer,
        ...(options.idToken ? { idToken: options.idToken } : {}),
        ...(options.sid ? { sid: options.sid } : {}),
      },
      this.sessionOf(request),
      options.until === undefined ? {} : { until: options.until },
    );
    this.remember(request, session);
    return reply.redirect(returnPathOrHome(options.returnTo), 303);
  }

  /** Replaces the request's session (signing in or out issues a new ID). */
  remember(request: FastifyRequest, session: RefdataSession | undefined): void {
    if (session) this.loaded.set(request, session);
    else this.loaded.delete(request);
  }

  /** Answers with a page: `content` inside the site's frame, as `render` makes it. */
  answer(
    request: FastifyRequest,
    reply: FastifyReply,
    status: number,
    options: PageOptions,
    content: Markup,
  ): FastifyReply {
    return reply
      .status(status)
      .type('text/html')
      .send(this.render(request, options, content));
  }

  /** "Inbox", or "Inbox (3)" with the count said in full to a screen reader. */
  private inboxLink(request: FastifyRequest): Markup {
    const unread = this.unread.get(request) ?? 0;
    return unread === 0
      ? html` <a href="/account/notifications">Inbox</a>`
      : html` <a href="/account/notifications" id="inbox-link">Inbox <span class="badge" aria-label="${String(unread)} unread">${String(unread)}</span></a>`;
  }

  render(request: FastifyRequest, options: PageOptions, content: Markup): string {
    const session = this.sessionOf(request);
    const viewer = session?.data.viewer;
    const query = partValue(request.query, 'q');
    const header = html`<nav aria-label="Site" class="site"><a href="/">Libraries</a> <a href="/symbols">Symbols</a> <a href="/query">Query</a>${
      this.holds(request, WRITE_ROLES) ? html` <a href="/authoring/new">New</a>` : html``
    }${viewer ? html` <a href="/authoring/mine">My drafts</a>` : html``}${
      viewer ? html` <a href="/account/tokens">Access tokens</a>` : html``
    }${
      this.holds(request, READ_ROLES) ? html` <a href="/account/webhooks">Webhooks</a>` : html``
    }${this.holds(request, WRITE_ROLES) ? html` <a href="/account/imports">Imports</a>` : html``}${this.holds(request, REVIEW_ROLES) ? html` <a href="/review">Review</a>` : html``}${
      viewer ? this.inboxLink(request) : html``
    }</nav>
<form class="search" role="search" aria-label="Site search" method="get" action="/search">
  <label class="visually-hidden" for="site-search">Search reference data</label>
  <input type="search" id="site-search" name="q" value="${typeof query === 'string' ? query : ''}" placeholder="Search terms…" maxlength="200">
  <button type="submit">Search</button>
</form>
<div class="account">${
      viewer && session
        ? html`<span>${viewer.name}${viewer.roles.map((role) => html` <span class="badge">${role}</span>`)}</span>
<form method="post" action="/sign-out">${csrfField(session.data.csrf)}<button type="submit">Sign out</button></form>`
        : html`<a href="${signInAddress(request.url)}">Sign in</a>`
    }</div>`;
    return frame(
      {
        service: 'refdata',
        title: options.title,
        header,
        notice:
          options.notice ??
          (this.webhookTrouble.has(request)
            ? {
                kind: 'error',
                text: 'A webhook of yours was disabled after its deliveries failed for about a day: see Webhooks.',
              }
            : undefined),
        style: STYLE + STATUS_STYLE,
        script: [SCRIPT_PATH, ...(options.scripts ?? [])],
        wide: options.wide,
        refreshSeconds: options.refreshSeconds,
        titleLanguage: options.titleLanguage,
      },
      content,
    );
  }
}

/** A signed-in viewer without the roles a page declares is told what it takes (403). */
function refuseUnlessHolding(viewer: Viewer, declared: PageViewers): void {
  const roles = declared.roles;
  if (!roles || viewer.roles.some((role) => roles.includes(role))) return;
  throw new HttpError(
    problem(
      403,
      'forbidden',
      `${declared.doing} takes the ${roles.join(' or ')} role; you are signed in as ${viewer.roles.join(', ') || 'someone with no role'}.`,
    ),
  );
}

/** The sign-in page, coming back here afterwards (a path on this service only). */
export function signInAddress(returnTo: string): string {
  const path = returnTo.split('#')[0] ?? '/';
  if (path.startsWith('/sign-in') || path.startsWith('/sign-out')) return '/sign-in';
  return `/sign-in?${new URLSearchParams({ return_to: path })}`;
}

/** Only paths on this service may be returned to after signing in; else the home page. */
export function returnPathOrHome(path: unknown): string {
  return safeReturnPath(path) ?? '/';
}
