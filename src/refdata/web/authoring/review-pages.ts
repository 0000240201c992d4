import { Type } from '@sinclair/typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { HttpError } from '../../../platform/http/problem.js';
import type { HttpApp } from '../../../platform/http/server.js';
import { html, type Markup, timeTag } from '../../../platform/web/html.js';
import { csrfField } from '../../../platform/web/layout.js';
import { REVIEW_ROLES } from '../../auth/roles.js';
import { checkMovesAlone } from '../../lifecycle/steps.js';
import { problem } from '../../problem-codes.js';
import { qualityReport } from '../../quality/report.js';
import { changesBetween } from '../../resources/field-changes.js';
import { IRI_QUERY, notFound } from '../../resources/lookup.js';
import type { ResourceRow } from '../../resources/rows.js';
import { ownWork } from '../../review/authorship.js';
import { decide, familyCounts } from '../../review/decisions.js';
import { historyList } from '../history.js';
import { pageHref, statusLabel } from '../links.js';
import type { Pages } from '../pages.js';
import { findingsTable } from '../quality-pages.js';
import { discussionSection } from '../review/discussion.js';
import { dependenciesOf, dependencyLine } from './dependencies.js';
import { changesTable } from './diff.js';
import { formFieldsOf } from './form-fields.js';
import { resourceNames } from './references.js';

/** Who may see the pages for reviewing (checked by the surface). */
const REVIEWING = { roles: REVIEW_ROLES, doing: 'Reviewing' } as const;

const QUEUE_QUERY = Type.Object(
  {
    library: Type.Optional(Type.String({ maxLength: 2048 })),
    family: Type.Optional(Type.String({ maxLength: 100 })),
  },
  { additionalProperties: false },
);
/** The notice each decision leaves on the resource's page. */
const DONE_OF = {
  approve: 'approved',
  reject: 'rejected',
  'request-changes': 'changes-requested',
} as const;
/** How many Submitted resources the queue shows at once. */
const QUEUE_LENGTH = 200;

/**
 * The review: a queue of what waits (oldest first, by library and family), and
 * a page per resource with what changed, what it names and in which state, and
 * the decision with its required justification.
 */
