import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { Type } from '@sinclair/typebox';
import { Parser, type Quad, type Term } from 'n3';
import { HttpError } from '../../platform/http/problem.js';
import type { HttpApp } from '../../platform/http/server.js';
import { readAsset } from '../../platform/web/assets.js';
import { html, type Markup } from '../../platform/web/html.js';
import { scrollRegion } from '../../platform/web/scroll-region.js';
import { READ_ROLES } from '../auth/roles.js';
import type { View } from '../lifecycle/views.js';
import { problem } from '../problem-codes.js';
import { ClientShares } from '../sparql/client-shares.js';
import { type Evaluation, evaluate } from '../sparql/evaluate.js';
import { compactIri, PLACEHOLDER, QUERY_EXAMPLES } from '../sparql/examples.js';
import type { JsonResults, JsonTerm } from '../sparql/external/results-writers.js';
import { pageHref } from './links.js';
import type { Pages } from './pages.js';

/** Rows a page shows; /sparql gives the rest. */
const SHOWN_ROWS = 500;

/** The editor (YASQE, from the npm registry), served from here: the policy allows no other origin. */
const require = createRequire(import.meta.url);
const YASQE_VERSION = (require('@zazuko/yasqe/package.json') as { version: string }).version;
const YASQE_SCRIPT = readFileSync(require.resolve('@zazuko/yasqe/build/yasqe.min.js'), 'utf8');
const YASQE_STYLE = readFileSync(require.resolve('@zazuko/yasqe/build/yasqe.min.css'), 'utf8');
const YASQE_SCRIPT_PATH = `/assets/yasqe-${YASQE_VERSION}.min.js`;
const YASQE_STYLE_PATH = `/assets/yasqe-${YASQE_VERSION}.min.css`;
const QUERY_SCRIPT_PATH = '/assets/refdata-query.js';
/** Turns the text box into the editor, once YASQE has loaded: the form works without either. */
const QUERY_SCRIPT = readAsset(new URL('./assets/query.js', import.meta.url));

const QueryPageParameters = Type.Object(
  {
    query: Type.Optional(Type.String({ maxLength: 65_536 })),
    view: Type.Optional(Type.Union([Type.Literal('published'), Type.Literal('working')])),
    example: Type.Optional(Type.Union(QUERY_EXAMPLES.map((example) => Type.Literal(example.key)))),
  },
  { additionalProperties: false },
);

