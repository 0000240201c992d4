import { GENERIC_NOT_FOUND, type Problem } from '../../platform/http/problem.js';
import { html, type Markup, trusted } from '../../platform/web/html.js';
import { SCRIPT_PATH } from './copy.js';

export interface PageOptions {
  title: string;
  /** The signed-in user, for the header. */
  user?: { username: string } | undefined;
  /** The session's form token; needed for the sign-out button. */
  csrf?: string | undefined;
  /** A notice shown above the content. */
  notice?: { kind: 'ok' | 'error'; text: string } | undefined;
  /** On a user-settings page: its path, to show the settings menu with it marked. */
  settings?: string | undefined;
}

/** The user-settings pages, in GitLab's order. */
const SETTINGS: readonly [path: string, label: string][] = [
  ['/profile', 'Profile'],
  ['/profile/emails', 'Emails'],
  ['/profile/password/edit', 'Password'],
  ['/profile/two_factor_auth', 'Two-factor authentication'],
  ['/profile/active_sessions', 'Active sessions'],
  ['/profile/applications', 'Applications'],
  ['/profile/personal_access_tokens', 'Access tokens'],
  ['/profile/notifications', 'Notifications'],
];

function settingsMenu(current: string): Markup {
  return html`<nav class="settings" aria-label="User settings"><ul>${SETTINGS.map(
    ([path, label]) =>
      html`<li><a href="${path}"${path === current ? html` aria-current="page"` : html``}>${label}</a></li>`,
  )}</ul></nav>`;
}

const STYLE = `
body{font-family:system-ui,sans-serif;margin:0;color:#222;background:#fafafa}
header{background:#2e2e5c;color:#fff;padding:.6rem 1.2rem;display:flex;flex-wrap:wrap;gap:.4rem 1rem;align-items:center}
header a{color:#fff}header form,header .sign-in{margin:0 0 0 auto}
.skip{position:absolute;left:-999px;top:0;background:#fff;color:#222;padding:.5rem}.skip:focus{left:.5rem;z-index:1}
main:focus{outline:none}.brand{font-weight:700;text-decoration:none}
main{max-width:46rem;margin:1.5rem auto;padding:0 1.2rem;overflow-wrap:break-word}
th[scope=col]{white-space:nowrap}
nav.settings ul{list-style:none;margin:0 0 1rem;padding:0;display:flex;flex-wrap:wrap;gap:.3rem .9rem;border-bottom:1px solid #ddd;padding-bottom:.5rem}
nav.settings a[aria-current]{font-weight:700;color:#222;text-decoration:none}
.hint{margin:.2rem 0;color:#555;font-size:.9em}.field-error{margin:.2rem 0;color:#a40000;font-weight:600}
[aria-invalid=true]{border:2px solid #a40000}
.table-scroll{overflow-x:auto}
@media (max-width:36rem){table.stack,table.stack tbody,table.stack tr,table.stack td,table.stack th[scope=row]{display:block}
table.stack tr.head{position:absolute;width:1px;height:1px;overflow:hidden;clip:rect(0 0 0 0)}
table.stack tr{border-bottom:1px solid #ddd;padding:.5rem 0}table.stack td,table.stack th[scope=row]{border:0;padding:.15rem 0}
table.stack td[data-label]::before{content:attr(data-label) ": ";font-weight:600}}
dl.facts{display:grid;grid-template-columns:max-content 1fr;gap:.3rem 1rem}dl.facts dt{font-weight:600}dl.facts dd{margin:0;min-width:0;overflow-wrap:anywhere}
#qr-code{margin:1rem 0;width:min(14rem,100%)}#qr-code svg{display:block;width:100%;height:auto}
.visually-hidden{position:absolute;width:1px;height:1px;overflow:hidden;clip:rect(0 0 0 0);white-space:nowrap}
.copy{margin-left:.4rem;font-size:.85em;padding:.1rem .5rem}
.danger-link{color:#a40000;font-weight:600}
button.danger{background:#a40000;color:#fff;border:1px solid #7a0000;border-radius:3px}
.badge{display:inline-block;padding:0 .4rem;border-radius:3px;background:#e8e8f4;font-size:.85em}
label{display:block;margin:.8rem 0 .2rem;font-weight:600}
input[type=text],input[type=password],input[type=date],input[type=email],input[type=url],textarea{width:100%;padding:.4rem;box-sizing:border-box;font:inherit}
button{padding:.4rem .9rem;font:inherit;cursor:pointer}
table{border-collapse:collapse;width:100%}td,th{border-bottom:1px solid #ddd;padding:.4rem;text-align:left;vertical-align:top}
code,.secret{font-family:ui-monospace,monospace;overflow-wrap:anywhere}.secret{word-break:break-all}#otp-secret{word-break:normal;overflow-wrap:normal}
.secret{display:block;background:#fff;border:1px solid #ccc;padding:.5rem}
.notice{padding:.6rem;border-radius:4px}.ok{background:#e3f5e1}.error{background:#fbe3e3}
.inline{display:inline}label.inline{font-weight:normal}
select{padding:.3rem;font:inherit}
`;

/** Inline, so browsers do not ask for a /favicon.ico that is not there. */
const FAVICON =
  "data:image/svg+xml,%3Csvg xmlns='http://www.w3.org/2000/svg' viewBox='0 0 16 16'%3E%3Crect width='16' height='16' rx='3' fill='%23364a63'/%3E%3C/svg%3E";

/** The frame of every page: header with the user and sign-out, then the content. */
export function page(options: PageOptions, content: Markup): string {
  const account = options.user
    ? html`<a href="/${options.user.username}">${options.user.username}</a>
        <a href="/profile">Settings</a>
        <form method="post" action="/users/sign_out">
          <input type="hidden" name="authenticity_token" value="${options.csrf ?? ''}">
          <button type="submit">Sign out</button>
        </form>`
    : html`<a class="sign-in" href="/users/sign_in">Sign in</a>`;
  const notice = options.notice
    ? html`<p class="notice ${options.notice.kind}" role="${options.notice.kind === 'error' ? 'alert' : 'status'}">${options.notice.text}</p>`
    : html``;
  return html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${options.title} · codehost</title>
<link rel="icon" href="${FAVICON}">
<style>${trusted(STYLE)}</style>
<script src="${SCRIPT_PATH}" defer></script>
</head>
<body>
<a class="skip" href="#content">Skip to content</a>
<header><a class="brand" href="/">codehost</a>${account}</header>
<main id="content" tabindex="-1">
${options.settings ? settingsMenu(options.settings) : html``}
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

/** Failures as a page in the site's frame, with a way on and a reference to quote. */
export function errorPage(problem: Problem, traceId: string): string {
  const notFound = problem.status === 404;
  const detail =
    notFound && problem.code === 'not-found' && problem.detail === GENERIC_NOT_FOUND
      ? 'There is no page at this address. Check the address, or start again from the home page.'
      : (problem.detail ?? problem.title);
  return page(
    { title: notFound ? 'Page not found' : `${problem.status} ${problem.title}` },
    html`<p>${detail}</p>
<p><a href="/">Go to the home page</a></p>
<p class="hint">Reference: <code>${traceId}</code> (quote it when asking for help).</p>`,
  );
}
