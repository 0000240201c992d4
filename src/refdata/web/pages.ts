import type { FastifyReply, FastifyRequest } from 'fastify';
import { partValue } from '../../platform/http/request-parts.js';
import type { HttpApp } from '../../platform/http/server.js';
import { allowFormRedirectTo } from '../../platform/web/csp.js';
import { html, type Markup } from '../../platform/web/html.js';
import { csrfField, frame, type Notice } from '../../platform/web/layout.js';
import { checkPageRequest } from '../../platform/web/page-checks.js';
import { safeReturnPath } from '../../platform/web/return-path.js';
import { REVIEW_ROLES, type Role, WRITE_ROLES } from '../auth/roles.js';
import type { Refdata } from '../context.js';
import { STATUS_STYLE } from '../rdf/html.js';
import type { OidcSignIn } from './oidc-sign-in.js';
import { PeopleStore } from './people.js';
import type { RefdataSession, RefdataSessions, Viewer } from './session.js';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** A page served even when anonymous reading is off (signing in). */
    open?: boolean;
  }
}

/** How people can sign in to this deployment. */
export interface SignInMethods {
  /** The identity provider, when one is configured (besides token sign-in). */
  provider: OidcSignIn | undefined;
}

export interface PageOptions {
  title: string;
  notice?: Notice | undefined;
  /** Tables and lists that use the width of the screen. */
  wide?: boolean;
  /** Scripts beyond the pages' own (the authoring forms'). */
  scripts?: readonly string[];
}

/** The pages' one script (Copy buttons), served by the web plugin. */
export const SCRIPT_PATH = '/assets/refdata.js';

/** refdata's own styles, after the shared ones. */
const STYLE = `
header form.search{margin:0;flex:1 1 12rem;display:flex;gap:.3rem;max-width:28rem}
header form.search input{flex:1;min-width:8rem;padding:.3rem;font:inherit}
header .account{margin-left:auto;display:flex;gap:.6rem;align-items:center;flex-wrap:wrap}
header .account form{margin:0}
.iri{font-family:ui-monospace,monospace;overflow-wrap:anywhere}.copy{margin-left:.4rem;font-size:.85em;padding:.1rem .5rem}
.home-search{display:flex;flex-wrap:wrap;gap:.4rem;align-items:center}.home-search label{width:100%;margin:0}
.home-search input,form.search-page input[type=search]{flex:1 1 12rem;min-width:0;padding:.4rem;font:inherit}
ul.cards{list-style:none;padding:0}ul.cards>li{border-bottom:1px solid #ddd;padding:.6rem 0}ul.cards p{margin:.2rem 0}
.search-row{display:flex;gap:.4rem}.facets{display:flex;flex-wrap:wrap;gap:.5rem 1rem}
fieldset.facet{flex:1 1 14rem;border:1px solid #ddd;border-radius:4px}.count{color:#555}
ul.tree,ul.tree ul{list-style:none;padding-left:1.1rem}ul.tree{padding-left:0}ul.tree summary{cursor:pointer;color:#444;font-size:.9em}ul.tree details{display:inline-block;vertical-align:top}ul.tree details[open]{display:block}
.symbol-drawing svg{display:block;max-width:100%;height:auto;max-height:24rem;background:#fff}
.legend-point{color:#d00}.legend-centre{color:#06c;font-weight:700}.direction{font-family:ui-monospace,monospace}
ul.gallery{list-style:none;padding:0;display:grid;grid-template-columns:repeat(auto-fill,minmax(9rem,1fr));gap:.8rem}
ul.gallery li{border:1px solid #ddd;border-radius:4px;padding:.5rem;background:#fff;text-align:center}
ul.gallery a{display:block}ul.gallery .thumb svg{display:block;width:100%;height:6rem}
nav.site{display:flex;flex-wrap:wrap;gap:.8rem}
.inline-list{list-style:none;padding:0;display:flex;flex-wrap:wrap;gap:.3rem 1rem}
a.button{display:inline-block;padding:.35rem .8rem;border:1px solid #2e2e5c;border-radius:3px;text-decoration:none;color:#2e2e5c;background:#fff;margin:.15rem 0}
p.actions{display:flex;flex-wrap:wrap;gap:.5rem;align-items:center}
button.primary{background:#2e2e5c;color:#fff;border:1px solid #1d1d40;border-radius:3px}
form.authoring .default-action{position:absolute;left:-9999px}
form.authoring .optional{font-weight:normal;color:#555}
form.authoring select{max-width:100%}form.authoring input.number{max-width:12rem}
fieldset.list,fieldset.group{border:1px solid #ccc;border-radius:4px;margin:1rem 0;padding:.4rem .8rem .8rem}
fieldset.list legend,fieldset.group legend{font-weight:600;padding:0 .3rem}
ol.rows{list-style:none;padding:0;margin:0}li.row{border-bottom:1px dashed #ccc;padding:.2rem 0 .6rem}
.row-actions{display:flex;gap:.4rem;margin-top:.4rem}.row-actions button{padding:.2rem .6rem;font-size:.9em}
button.add{margin-top:.6rem}.picked{margin:.2rem 0;font-size:.9em}
fieldset.choices{border:1px solid #a40000;border-radius:4px;margin:.4rem 0}
.error-summary{border:3px solid #a40000;padding:.4rem 1rem;margin:1rem 0;background:#fff}.error-summary h2{font-size:1.1rem;margin:.4rem 0}
ul.suggestions{list-style:none;margin:0;padding:0;border:1px solid #888;background:#fff;max-height:16rem;overflow-y:auto}
ul.suggestions li{padding:.35rem .5rem;cursor:pointer}ul.suggestions li[aria-selected=true]{background:#2e2e5c;color:#fff}
table.diff del{background:#fbe3e3;text-decoration:line-through}table.diff ins{background:#e3f5e1;text-decoration:none}
ul.dependencies{padding-left:1.2rem}
`;

