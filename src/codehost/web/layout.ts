import type { Problem } from '../../platform/http/problem.js';
import { html, type Markup, trusted } from './html.js';

export interface PageOptions {
  title: string;
  /** The signed-in user, for the header. */
  user?: { username: string } | undefined;
  /** The session's form token; needed for the sign-out button. */
  csrf?: string | undefined;
  /** A notice shown above the content. */
  notice?: { kind: 'ok' | 'error'; text: string } | undefined;
}

const STYLE = `
body{font-family:system-ui,sans-serif;margin:0;color:#222;background:#fafafa}
header{background:#2e2e5c;color:#fff;padding:.6rem 1.2rem;display:flex;flex-wrap:wrap;gap:.4rem 1rem;align-items:center}
header a{color:#fff}header form{margin:0 0 0 auto}
main{max-width:46rem;margin:1.5rem auto;padding:0 1.2rem}
label{display:block;margin:.8rem 0 .2rem;font-weight:600}
input[type=text],input[type=password],input[type=date],textarea{width:100%;padding:.4rem;box-sizing:border-box;font:inherit}
button{padding:.4rem .9rem;font:inherit;cursor:pointer}
table{border-collapse:collapse;width:100%}td,th{border-bottom:1px solid #ddd;padding:.4rem;text-align:left;vertical-align:top}
code,.secret{font-family:ui-monospace,monospace;word-break:break-all}
.secret{display:block;background:#fff;border:1px solid #ccc;padding:.5rem}
.notice{padding:.6rem;border-radius:4px}.ok{background:#e3f5e1}.error{background:#fbe3e3}
.inline{display:inline}
select{padding:.3rem;font:inherit}
`;

/** Inline, so browsers do not ask for a /favicon.ico that is not there. */
const FAVICON =
  "data:image/svg+xml,%3Csvg xmlns='http://www.w3.org/2000/svg' viewBox='0 0 16 16'%3E%3Crect width='16' height='16' rx='3' fill='%23364a63'/%3E%3C/svg%3E";

/** The frame of every page: header with the user and sign-out, then the content. */
export function page(options: PageOptions, content: Markup): string {
  const account = options.user
    ? html`<a href="/profile">${options.user.username}</a>
        <a href="/profile/applications">Applications</a>
        <a href="/profile/personal_access_tokens">Access tokens</a>
        <a href="/profile/notifications">Notifications</a>
        <a href="/profile/password/edit">Password</a>
        <a href="/profile/two_factor_auth">Two-factor</a>
        <form method="post" action="/users/sign_out">
          <input type="hidden" name="authenticity_token" value="${options.csrf ?? ''}">
          <button type="submit">Sign out</button>
        </form>`
    : html``;
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
</head>
<body>
<header><strong>codehost</strong>${account}</header>
<main>
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

export function errorPage(problem: Problem, traceId: string): string {
  const detail = problem.detail ?? problem.title;
  return page(
    { title: `${problem.status} ${problem.title}` },
    html`<p>${detail}</p><p>Reference: <code>${traceId}</code></p>`,
  );
}
