import type { Selectable } from 'kysely';
import { HttpError } from '../../platform/http/problem.js';
import type { Refdata } from '../context.js';
import type { CommentsTable } from '../db/tables.js';
import { problem } from '../problem-codes.js';
import type { ResourceRow } from '../resources/rows.js';
import { type Actor, packageLink, pageLink } from './decisions.js';
import type { PackageRow } from './packages.js';

export type CommentRow = Selectable<CommentsTable>;

/** How long after writing it a comment's author may still change it. */
export const EDIT_WINDOW_MS = 15 * 60_000;
/** The longest comment, in characters. */
export const COMMENT_LENGTH = 5000;
/** The most comments a thread shows. */
const THREAD_LENGTH = 500;

/** What a thread is about: one resource (a submission) or a package. */
export type Thread = { resource: ResourceRow } | { package: PackageRow };

/**
 * The discussion of a submission or a package: anyone with a role writes in
 * it (authors, reviewers, readers); comments stay, an author may change theirs
 * for a short while, and authors and earlier participants are told.
 */
export async function thread(refdata: Refdata, about: Thread): Promise<CommentRow[]> {
  return refdata.db
    .selectFrom('comments')
    .selectAll()
    .$if('resource' in about, (select) =>
      select.where('resource_id', '=', (about as { resource: ResourceRow }).resource.id),
    )
    .$if('package' in about, (select) =>
      select.where('package_id', '=', (about as { package: PackageRow }).package.id),
    )
    .orderBy('id')
    .limit(THREAD_LENGTH)
    .execute();
}

/** Who hears of a new comment: the authors of what it is about, and who spoke before. */
async function listeners(refdata: Refdata, about: Thread, earlier: readonly CommentRow[]) {
  const authors =
    'resource' in about
      ? [about.resource.created_by]
      : [
          about.package.submitted_by,
          ...(await refdata.packages.items(about.package.id)).map((row) => row.created_by),
        ];
  return [...authors, ...earlier.map((comment) => comment.author)];
}

export async function addComment(
  refdata: Refdata,
  about: Thread,
  actor: Actor,
  text: string,
): Promise<CommentRow> {
  await refdata.notifications.noteRoles(actor.subject, actor.roles);
  const earlier = await thread(refdata, about);
  const recipients = await listeners(refdata, about, earlier);
  const what = 'resource' in about ? about.resource.name : `the package ${about.package.name}`;
  const link =
    'resource' in about
      ? pageLink(refdata, about.resource.iri)
      : packageLink(refdata, about.package.id);
  const name = await refdata.notifications.nameOf(actor.subject);
  let mailed = 0;
  const comment = await refdata.db.transaction().execute(async (trx) => {
    const comment = await trx
      .insertInto('comments')
      .values({
        resource_id: 'resource' in about ? about.resource.id : null,
        package_id: 'package' in about ? about.package.id : null,
        author: actor.subject,
        text,
        created_at: Date.now(),
        edited_at: null,
      })
      .returningAll()
      .executeTakeFirstOrThrow();
    mailed = await refdata.notifications.tell(trx, recipients, {
      event: 'commented',
      actor: actor.subject,
      iri: 'resource' in about ? about.resource.iri : undefined,
      packageId: 'package' in about ? about.package.id : undefined,
      title: `New comment on ${what}`,
      text: `${name} wrote on ${what}:\n\n${text}`,
      link: `${link}#comment-${comment.id}`,
    });
    return comment;
  });
  // Mail queued here is sent at once, not at the sender's next look.
  if (mailed > 0) refdata.mailer.wake();
  return comment;
}

/** A comment's new text, by its author within the edit window; 403 otherwise. */
export async function editComment(
  refdata: Refdata,
  id: number,
  subject: string,
  text: string,
  now = Date.now(),
): Promise<CommentRow> {
  const comment = await refdata.db
    .selectFrom('comments')
    .selectAll()
    .where('id', '=', id)
    .executeTakeFirst();
  if (!comment) throw new HttpError(problem(404, 'not-found', `There is no comment ${id}.`));
  checkEditable(comment, subject, now);
  const changed = await refdata.db
    .updateTable('comments')
    .set({ text, edited_at: now })
    .where('id', '=', id)
    .where('author', '=', subject)
    .returningAll()
    .executeTakeFirstOrThrow();
  return changed;
}

/** Whether `subject` may change `comment` now: its author, within the edit window; 403 otherwise. */
export function checkEditable(comment: CommentRow, subject: string, now = Date.now()): void {
  if (comment.author !== subject)
    throw new HttpError(
      problem(403, 'comment-locked', 'Only its author changes a comment.', {
        title: 'The comment can no longer be changed',
      }),
    );
  const until = Number(comment.created_at) + EDIT_WINDOW_MS;
  if (now > until)
    throw new HttpError(
      problem(
        403,
        'comment-locked',
        `A comment can be changed for ${EDIT_WINDOW_MS / 60_000} minutes after it was written; write another one instead.`,
        { title: 'The comment can no longer be changed' },
      ),
    );
}