export function registerReviewPages(app: HttpApp, pages: Pages): void {
  const refdata = pages.refdata;

  app.get(
    '/review',
    {
      config: { viewers: REVIEWING },
      schema: { querystring: QUEUE_QUERY },
    },
    async (request, reply) => {
      const query = request.query;
      const library = query.library || undefined;
      const family = query.family || undefined;
      const valueFamilies = refdata.families.all
        .filter((entry) => entry.parentIri !== undefined)
        .map((entry) => entry.key);
      // Packages are one queue item each, whatever they hold; a resource
      // submitted outside any package is one of its own.
      const [packages, alone, libraries] = await Promise.all([
        refdata.packages.list({ state: 'waiting', library }, QUEUE_LENGTH),
        refdata.store
          .selectListed()
          .where('r.status', '=', 'Submitted')
          .$if(library !== undefined, (select) =>
            select.where('r.library_key', '=', library as string),
          )
          .$if(family !== undefined, (select) => select.where('r.family', '=', family as string))
          .$if(valueFamilies.length > 0, (select) =>
            select.where('r.family', 'not in', valueFamilies),
          )
          .leftJoin('package_items as item', 'item.resource_id', 'r.id')
          .where('item.package_id', 'is', null)
          .orderBy('r.updated_at')
          .orderBy('r.id')
          .limit(QUEUE_LENGTH)
          .execute(),
        refdata.store.libraries(),
      ]);
      const waitingIn = await refdata.packages.waitingByFamily(
        packages.map((entry) => entry.id),
        valueFamilies,
      );
      const now = Date.now();
      const people = await pages.people.lookUp([
        ...packages.map((entry) => entry.submitted_by),
        ...alone.map((entry) => entry.updated_by),
      ]);
      type QueueItem = {
        at: number;
        by: string;
        library: string | null;
        count: number;
        name: Markup;
        families: Markup;
      };
      const queue: QueueItem[] = [
        ...packages.flatMap((entry): QueueItem[] => {
          const waiting = waitingIn.get(entry.id);
          if (!waiting || (family !== undefined && !waiting.families.has(family))) return [];
          const count = [...waiting.families.values()].reduce((sum, n) => sum + n, 0);
          const one = count === 1 && entry.name === waiting.first.name;
          return [
            {
              at: Number(entry.submitted_at),
              by: entry.submitted_by,
              library: entry.library,
              count,
              name: one
                ? html`<a href="/review/resource?iri=${encodeURIComponent(waiting.first.iri)}">${waiting.first.name}</a>`
                : html`<a href="/review/packages/${String(entry.id)}">${entry.name}</a> <span class="hint">package, ${count === 1 ? 'one waiting' : `${count.toLocaleString('en')} waiting`}</span>`,
              // What it holds, by family: a package is not the family of its first item.
              families: html`${familyCounts(refdata, waiting.families)}`,
            },
          ];
        }),
        ...alone.map(
          (entry): QueueItem => ({
            at: Number(entry.updated_at),
            by: entry.updated_by,
            library: entry.library,
            count: 1,
            name: html`<a href="/review/resource?iri=${encodeURIComponent(entry.iri)}">${entry.name}</a>`,
            families: html`${refdata.families.labelOf(entry.family)}`,
          }),
        ),
      ].sort((a, b) => a.at - b.at);
      const waitingCount = queue.reduce((sum, item) => sum + item.count, 0);
      const option = (value: string, label: string, chosen: string | undefined) =>
        html`<option value="${value}"${value === (chosen ?? '') ? html` selected` : html``}>${label}</option>`;
      return pages.answer(
        request,
        reply,
        200,
        { title: 'Review', wide: true },
        html`<form method="get" action="/review" class="facets">
<div><label for="queue-library">Library</label><select id="queue-library" name="library">${option('', 'Every library', library)}${libraries.map((entry) => option(entry.iri, entry.name, library))}</select></div>
<div><label for="queue-family">Family</label><select id="queue-family" name="family">${option('', 'Every family', family)}${refdata.families.all.map((entry) => option(entry.key, entry.label, family))}</select></div>
<p><button type="submit">Show</button></p>
</form>
<p id="queue-count">${waitingCount === 0 ? 'Nothing waits for review.' : `${waitingCount.toLocaleString('en')} waiting in ${queue.length === 1 ? 'one item' : `${queue.length} items`}, oldest first.`}</p>
${
  queue.length > 0
    ? html`<table class="stack" id="queue"><thead><tr class="head"><th scope="col">Package or resource</th><th scope="col">What it holds</th><th scope="col">Library</th><th scope="col">Submitted</th></tr></thead><tbody>${queue.map(
        (item) =>
          html`<tr><th scope="row">${item.name}</th><td data-label="What it holds">${item.families}</td><td data-label="Library">${item.library ?? ''}</td><td data-label="Submitted">by ${people.label(item.by)} ${timeTag(item.at, now)}</td></tr>`,
      )}</tbody></table>`
    : html``
}`,
      );
    },
  );

  const submitted = async (iri: string): Promise<ResourceRow> => {
    const row = await refdata.store.findByIri(iri);
    if (!row) throw notFound(iri);
    if (row.status !== 'Submitted')
      throw new HttpError(
        problem(
          409,
          'wrong-state',
          `${row.name} is ${row.status}; only a Submitted resource is reviewed.`,
        ),
      );
    checkMovesAlone(refdata, row);
    return row;
  };

  const reviewPage = async (
    request: FastifyRequest,
    reply: FastifyReply,
    row: ResourceRow,
    status: number,
    refused?: { justification: string; error: string },
  ) => {
    const body = JSON.parse(row.body) as Record<string, unknown>;
    const family = refdata.families.byKey(row.family);
    const children = family?.aggregate ? await refdata.store.childrenOf(row.iri) : [];
    const content = {
      ...body,
      ...(family?.aggregate
        ? { [family.aggregate.field]: children.map((child) => JSON.parse(child.body) as unknown) }
        : {}),
    };
    const replaced = row.replaces_iri ? await refdata.store.findByIri(row.replaces_iri) : undefined;
    const baseline = replaced ? (JSON.parse(replaced.body) as Record<string, unknown>) : {};
    const changes = changesBetween(baseline, content);
    const names = await resourceNames(
      refdata,
      changes.flatMap((change) => [change.before, change.after]),
    );
    const dependencies = await dependenciesOf(refdata, row);
    const unsettled = dependencies.filter((dependency) => dependency.status !== 'Approved');
    const history = await historyList(await refdata.store.revisions(row.id), pages.people);
    const withFacts = await refdata.store.findWithFacts(row.iri);
    const report = await qualityReport(refdata, {
      kind: 'resource',
      resource: withFacts ?? { ...row, justification: null, replaced_by: null },
    });
    const session = await pages.ensureSession(request, reply);
    const viewer = pages.viewerOf(request);
    const own =
      viewer && refdata.review.fourEyes ? await ownWork(refdata, [row], viewer.subject) : [];
    const packageId = (await refdata.packages.ofResources([row.id])).get(row.id);
    const discussion = await discussionSection(pages, request, reply, { resource: row });
    return pages.answer(
      request,
      reply,
      status,
      { title: `Review ${row.name}`, wide: true },
      html`<p><span class="status status-${row.status}">${statusLabel(row.status)}</span> <span class="hint">${refdata.families.labelOf(row.family)}</span> · <a href="${pageHref(refdata, row.iri) ?? '/'}">Its page</a>${packageId === undefined ? html`` : html` · <a href="/review/packages/${String(packageId)}">Its package</a>`}</p>
${
  replaced
    ? html`<p class="notice error" id="replaces">It replaces <a href="${pageHref(refdata, replaced.iri) ?? replaced.iri}">${replaced.name}</a> (${statusLabel(replaced.status)}).${replaced.status === 'Approved' ? ' Approving it deprecates that one.' : ''}</p>`
    : html``
}
<h2>Changes</h2>
${changesTable(
  changes,
  { before: replaced ? `${replaced.name} (approved)` : 'Before', after: 'Submitted' },
  replaced
    ? `What differs from ${replaced.name}, which it replaces`
    : 'Everything it says: nothing was approved before it',
  names,
)}
<h2>What it names</h2>
${
  dependencies.length === 0
    ? html`<p>Nothing of this service.</p>`
    : html`<ul class="dependencies" id="dependencies">${dependencies.map(
        (dependency) => html`<li>${dependencyLine(refdata, dependency)}</li>`,
      )}</ul>${
        unsettled.length > 0
          ? html`<p class="hint" id="unsettled">${unsettled.length === 1 ? 'One of them is' : `${unsettled.length} of them are`} not Approved yet.</p>`
          : html``
      }`
}
<h2>Quality</h2>
${findingsTable(pages, request, report, `What the quality report finds in ${row.name}`)}
<h2>History</h2>
${history}
<h2>Decision</h2>
${
  own.length > 0
    ? html`<p class="notice error" id="four-eyes">You ${own[0]?.why} it: another Reviewer approves or rejects it (four eyes). You can still ask for changes.</p>`
    : html``
}
<form method="post" action="/review/resource?iri=${encodeURIComponent(row.iri)}" novalidate>${csrfField(session.data.csrf)}
<input type="hidden" name="_version" value="${String(row.version)}">
<label for="justification">Justification, or what to change</label>
<textarea id="justification" name="justification" rows="3" maxlength="2000" aria-describedby="justification-hint${refused ? ' justification-error' : ''}"${refused ? html` aria-invalid="true"` : html``}>${refused?.justification ?? ''}</textarea>
<p class="hint" id="justification-hint">Required for every decision; the author and the history see it.</p>
${refused ? html`<p class="field-error" id="justification-error">${refused.error}</p>` : html``}
<p class="actions">${
        own.length === 0
          ? html`<button type="submit" name="decision" value="approve" class="primary">Approve</button> <button type="submit" name="decision" value="reject" class="danger">Reject</button> `
          : html``
      }<button type="submit" name="decision" value="request-changes">Request changes</button> <a href="/review">Back to the queue</a></p>
</form>
${discussion}`,
    );
  };

  app.get(
    '/review/resource',
    {
      config: { viewers: REVIEWING },
      schema: { querystring: IRI_QUERY },
    },
    async (request, reply) => {
      return reviewPage(request, reply, await submitted(request.query.iri), 200);
    },
  );

  app.post(
    '/review/resource',
    {
      config: { viewers: REVIEWING },
      schema: { querystring: IRI_QUERY },
    },
    async (request, reply) => {
      const viewer = pages.signedInViewer(request);
      const row = await submitted(request.query.iri);
      const fields = formFieldsOf(request.body);
      const justification = (fields.get('justification') ?? '').trim();
      const decision = fields.get('decision');
      if (decision !== 'approve' && decision !== 'reject' && decision !== 'request-changes')
        throw new HttpError(
          problem(400, 'validation', 'Choose Approve, Reject or Request changes.'),
        );
      if (justification === '' || justification.length > 2000) {
        return reviewPage(request, reply, row, 422, {
          justification: fields.get('justification') ?? '',
          error:
            justification === ''
              ? 'Justification is required: say why.'
              : 'Justification must be at most 2,000 characters.',
        });
      }
      if (fields.get('_version') !== String(row.version)) {
        return reviewPage(request, reply, row, 409, {
          justification,
          error: 'It changed since this page was opened; look again before deciding.',
        });
      }
      try {
        await decide(refdata, [row], decision, viewer, justification);
      } catch (error) {
        // Four eyes, or what it names not approved: said on the page, the text kept.
        if (!(error instanceof HttpError) || ![403, 409].includes(error.problem.status))
          throw error;
        return reviewPage(request, reply, row, error.problem.status, {
          justification,
          error: error.problem.detail ?? error.problem.title,
        });
      }
      return reply.redirect(`${pageHref(refdata, row.iri) ?? '/'}?done=${DONE_OF[decision]}`, 303);
    },
  );
}
