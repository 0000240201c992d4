import type { Problem } from '../../platform/http/problem.js';
import { readAsset } from '../../platform/web/assets.js';
import { html, type Markup, timeTag } from '../../platform/web/html.js';
import { csrfField, errorContent, frame, type Notice } from '../../platform/web/layout.js';
import { SCRIPT_PATH } from './copy.js';

export interface PageOptions {
  title: string;
  /**
   * The signed-in user, for the header; when an administrator turned their
   * second factors off, every page says so until they see to it.
   */
  user?: { username: string; second_factors_removed_at?: number | null } | undefined;
  /** The session's form token; needed for the sign-out button. */
  csrf?: string | undefined;
  /** A notice shown above the content. */
  notice?: Notice | undefined;
  /** On a user-settings page: its path, to show the settings menu with it marked. */
  settings?: string | undefined;
  /** Scripts of the page's own, after the one every page loads. */
  scripts?: readonly string[] | undefined;
}

/** The user-settings pages, in GitLab's order. */
const SETTINGS: readonly [path: string, label: string][] = [
  ['/profile', 'Profile'],
  ['/profile/emails', 'Emails'],
  ['/profile/password/edit', 'Password'],
  ['/profile/two_factor_auth', 'Two-factor authentication'],
  ['/profile/passkeys', 'Passkeys'],
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

/** codehost's own additions to the shared styles. */
const STYLE = readAsset(new URL('./assets/codehost.css', import.meta.url));

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
  return frame(
    {
      service: 'codehost',
      title: options.title,
      header: account,
      above: options.settings ? settingsMenu(options.settings) : undefined,
      notice: options.notice,
      style: STYLE,
      script: [SCRIPT_PATH, ...(options.scripts ?? [])],
    },
    html`${removalNotice(options)}${content}`,
  );
}

/** What every page of the user's sessions says after an administrator turned their second factors off. */
function removalNotice(options: PageOptions): Markup {
  const at = options.user?.second_factors_removed_at;
  if (at === undefined || at === null) return html``;
  return html`<section class="notice error" id="second-factors-removed" aria-labelledby="second-factors-removed-heading">
<h2 id="second-factors-removed-heading">Your two-factor authentication was turned off</h2>
<p>An administrator removed your authenticator app, passkeys and recovery codes ${timeTag(Number(at), Date.now())}, so your password alone signs you in. If you did not ask for this, change your password and tell them. <a href="/profile/two_factor_auth">Set up two-factor authentication again</a> or <a href="/profile/passkeys">add a passkey</a>.</p>
<form method="post" action="/profile/two_factor_auth/notice">${csrfField(options.csrf ?? '')}<p><button type="submit">Dismiss</button></p></form>
</section>`;
}

export { csrfField };

/** Failures as a page in the site's frame, with a way on and a reference to quote. */
export function errorPage(problem: Problem, traceId: string): string {
  const { title, body } = errorContent(problem, traceId);
  return page({ title }, body);
}
