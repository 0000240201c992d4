import type { FastifyRequest } from 'fastify';
import { HttpError } from '../../platform/http/problem.js';
import type { HttpApp } from '../../platform/http/server.js';
import { html, type Markup } from '../../platform/web/html.js';
import type { UserRow } from '../accounts/users.js';
import { problem } from '../problem-codes.js';
import { csrfField, page } from './layout.js';
import { accountOf, sessionOf } from './surface.js';
import { ROW_ID_PARAMS } from './web-context.js';

/** What a confirmation page asks, for one stored thing the user owns. */
export interface Confirmation {
  title: string;
  /** What will happen, and what it will break, in plain words. */
  consequence: string;
  /** The button's words, such as "Destroy". */
  button: string;
  /** Where "Cancel" goes back to. */
  back: string;
}

/**
 * A destructive action (destroy, revoke, renew) asks first, on a page of its
 * own, so it works without script: the list links to `GET path`, which shows
 * what will happen and a button that posts to the same `path`. `describe`
 * answers undefined for something that is not the user's (a 404 page).
 */
export function registerConfirmation(
  app: HttpApp,
  path: string,
  describe: (user: UserRow, id: number) => Promise<Confirmation | undefined>,
): void {
  app.get(
    path,
    { schema: { params: ROW_ID_PARAMS }, config: { signedIn: true } },
    async (request, reply) => {
      const user = accountOf(request);
      const { id } = request.params;
      const confirmation = await describe(user, id);
      if (!confirmation) {
        throw new HttpError(
          problem(
            404,
            'not-found',
            'There is nothing to confirm here: it does not exist or is not yours.',
          ),
        );
      }
      const session = sessionOf(request);
      return reply.type('text/html').send(
        page(
          { title: confirmation.title, user, csrf: session.data.csrf },
          html`<p>${confirmation.consequence}</p>
<form method="post" action="${actionOf(request)}">
  ${csrfField(session.data.csrf)}
  <p><button type="submit" class="danger">${confirmation.button}</button> <a href="${confirmation.back}">Cancel</a></p>
</form>`,
        ),
      );
    },
  );
}

/** The path the page was asked for, without its query: the form posts back there. */
function actionOf(request: FastifyRequest): string {
  return request.url.split('?')[0] ?? request.url;
}

/** The link a list shows in place of a destructive button. */
export function confirmLink(href: string, text: string, label?: string): Markup {
  return html`<a class="button-link danger-link" href="${href}"${label ? html` aria-label="${label}"` : html``}>${text}</a>`;
}
