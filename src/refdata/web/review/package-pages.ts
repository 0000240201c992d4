import { createHash } from 'node:crypto';
import { Type } from '@sinclair/typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { HttpError } from '../../../platform/http/problem.js';
import type { HttpApp } from '../../../platform/http/server.js';
import { html, type Markup, timeTag } from '../../../platform/web/html.js';
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
/** A package holding more than this is shown family by family, each with a sample. */
const LISTED_WHOLE = 50;
/** Of each family, the overview shows this many; its own list pages by `PAGE_SIZE`. */
const SAMPLE = 5;
const PAGE_SIZE = 200;

const DONE = Type.Object(
  {
    family: Type.Optional(Type.String({ minLength: 1, maxLength: 100 })),
    page: Type.Optional(Type.Integer({ minimum: 1, maximum: 100_000 })),
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

/**
 * What the page showed waiting, each item at its version, as a fingerprint
 * the form carries back: a decision is taken on exactly that, however many.
 */
function itemsFingerprint(items: readonly ResourceRow[]): string {
  return createHash('sha256')
    .update(items.map((item) => `${item.id}:${item.version}`).join(','))
    .digest('base64url');
}

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
    const shown = items.filter((item) => !refdata.families.byKey(item.family)?.parentIri);
    return pages.answer(
      request,
      reply,
      status,
      { title: `Package: ${found.name}`, wide: true, notice: outcome?.notice },
      html`<p><span class="status" id="package-state">${STATE_WORDS[stateOf(counts)]}</span> <span class="hint">submitted by ${people.label(found.submitted_by)} ${timeTag(Number(found.submitted_at), now)}</span></p>
${holdings(shown, reviewer, people, request.query as { family?: string; page?: number }, found)}
<p id="package-quality">What the quality report finds: <a href="/quality?${new URLSearchParams({ library: found.library_key, view: 'working' }).toString()}">the library's report, Drafts and submitted resources included</a>.</p>
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
<input type="hidden" name="_items" value="${itemsFingerprint(waiting)}">
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

  const itemRow = (
    item: ResourceRow,
    reviewer: boolean,
    people: Awaited<ReturnType<Pages['people']['lookUp']>>,
  ) =>
    html`<tr><th scope="row"><a href="${pageHref(refdata, item.iri) ?? '/'}">${item.name}</a>${item.status === 'Submitted' && reviewer ? html` <a class="hint" href="/review/resource?iri=${encodeURIComponent(item.iri)}">Review it alone…</a>` : html``}</th><td data-label="Family">${refdata.families.labelOf(item.family)}</td><td data-label="Author">${people.label(item.created_by)}</td><td data-label="Status"><span class="status status-${item.status}">${statusLabel(item.status)}</span></td></tr>`;

  const itemsTable = (
    items: readonly ResourceRow[],
    caption: string,
    reviewer: boolean,
    people: Awaited<ReturnType<Pages['people']['lookUp']>>,
  ) =>
    html`<table class="stack" id="items"><caption>${caption}</caption><thead><tr class="head"><th scope="col">Resource</th><th scope="col">Family</th><th scope="col">Author</th><th scope="col">Status</th></tr></thead><tbody>${items.map((item) => itemRow(item, reviewer, people))}</tbody></table>`;

  /**
   * What a package holds: every item when it is small; else each family with
   * how many, how many wait, and a sample, so that thousands of imported
   * Drafts are read as what they are; one family's list a page at a time.
   */
  const holdings = (
    items: readonly ResourceRow[],
    reviewer: boolean,
    people: Awaited<ReturnType<Pages['people']['lookUp']>>,
    query: { family?: string; page?: number },
    found: PackageRow,
  ): Markup => {
    const base = `/review/packages/${String(found.id)}`;
    if (query.family !== undefined) {
      const ofFamily = items.filter((item) => item.family === query.family);
      const page = query.page ?? 1;
      const pageItems = ofFamily.slice((page - 1) * PAGE_SIZE, page * PAGE_SIZE);
      const label = refdata.families.labelOf(query.family);
      return html`<p><a href="${base}">Back to the whole package</a></p>
${itemsTable(pageItems, `${label}: ${ofFamily.length === 0 ? 'none in this package' : `${(page - 1) * PAGE_SIZE + 1} to ${(page - 1) * PAGE_SIZE + pageItems.length} of ${ofFamily.length.toLocaleString('en')}`}`, reviewer, people)}
${
  page * PAGE_SIZE < ofFamily.length
    ? html`<p><a href="${base}?${new URLSearchParams({ family: query.family, page: String(page + 1) }).toString()}">The next ${Math.min(PAGE_SIZE, ofFamily.length - page * PAGE_SIZE)}</a></p>`
    : html``
}`;
    }
    if (items.length <= LISTED_WHOLE) return itemsTable(items, 'What it holds', reviewer, people);
    const families = new Map<string, ResourceRow[]>();
    for (const item of items) {
      const ofFamily = families.get(item.family) ?? [];
      ofFamily.push(item);
      families.set(item.family, ofFamily);
    }
    return html`<table class="stack" id="families"><caption>What it holds: ${items.length.toLocaleString('en')} resources, by family</caption><thead><tr class="head"><th scope="col">Family</th><th scope="col">How many</th><th scope="col">Waiting</th><th scope="col">For example</th></tr></thead><tbody>${[
      ...families,
    ]
      .sort((a, b) => b[1].length - a[1].length)
      .map(([family, ofFamily]) => {
        const label = refdata.families.labelOf(family);
        return html`<tr><th scope="row"><a href="${base}?${new URLSearchParams({ family }).toString()}">${label}</a></th><td data-label="How many">${ofFamily.length.toLocaleString('en')}</td><td data-label="Waiting">${ofFamily.filter((item) => item.status === 'Submitted').length.toLocaleString('en')}</td><td data-label="For example">${ofFamily
          .slice(0, SAMPLE)
          .map(
            (item, index) =>
              html`${index > 0 ? ', ' : ''}<a href="${pageHref(refdata, item.iri) ?? '/'}">${item.name}</a>`,
          )}${ofFamily.length > SAMPLE ? html`, <a href="${base}?${new URLSearchParams({ family }).toString()}">all ${ofFamily.length.toLocaleString('en')}…</a>` : html``}</td></tr>`;
      })}</tbody></table>`;
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
      if (itemsFingerprint(waiting) !== shown) {
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
