import { GENERIC_NOT_FOUND, type Problem } from '../http/problem.js';
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
}

export interface Notice {
  kind: 'ok' | 'error';
  text: string;
}

const STYLE = `
body{font-family:system-ui,sans-serif;margin:0;color:#222;background:#fafafa}
header{background:#2e2e5c;color:#fff;padding:.6rem 1.2rem;display:flex;flex-wrap:wrap;gap:.4rem 1rem;align-items:center}
header a{color:#fff}header form,header .sign-in{margin:0 0 0 auto}
.skip{position:absolute;left:-999px;top:0;background:#fff;color:#222;padding:.5rem}.skip:focus{left:.5rem;z-index:1}
main:focus{outline:none}.brand{font-weight:700;text-decoration:none}
main{max-width:46rem;margin:1.5rem auto;padding:0 1.2rem;overflow-wrap:break-word}
th[scope=col]{white-space:nowrap}
.hint{margin:.2rem 0;color:#555;font-size:.9em}.field-error{margin:.2rem 0;color:#a40000;font-weight:600}
[aria-invalid=true]{border:2px solid #a40000}
.table-scroll{overflow-x:auto}
@media (max-width:36rem){table.stack,table.stack tbody,table.stack tr,table.stack td,table.stack th[scope=row]{display:block}
table.stack tr.head{position:absolute;width:1px;height:1px;overflow:hidden;clip:rect(0 0 0 0)}
table.stack tr{border-bottom:1px solid #ddd;padding:.5rem 0}table.stack td,table.stack th[scope=row]{border:0;padding:.15rem 0}
table.stack td[data-label]::before{content:attr(data-label) ": ";font-weight:600}
table.stack caption{display:block;text-align:left}}
dl.facts{display:grid;grid-template-columns:max-content 1fr;gap:.3rem 1rem}dl.facts dt{font-weight:600}dl.facts dd{margin:0;min-width:0;overflow-wrap:anywhere}
.visually-hidden{position:absolute;width:1px;height:1px;overflow:hidden;clip:rect(0 0 0 0);white-space:nowrap}
.danger-link{color:#a40000;font-weight:600}
button.danger{background:#a40000;color:#fff;border:1px solid #7a0000;border-radius:3px}
.badge{display:inline-block;padding:0 .4rem;border-radius:3px;background:#e8e8f4;color:#222;font-size:.85em}
label{display:block;margin:.8rem 0 .2rem;font-weight:600}
input[type=text],input[type=password],input[type=date],input[type=email],input[type=url],textarea{width:100%;padding:.4rem;box-sizing:border-box;font:inherit}
button{padding:.4rem .9rem;font:inherit;cursor:pointer}
table{border-collapse:collapse;width:100%}td,th{border-bottom:1px solid #ddd;padding:.4rem;text-align:left;vertical-align:top}
code,.secret{font-family:ui-monospace,monospace;overflow-wrap:anywhere}.secret{word-break:break-all}
.secret{display:block;background:#fff;border:1px solid #ccc;padding:.5rem}
.notice{padding:.6rem;border-radius:4px}.ok{background:#e3f5e1}.error{background:#fbe3e3}
.inline{display:inline}label.inline{font-weight:normal}
select{padding:.3rem;font:inherit}
main.wide{max-width:64rem}
.status{display:inline-block;padding:.1rem .55rem;border-radius:1rem;font-size:.85rem;font-weight:600;background:#eee}
`;

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
<link rel="icon" href="${FAVICON}">
<style>${trusted(STYLE)}${trusted(options.style ?? '')}</style>
${(typeof options.script === 'string' ? [options.script] : (options.script ?? [])).map(
  (source) => html`<script src="${source}" defer></script>`,
)}
</head>
<body>
<a class="skip" href="#content">Skip to content</a>
<header><a class="brand" href="/">${options.service}</a>${options.header}</header>
<main id="content" tabindex="-1"${options.wide ? html` class="wide"` : html``}>
${options.above ?? html``}
<h1>${options.title}</h1>
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