/** A term of an answer: a link to its page, or to where it lives, or its text. */
function cell(pages: Pages, term: JsonTerm | Term | undefined): Markup {
  if (!term) return html``;
  const type = 'termType' in term ? term.termType : term.type;
  const value = term.value;
  if (type === 'uri' || type === 'NamedNode') {
    const ours = pageHref(pages.refdata, value);
    if (ours) return html`<a href="${ours}">${compactIri(value)}</a>`;
    // Only web addresses become links; any other scheme is shown as text.
    if (/^https?:\/\//i.test(value))
      return html`<a href="${value}" rel="nofollow noopener">${compactIri(value)}</a>`;
    return html`<span class="iri">${value}</span>`;
  }
  if (type === 'bnode' || type === 'BlankNode') return html`<span class="hint">_:${value}</span>`;
  const language = 'termType' in term ? (term as { language?: string }).language : term['xml:lang'];
  return html`${value}${language ? html` <span class="hint">@${language}</span>` : html``}`;
}

function table(caption: Markup, head: string[], rows: Markup[][]): Markup {
  // A region keyboards reach: an answer of literals alone has nothing else to focus in it.
  return scrollRegion(
    'Answer table',
    html`<table id="answer-table"><caption>${caption}</caption>
<thead><tr>${head.map((name) => html`<th scope="col">${name}</th>`)}</tr></thead>
<tbody>${rows.map((row) => html`<tr>${row.map((value) => html`<td>${value}</td>`)}</tr>`)}</tbody>
</table>`,
  );
}

function counted(total: number): Markup {
  if (total > SHOWN_ROWS)
    return html`The first ${SHOWN_ROWS} rows, and there are more: page through them with ORDER BY, LIMIT and OFFSET, or ask /sparql for them all.`;
  return html`${total} ${total === 1 ? 'row' : 'rows'}.`;
}

/** The answer as a table: solutions, a yes or no, or a graph's triples. */
function answerMarkup(pages: Pages, evaluation: Evaluation): Markup {
  if (evaluation.form === 'CONSTRUCT' || evaluation.form === 'DESCRIBE') {
    const quads: Quad[] = new Parser({ format: 'N-Triples' }).parse(evaluation.body);
    return table(
      counted(quads.length),
      ['Subject', 'Predicate', 'Object'],
      quads
        .slice(0, SHOWN_ROWS)
        .map((quad) => [
          cell(pages, quad.subject),
          cell(pages, quad.predicate),
          cell(pages, quad.object),
        ]),
    );
  }
  const results = JSON.parse(evaluation.body) as JsonResults;
  if (typeof results.boolean === 'boolean')
    return html`<p id="answer-boolean" class="boolean">${results.boolean ? 'Yes' : 'No'}: the pattern ${results.boolean ? 'matches' : 'matches nothing'}.</p>`;
  const names = results.head?.vars ?? [];
  const bindings = results.results?.bindings ?? [];
  return table(
    counted(bindings.length),
    names,
    bindings.slice(0, SHOWN_ROWS).map((binding) => names.map((name) => cell(pages, binding[name]))),
  );
}

/** The first `?seed` of an example's seed query on the published view, if the data has one. */
async function seedOf(pages: Pages, seed: string | undefined, client: string): Promise<string> {
  if (!seed) return PLACEHOLDER;
  try {
    const found = await evaluate(
      pages.refdata,
      seed,
      'published',
      undefined,
      'application/sparql-results+json',
      client,
    );
    const first = (JSON.parse(found.body) as JsonResults).results?.bindings?.[0]?.seed;
    return first?.type === 'uri' ? first.value : PLACEHOLDER;
  } catch {
    return PLACEHOLDER;
  }
}

/**
 * `/query`: a SPARQL query and its answer, on one page. The form works
 * without script (the query travels in the address, so an answer can be
 * shared); with it, the text box becomes an editor with highlighting. Each
 * example fills the box with a query about a resource the data holds.
 * Readers who are signed in may ask the working view.
 */
export function registerQueryPage(app: HttpApp, pages: Pages): void {
  const asset = (path: string, type: string, body: string) =>
    app.get(path, { schema: { hide: true } }, async (_request, reply) =>
      reply.type(type).header('cache-control', 'public, max-age=86400').send(body),
    );
  asset(YASQE_SCRIPT_PATH, 'text/javascript', YASQE_SCRIPT);
  asset(YASQE_STYLE_PATH, 'text/css', YASQE_STYLE);
  asset(QUERY_SCRIPT_PATH, 'text/javascript', QUERY_SCRIPT);

  app.get('/query', { schema: { querystring: QueryPageParameters } }, async (request, reply) => {
    const parameters = request.query;
    const reader = pages.holds(request, READ_ROLES);
    const view: View = parameters.view ?? 'published';
    const client = ClientShares.clientOf(request.ip, undefined);
    if (view === 'working' && !reader) {
      throw new HttpError(problem(403, 'forbidden', 'The working view is for signed-in readers.'));
    }
    const example = QUERY_EXAMPLES.find((candidate) => candidate.key === parameters.example);
    const text =
      parameters.query ??
      (example
        ? example.text(await seedOf(pages, example.seed, client))
        : (QUERY_EXAMPLES[0]?.text(await seedOf(pages, QUERY_EXAMPLES[0]?.seed, client)) ?? ''));
    let status = 200;
    let answer: Markup = html``;
    if (parameters.query !== undefined) {
      try {
        const evaluation = await evaluate(
          pages.refdata,
          parameters.query,
          view,
          undefined,
          'application/sparql-results+json, application/n-triples;q=0.9',
          client,
          // One more than is shown, to know there are more.
          SHOWN_ROWS + 1,
        );
        answer = html`<section aria-labelledby="answer-heading"><h2 id="answer-heading">Answer</h2>${answerMarkup(pages, evaluation)}</section>`;
      } catch (error) {
        if (!(error instanceof HttpError)) throw error;
        status = error.problem.status;
        answer = html`<section aria-labelledby="answer-heading"><h2 id="answer-heading">Answer</h2><p id="query-error" class="notice error" role="alert">${error.problem.detail ?? error.problem.title}</p></section>`;
      }
    }
    const viewField = reader
      ? html`<label for="query-view">View</label>
<select id="query-view" name="view">
  <option value="published"${view === 'published' ? html` selected` : html``}>Published: Approved and Deprecated</option>
  <option value="working"${view === 'working' ? html` selected` : html``}>Working: every status</option>
</select>`
      : html``;
    return pages.answer(
      request,
      reply,
      status,
      { title: 'SPARQL query', wide: true, scripts: [YASQE_SCRIPT_PATH, QUERY_SCRIPT_PATH] },
      html`<p>Ask the reference data with a <a href="https://www.w3.org/TR/sparql11-query/">SPARQL 1.1</a> query. Programs ask the same endpoint at <code>/sparql</code> (see <a href="/docs">the API documentation</a>). Each library is a named graph; the default graph is all of them.</p>
<form id="query-form" class="query-form" method="get" action="/query" data-style="${YASQE_STYLE_PATH}">
  <label for="query-text">Query</label>
  <textarea id="query-text" name="query" rows="14" spellcheck="false" autocapitalize="off" required>${text}</textarea>
  ${viewField}
  <p><button type="submit">Run query</button></p>
</form>
${answer}
<section aria-labelledby="examples-heading">
<h2 id="examples-heading">Examples</h2>
<ul class="examples">${QUERY_EXAMPLES.map(
        (candidate) =>
          html`<li><a href="/query?example=${candidate.key}">${candidate.title}</a>: ${candidate.description}</li>`,
      )}</ul>
</section>`,
    );
  });
}