/**
 * The web pages' shared machinery: each request's session (kept beside the
 * request, not on it, so the two services' session types never meet), the
 * anonymous-reading rule, the checks every page gets, and the frame with
 * refdata's header (search box, sign-in state).
 */
export class Pages {
  private readonly loaded = new WeakMap<FastifyRequest, RefdataSession>();
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
      if (!open && !this.options.anonymousRead && !session?.data.viewer) {
        return reply.redirect(signInAddress(request.url), 302);
      }
      return undefined;
    });
    web.addHook('preHandler', async (request) => {
      const data = this.sessionOf(request)?.data;
      checkPageRequest(request, data && { csrf: data.csrf, signedIn: Boolean(data.viewer) });
    });
  }

  sessionOf(request: FastifyRequest): RefdataSession | undefined {
    return this.loaded.get(request);
  }

  viewerOf(request: FastifyRequest): Viewer | undefined {
    return this.sessionOf(request)?.data.viewer;
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

  /** Replaces the request's session (signing in or out issues a new ID). */
  remember(request: FastifyRequest, session: RefdataSession | undefined): void {
    if (session) this.loaded.set(request, session);
    else this.loaded.delete(request);
  }

  render(request: FastifyRequest, options: PageOptions, content: Markup): string {
    const session = this.sessionOf(request);
    const viewer = session?.data.viewer;
    const query = partValue(request.query, 'q');
    const header = html`<nav aria-label="Site" class="site"><a href="/">Libraries</a> <a href="/symbols">Symbols</a>${
      this.holds(request, WRITE_ROLES) ? html` <a href="/authoring/new">New</a>` : html``
    }${viewer ? html` <a href="/authoring/mine">My drafts</a>` : html``}${
      this.holds(request, REVIEW_ROLES) ? html` <a href="/review">Review</a>` : html``
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
        notice: options.notice,
        style: STYLE + STATUS_STYLE,
        script: [SCRIPT_PATH, ...(options.scripts ?? [])],
        wide: options.wide,
      },
      content,
    );
  }
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
