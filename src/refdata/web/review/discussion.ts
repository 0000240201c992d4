import { Type } from '@sinclair/typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { HttpError } from '../../../platform/http/problem.js';
import type { HttpApp } from '../../../platform/http/server.js';
import { html, type Markup, timeTag } from '../../../platform/web/html.js';
import { csrfField } from '../../../platform/web/layout.js';
import { linkified } from '../../../platform/web/linkify.js';
import { READ_ROLES } from '../../auth/roles.js';
import { problem } from '../../problem-codes.js';
import { pageHref } from '../../resources/addresses.js';
import { notFound } from '../../resources/lookup.js';
import {
  addComment,
  COMMENT_LENGTH,
  type CommentRow,
  checkEditable,
  EDIT_WINDOW_MS,
  editComment,
  type Thread,
  thread,
} from '../../review/comments.js';
import { formFieldsOf } from '../authoring/form-fields.js';
import type { Pages } from '../pages.js';

/** Who may see the pages for changing a comment (checked by the surface). */
const CHANGING_A_COMMENT = { roles: READ_ROLES, doing: 'Changing a comment' } as const;

/** Where a thread's page is, and the query naming the thread. */
function placeOf(pages: Pages, about: Thread): { page: string; query: string } {
  if ('resource' in about)
    return {
      page: pageHref(pages.refdata, about.resource.iri) ?? '/',
      query: `iri=${encodeURIComponent(about.resource.iri)}`,
    };
  return {
    page: `/review/packages/${about.package.id}`,
    query: `package=${about.package.id}`,
  };
}

/**
 * A thread as pages show it: each comment with its author and time, escaped
 * with links made safe; the viewer's own recent ones with an Edit link; and
 * the form to add one, for anyone signed in with a role.
 */
export async function discussionSection(
  pages: Pages,
  request: FastifyRequest,
  reply: FastifyReply,
  about: Thread,
  refused?: { text: string; error: string },
): Promise<Markup> {
  const viewer = pages.viewerOf(request);
  if (!viewer) return html``;
  const comments = await thread(pages.refdata, about);
  const people = await pages.people.lookUp(comments.map((comment) => comment.author));
  const session = await pages.ensureSession(request, reply);
  const now = Date.now();
  const { query } = placeOf(pages, about);
  const editable = (comment: CommentRow) =>
    comment.author === viewer.subject && now <= Number(comment.created_at) + EDIT_WINDOW_MS;
  return html`<section aria-labelledby="discussion-heading" id="discussion">
<h2 id="discussion-heading">Discussion</h2>
${
  comments.length === 0
    ? html`<p class="hint">No comments yet.</p>`
    : html`<ol class="comments">${comments.map(
        (comment) =>
          html`<li id="comment-${String(comment.id)}"><p class="comment-meta"><strong>${people.label(comment.author)}</strong> ${timeTag(Number(comment.created_at), now)}${comment.edited_at === null ? html`` : html` <span class="hint">(edited)</span>`}${editable(comment) ? html` <a href="/discussion/edit?id=${String(comment.id)}">Edit</a>` : html``}</p><p class="comment-text">${linkified(comment.text)}</p></li>`,
      )}</ol>`
}
${
  viewer.roles.some((role) => READ_ROLES.includes(role))
    ? html`<form method="post" action="/discussion?${query}" novalidate>${csrfField(session.data.csrf)}
<label for="comment-text">Your comment</label>
<textarea id="comment-text" name="text" rows="3" maxlength="${String(COMMENT_LENGTH)}" aria-describedby="comment-hint${refused ? ' comment-error' : ''}"${refused ? html` aria-invalid="true"` : html``}>${refused?.text ?? ''}</textarea>
<p class="hint" id="comment-hint">Authors, reviewers and readers see it; its author and earlier commenters are told. Addresses starting with https:// become links. You can change it for ${String(EDIT_WINDOW_MS / 60_000)} minutes.</p>
${refused ? html`<p class="field-error" id="comment-error">${refused.error}</p>` : html``}
<p class="actions"><button type="submit">Comment</button></p>
</form>`
    : html``
}
</section>`;
}

const THREAD_QUERY = Type.Object(
  {
    iri: Type.Optional(Type.String({ minLength: 1, maxLength: 2048 })),
    package: Type.Optional(Type.Integer({ minimum: 1, maximum: 2 ** 31 - 1 })),
  },
  { additionalProperties: false },
);

/** What a comment's text must be, in words; undefined when it may be stored. */
function textError(text: string): string | undefined {
  if (text.trim() === '') return 'Write something first.';
  if (text.length > COMMENT_LENGTH)
    return `A comment is at most ${COMMENT_LENGTH.toLocaleString('en')} characters.`;
  return undefined;
}

