import { Type } from '@sinclair/typebox';
import { HttpError, validationProblem } from '../../platform/http/problem.js';
import type { HttpApp } from '../../platform/http/server.js';
import { principalOf } from '../auth/authenticate.js';
import { READ_ROLES } from '../auth/roles.js';
import type { Refdata } from '../context.js';
import { answer, problems } from '../described-responses.js';
import { problem } from '../problem-codes.js';
import { notFound } from '../resources/lookup.js';
import { requiredText } from '../resources/text.js';
import {
  addComment,
  COMMENT_LENGTH,
  type CommentRow,
  EDIT_WINDOW_MS,
  editComment,
  type Thread,
  thread,
} from './comments.js';

const THREAD_QUERY = Type.Object(
  {
    iri: Type.Optional(Type.String({ minLength: 1, maxLength: 2048 })),
    package: Type.Optional(Type.Integer({ minimum: 1, maximum: 2 ** 31 - 1 })),
  },
  { additionalProperties: false },
);
const TEXT_BODY = Type.Object(
  { text: Type.String({ minLength: 1, maxLength: COMMENT_LENGTH }) },
  { additionalProperties: false },
);
const CommentJson = Type.Object({
  id: Type.Integer(),
  author: Type.String(),
  text: Type.String(),
  createdAt: Type.String({ format: 'date-time' }),
  editedAt: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
  editableUntil: Type.String({ format: 'date-time' }),
});

function commentJson(comment: CommentRow) {
  return {
    id: comment.id,
    author: comment.author,
    text: comment.text,
    createdAt: new Date(Number(comment.created_at)).toISOString(),
    editedAt: comment.edited_at === null ? null : new Date(Number(comment.edited_at)).toISOString(),
    editableUntil: new Date(Number(comment.created_at) + EDIT_WINDOW_MS).toISOString(),
  };
}

/** The discussion of submissions and packages (docs/review.md#discussion). */
export function registerCommentRoutes(app: HttpApp, refdata: Refdata): void {
  const threadOf = async (query: { iri?: string | undefined; package?: number | undefined }) => {
    if ((query.iri === undefined) === (query.package === undefined))
      throw new HttpError(
        validationProblem([
          { in: 'query', field: 'iri', detail: 'or package is required, and not both' },
        ]),
      );
    if (query.iri !== undefined) {
      const resource = await refdata.store.findByIri(query.iri);
      if (!resource) throw notFound(query.iri);
      return { resource } satisfies Thread;
    }
    const found = await refdata.packages.find(query.package as number);
    if (!found)
      throw new HttpError(problem(404, 'not-found', `There is no package ${query.package}.`));
    return { package: found } satisfies Thread;
  };

  app.get('/comments', {
    schema: {
      summary: 'The discussion of a resource (iri) or a package (package), oldest first',
      tags: ['review'],
      querystring: THREAD_QUERY,
      response: {
        200: answer('Its comments', 'application/json', Type.Array(CommentJson)),
        ...problems(400, 401, 403, 404),
      },
    },
    config: { access: { roles: READ_ROLES } },
    handler: async (request) =>
      (await thread(refdata, await threadOf(request.query))).map(commentJson),
  });

  app.post('/comments', {
    schema: {
      summary: 'Comment on a resource (iri) or a package (package)',
      tags: ['review'],
      querystring: THREAD_QUERY,
      body: TEXT_BODY,
      response: {
        201: answer('The comment', 'application/json', CommentJson),
        ...problems(400, 401, 403, 404, 413, 415),
      },
    },
    config: { access: { roles: READ_ROLES } },
    handler: async (request, reply) => {
      const text = requiredText(request.body.text, '/text');
      const about = await threadOf(request.query);
      const comment = await addComment(refdata, about, principalOf(request), text);
      return reply.status(201).send(commentJson(comment));
    },
  });

  app.put('/comments/:id', {
    schema: {
      summary: `Change a comment (its author, within ${EDIT_WINDOW_MS / 60_000} minutes)`,
      tags: ['review'],
      params: Type.Object(
        { id: Type.Integer({ minimum: 1, maximum: 2 ** 31 - 1 }) },
        { additionalProperties: false },
      ),
      body: TEXT_BODY,
      response: {
        200: answer('The comment as changed', 'application/json', CommentJson),
        ...problems(400, 401, 403, 404, 413, 415),
      },
    },
    config: { access: { roles: READ_ROLES } },
    handler: async (request) => {
      const text = requiredText(request.body.text, '/text');
      return commentJson(
        await editComment(refdata, request.params.id, principalOf(request).subject, text),
      );
    },
  });
}
