import { Type } from '@sinclair/typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { HttpError } from '../../../platform/http/problem.js';
import type { HttpApp } from '../../../platform/http/server.js';
import { html, timeTag } from '../../../platform/web/html.js';
import { csrfField } from '../../../platform/web/layout.js';
import { READ_ROLES, REVIEW_ROLES } from '../../auth/roles.js';
import { problem } from '../../problem-codes.js';
import type { ResourceRow } from '../../resources/rows.js';
import { ownWork } from '../../review/authorship.js';
import { type Decision, decide } from '../../review/decisions.js';
import { unsettled } from '../../review/dependencies.js';
import { type PackageRow, stateOf } from '../../review/packages.js';
import { formFieldsOf } from '../authoring/form-fields.js';
import { pageHref, statusLabel } from '../links.js';
import type { Pages } from '../pages.js';
import { discussionSection } from './discussion.js';

const ID_PARAMS = Type.Object(
  { id: Type.Integer({ minimum: 1, maximum: 2 ** 31 - 1 }) },
  { additionalProperties: false },
);
const DONE = Type.Object(
  {
    done: Type.Optional(
      Type.Union([
        Type.Literal('approve'),
        Type.Literal('reject'),
        Type.Literal('request-changes'),
      ]),
    ),
  },
  { additionalProperties: false },
);

const DONE_WORDS: Record<Decision, string> = {
  approve: 'Approved: what waited in the package is published.',
  reject: 'Rejected, with your justification.',
  'request-changes': 'Sent back to its author with your request.',
};
const STATE_WORDS = {
  waiting: 'Waiting for review',
  'changes-requested': 'Changes requested: waiting for its author',
  decided: 'Decided',
} as const;

/** A decision the package page can take: what is waiting, not values (they move with their picklist). */
function waitingIn(pages: Pages, items: readonly ResourceRow[]): ResourceRow[] {
  return items.filter(
    (item) => item.status === 'Submitted' && !pages.refdata.families.byKey(item.family)?.parentIri,
  );
}

/**
 * A package as one queue item: what is in it and in which state, what its
 * items name outside it that is not approved yet, the decision on all that
 * waits at once (or a link to decide each), and its discussion.
 */
