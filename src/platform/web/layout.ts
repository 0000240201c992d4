import { GENERIC_NOT_FOUND, type Problem } from '../http/problem.js';
import { readAsset } from './assets.js';
import { html, type Markup, trusted } from './html.js';

/**
 * The frame both services' pages share: one look, one set of accessible
 * habits (skip link, landmarks, a notice read out as status or alert), and
 * layouts that hold at 375 px. A service brings its name, what its header
 * holds, and any styles and script of its own.
 */
export interface FrameOptions {
  /** The service's name: the brand in the header and the end of every title. */
  service: string;
  title: string;
  /** The title's language when it is not the page's (a label in another language). */
  titleLanguage?: string | undefined;
  /** What follows the brand in the header (navigation, search, the account). */
  header: Markup;
  /** Shown above the page's heading (a section's menu). */
  above?: Markup | undefined;
  notice?: Notice | undefined;
  /** The service's own styles, after the shared ones. */
  style?: string | undefined;
  /** A script of the service's own (same origin: the policy allows nothing else). */
  script?: string | readonly string[] | undefined;
  /** Wider pages (tables of terms, search results) than a form's reading width. */
  wide?: boolean | undefined;
  /**
   * Reload the page after this many seconds when script is off (a page that
   * watches work in progress; with script, the page's own script updates it).
   */
  refreshSeconds?: number | undefined;
}

export interface Notice {
  kind: 'ok' | 'error';
  text: string;
}

const STYLE = readAsset(new URL('./assets/site.css', import.meta.url));

/** Inline, so browsers do not ask for a /favicon.ico that is not there. */
const FAVICON =
  "data:image/svg+xml,%3Csvg xmlns='http://www.w3.org/2000/svg' viewBox='0 0 16 16'%3E%3Crect width='16' height='16' rx='3' fill='%23364a63'/%3E%3C/svg%3E";

export function frame(options: FrameOptions, content: Markup): string {
  const notice = options.notice
    ? html`<p class="notice ${options.notice.kind}" role="${options.notice.kind === 'error' ? 'alert' : 'status'}">${options.notice.text}</p>`
    : html``;
  return html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${options.title} · ${options.service}</title>
<link rel="icon" href="${FAVICON}">${
    options.refreshSeconds === undefined
      ? html``
      : html`<noscript><meta http-equiv="refresh" content="${String(options.refreshSeconds)}"></noscript>`
  }
<style>${trusted(STYLE)}${trusted(options.style ?? '')}</style>
${(typeof options.script === 'string' ? [options.script] : (options.script ?? [])).map(
  // Modules: deferred like `defer`, and strict, as the asset files are written.
  (source) => html`<script type="module" src="${source}"></script>`,
)}
</head>
<body>
<a class="skip" href="#content">Skip to content</a>
<header><a class="brand" href="/">${options.service}</a>${options.header}</header>
<main id="content" tabindex="-1"${options.wide ? html` class="wide"` : html``}>
${options.above ?? html``}
<h1${options.titleLanguage ? html` lang="${options.titleLanguage}"` : html``}>${options.title}</h1>
${notice}
${content}
</main>
</body>
</html>`.text;
}

/** A hidden field carrying the session's form token. */
export function csrfField(token: string): Markup {
  return html`<input type="hidden" name="authenticity_token" value="${token}">`;
}

/**
 * A failure as a page, in words a person can act on, with a way on and the
 * request's reference to quote when asking for help.
 */
export function errorContent(problem: Problem, traceId: string): { title: string; body: Markup } {
  const notFound = problem.status === 404;
  const detail =
    notFound && problem.code === 'not-found' && problem.detail === GENERIC_NOT_FOUND
      ? 'There is no page at this address. Check the address, or start again from the home page.'
      : (problem.detail ?? problem.title);
  return {
    title: notFound ? 'Page not found' : `${problem.status} ${problem.title}`,
    body: html`<p>${detail}</p>
<p><a href="/">Go to the home page</a></p>
<p class="hint">Reference: <code>${traceId}</code> (quote it when asking for help).</p>`,
  };
}