/** Posting and editing comments from the pages (the API has the same at /comments). */
export function registerDiscussionPages(app: HttpApp, pages: Pages): void {
  const refdata = pages.refdata;

  const threadOf = async (query: { iri?: string | undefined; package?: number | undefined }) => {
    if (query.iri !== undefined && query.package === undefined) {
      const resource = await refdata.store.findByIri(query.iri);
      if (!resource) throw notFound(query.iri);
      return { resource } satisfies Thread;
    }
    if (query.package !== undefined && query.iri === undefined) {
      const found = await refdata.packages.find(query.package);
      if (found) return { package: found } satisfies Thread;
    }
    throw new HttpError(problem(404, 'not-found', 'There is no such discussion.'));
  };

  app.post(
    '/discussion',
    {
      config: { viewers: { roles: READ_ROLES, doing: 'Commenting' } },
      schema: { querystring: THREAD_QUERY },
    },
    async (request, reply) => {
      const viewer = pages.signedInViewer(request);
      const about = await threadOf(request.query);
      const text = (formFieldsOf(request.body).get('text') ?? '').trim();
      const error = textError(text);
      const { page } = placeOf(pages, about);
      if (error) {
        const section = await discussionSection(pages, request, reply, about, { text, error });
        return pages.answer(
          request,
          reply,
          422,
          { title: 'Your comment', notice: { kind: 'error', text: error } },
          html`<p><a href="${page}">Back</a></p>${section}`,
        );
      }
      const comment = await addComment(refdata, about, viewer, text);
      return reply.redirect(`${page}#comment-${comment.id}`, 303);
    },
  );

  const ID_QUERY = Type.Object(
    { id: Type.Integer({ minimum: 1, maximum: 2 ** 31 - 1 }) },
    { additionalProperties: false },
  );
  const editPage = async (
    request: FastifyRequest,
    reply: FastifyReply,
    comment: CommentRow,
    status: number,
    error?: string,
    text = comment.text,
  ) => {
    const session = await pages.ensureSession(request, reply);
    return pages.answer(
      request,
      reply,
      status,
      { title: 'Change your comment', notice: error ? { kind: 'error', text: error } : undefined },
      html`<form method="post" action="/discussion/edit?id=${String(comment.id)}" novalidate>${csrfField(session.data.csrf)}
<label for="comment-text">Your comment</label>
<textarea id="comment-text" name="text" rows="5" maxlength="${String(COMMENT_LENGTH)}">${text}</textarea>
<p class="hint">You can change it until ${timeTag(Number(comment.created_at) + EDIT_WINDOW_MS, Date.now())}.</p>
<p class="actions"><button type="submit" class="primary">Save</button></p>
</form>`,
    );
  };
  const ownComment = async (id: number) => {
    const comment = await refdata.db
      .selectFrom('comments')
      .selectAll()
      .where('id', '=', id)
      .executeTakeFirst();
    if (!comment) throw new HttpError(problem(404, 'not-found', `There is no comment ${id}.`));
    return comment;
  };
  const placeOfComment = async (comment: CommentRow) => {
    if (comment.resource_id !== null) {
      const resource = await refdata.db
        .selectFrom('resources')
        .select('iri')
        .where('id', '=', comment.resource_id)
        .executeTakeFirst();
      return `${pageHref(refdata, resource?.iri ?? '') ?? '/'}#comment-${comment.id}`;
    }
    return `/review/packages/${comment.package_id}#comment-${comment.id}`;
  };

  app.get(
    '/discussion/edit',
    {
      config: { viewers: CHANGING_A_COMMENT },
      schema: { querystring: ID_QUERY },
    },
    async (request, reply) => {
      const viewer = pages.signedInViewer(request);
      const comment = await ownComment(request.query.id);
      // Refused as the API refuses it: not theirs, or too late.
      checkEditable(comment, viewer.subject);
      return editPage(request, reply, comment, 200);
    },
  );

  app.post(
    '/discussion/edit',
    {
      config: { viewers: CHANGING_A_COMMENT },
      schema: { querystring: ID_QUERY },
    },
    async (request, reply) => {
      const viewer = pages.signedInViewer(request);
      const comment = await ownComment(request.query.id);
      const text = (formFieldsOf(request.body).get('text') ?? '').trim();
      const error = textError(text);
      if (error) return editPage(request, reply, comment, 422, error, text);
      const changed = await editComment(refdata, comment.id, viewer.subject, text);
      return reply.redirect(await placeOfComment(changed), 303);
    },
  );
}