export function registerPackagePages(app: HttpApp, pages: Pages): void {
  const refdata = pages.refdata;

  const packagePage = async (
    request: FastifyRequest,
    reply: FastifyReply,
    found: PackageRow,
    status: number,
    outcome?: { notice: { kind: 'ok' | 'error'; text: string }; text?: string },
  ) => {
    const viewer = pages.viewerOf(request);
    const items = await refdata.packages.items(found.id);
    const counts: Record<string, number> = {};
    for (const item of items) counts[item.status] = (counts[item.status] ?? 0) + 1;
    const waiting = waitingIn(pages, items);
    const inside = new Set(items.map((item) => item.iri));
    const missing = (await unsettled(refdata, waiting)).filter(
      (named) => !inside.has(named.row.iri),
    );
    const reviewer = pages.holds(request, REVIEW_ROLES);
    const own =
      reviewer && viewer && refdata.review.fourEyes
        ? await ownWork(refdata, waiting, viewer.subject)
        : [];
    const people = await pages.people.lookUp([
      found.submitted_by,
      ...items.map((item) => item.created_by),
    ]);
    const session = await pages.ensureSession(request, reply);
    const now = Date.now();
    const discussion = await discussionSection(pages, request, reply, { package: found });
    return pages.answer(
      request,
      reply,
      status,
      { title: `Package: ${found.name}`, wide: true, notice: outcome?.notice },
      html`<p><span class="status" id="package-state">${STATE_WORDS[stateOf(counts)]}</span> <span class="hint">submitted by ${people.label(found.submitted_by)} ${timeTag(Number(found.submitted_at), now)}</span></p>
<table class="stack" id="items"><caption>What it holds</caption><thead><tr class="head"><th scope="col">Resource</th><th scope="col">Family</th><th scope="col">Author</th><th scope="col">Status</th></tr></thead><tbody>${items
        .filter((item) => !refdata.families.byKey(item.family)?.parentIri)
        .map(
          (item) =>
            html`<tr><th scope="row"><a href="${pageHref(refdata, item.iri) ?? '/'}">${item.name}</a>${item.status === 'Submitted' && reviewer ? html` <a class="hint" href="/review/resource?iri=${encodeURIComponent(item.iri)}">Review it alone…</a>` : html``}</th><td data-label="Family">${refdata.families.labelOf(item.family)}</td><td data-label="Author">${people.label(item.created_by)}</td><td data-label="Status"><span class="status status-${item.status}">${statusLabel(item.status)}</span></td></tr>`,
        )}</tbody></table>
${
  missing.length > 0
    ? html`<h2>What it names that is not approved</h2><p class="hint">An approval waits for these: approve them first, or have their author submit them into this package.</p><ul id="missing">${missing.map(
        (named) =>
          html`<li><a href="${pageHref(refdata, named.row.iri) ?? named.row.iri}">${named.row.name}</a> <span class="status status-${named.row.status}">${statusLabel(named.row.status)}</span> <span class="hint">named by ${items.find((item) => item.iri === named.by)?.name ?? named.by}</span></li>`,
      )}</ul>`
    : html``
}
${
  reviewer && waiting.length > 0
    ? html`<h2>Decision on everything waiting (${String(waiting.length)})</h2>
${
  own.length > 0
    ? html`<p class="notice error" id="four-eyes">You submitted or last changed ${own.length === 1 ? 'one of them' : `${own.length} of them`}: another Reviewer approves or rejects this package (four eyes). You can still ask for changes.</p>`
    : html``
}
<form method="post" action="/review/packages/${String(found.id)}" novalidate>${csrfField(session.data.csrf)}
<input type="hidden" name="_items" value="${waiting.map((item) => `${item.id}:${item.version}`).join(',')}">
<label for="decision-text">Justification, or what to change</label>
<textarea id="decision-text" name="text" rows="3" maxlength="2000" aria-describedby="decision-hint">${outcome?.text ?? ''}</textarea>
<p class="hint" id="decision-hint">Required; each author and the history see it.</p>
<p class="actions">${
        own.length === 0
          ? html`<button type="submit" name="decision" value="approve" class="primary">Approve all</button> <button type="submit" name="decision" value="reject" class="danger">Reject all</button> `
          : html``
      }<button type="submit" name="decision" value="request-changes">Request changes</button> <a href="/review">Back to the queue</a></p>
</form>`
    : html``
}
${discussion}`,
    );
  };

  const existing = async (id: number) => {
    const found = await refdata.packages.find(id);
    if (!found) throw new HttpError(problem(404, 'not-found', `There is no package ${id}.`));
    return found;
  };

  app.get(
    '/review/packages/:id',
    {
      config: { viewers: { roles: READ_ROLES, doing: 'Reading a package' } },
      schema: { params: ID_PARAMS, querystring: DONE },
    },
    async (request, reply) => {
      const done = request.query.done;
      return packagePage(
        request,
        reply,
        await existing(request.params.id),
        200,
        done ? { notice: { kind: 'ok', text: DONE_WORDS[done] } } : undefined,
      );
    },
  );

  app.post(
    '/review/packages/:id',
    {
      config: { viewers: { roles: REVIEW_ROLES, doing: 'Reviewing' } },
      schema: { params: ID_PARAMS },
    },
    async (request, reply) => {
      const viewer = pages.signedInViewer(request);
      const found = await existing(request.params.id);
      const fields = formFieldsOf(request.body);
      const decision = fields.get('decision');
      if (decision !== 'approve' && decision !== 'reject' && decision !== 'request-changes')
        throw new HttpError(
          problem(400, 'validation', 'Choose Approve, Reject or Request changes.'),
        );
      const text = (fields.get('text') ?? '').trim();
      if (text === '' || text.length > 2000) {
        return packagePage(request, reply, found, 422, {
          notice: {
            kind: 'error',
            text:
              text === ''
                ? 'Say why (or what to change): the text is required.'
                : 'The text is at most 2,000 characters.',
          },
          text,
        });
      }
      const waiting = waitingIn(pages, await refdata.packages.items(found.id));
      // What the page showed is what is decided: anything changed since is looked at again.
      const shown = fields.get('_items') ?? '';
      if (waiting.map((item) => `${item.id}:${item.version}`).join(',') !== shown) {
        return packagePage(request, reply, found, 409, {
          notice: {
            kind: 'error',
            text: 'The package changed since this page was opened; look again before deciding.',
          },
          text,
        });
      }
      try {
        await decide(refdata, waiting, decision, viewer, text);
      } catch (error) {
        if (!(error instanceof HttpError) || ![403, 409].includes(error.problem.status))
          throw error;
        return packagePage(request, reply, found, error.problem.status, {
          notice: { kind: 'error', text: error.problem.detail ?? error.problem.title },
          text,
        });
      }
      return reply.redirect(`/review/packages/${found.id}?done=${decision}`, 303);
    },
  );
}
