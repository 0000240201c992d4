import type { FastifyReply, FastifyRequest } from 'fastify';
import type { HttpApp } from '../../platform/http/server.js';
import { html, type Markup } from '../../platform/web/html.js';
import { csrfField } from '../../platform/web/layout.js';
import { WRITE_ROLES } from '../auth/roles.js';
import { CFIHOS_CORE, cfihosCoreFiles } from '../cfihos/core-dataset.js';
import { LIBRARY_FAMILY } from '../families/family.js';
import { ImportRunning } from '../imports/jobs.js';
import { createDraft } from '../resources/authoring.js';
import { pageHref } from './links.js';
import type { Pages } from './pages.js';

const STARTING = { roles: WRITE_ROLES, doing: 'Starting from CFIHOS' } as const;
const START_PATH = '/start/cfihos';

/**
 * What an instance with no library yet says on its home page: what CFIHOS v2.0
 * Core gives (the classes, properties, picklists and units the forms ask
 * for), its licence, and for a Creator the button that imports it.
 */
export async function firstRunSection(
  pages: Pages,
  request: FastifyRequest,
  reply: FastifyReply,
): Promise<Markup> {
  const creator = pages.holds(request, WRITE_ROLES);
  const holds = CFIHOS_CORE.holds.map(
    ([what, count], index) =>
      html`${index === 0 ? '' : index === CFIHOS_CORE.holds.length - 1 ? ' and ' : ', '}${count.toLocaleString('en')} ${what}`,
  );
  const action = creator
    ? html`<form method="post" action="${START_PATH}">${csrfField((await pages.ensureSession(request, reply)).data.csrf)}<button type="submit" class="primary">Import CFIHOS v2.0 Core</button></form>
<p class="hint">It becomes the library <strong>${CFIHOS_CORE.name}</strong>, every resource a Draft of yours. The import takes about half a minute; its page shows how far it has got, then what it made and the few lines it refused. A Reviewer then approves the Drafts, and the library can be released.</p>`
    : pages.viewerOf(request)
      ? html`<p>A Creator can import it from this page.</p>`
      : html`<p><a href="/sign-in?return_to=%2F">Sign in</a> as a Creator to import it, or to make a library of your own.</p>`;
  return html`<section id="first-run" class="notice" aria-labelledby="first-run-heading">
<h2 id="first-run-heading">Start from CFIHOS v2.0 Core</h2>
<p>There is no library here yet. Classes, properties and picklists name other reference material (a property its unit dimension or picklist, a class its superclass and properties), so most people start from a published library: the <a href="${CFIHOS_CORE.source}">CFIHOS v2.0 Core</a> reference data library of IOGP JIP36, shipped with this service. It holds ${holds}, with the properties of each class.</p>
<p class="hint">Licence: © IOGP JIP36, <a href="${CFIHOS_CORE.licence}">Creative Commons Attribution 4.0</a>; the library's description carries the attribution, as the licence asks.</p>
${action}
</section>`;
}

/**
 * `POST /start/cfihos`: makes the library and imports the shipped files into
 * it as one job (valid lines only, as a first library should not stop at the
 * dozen lines of the published data that break a rule), then shows the job.
 */
export function registerFirstRun(app: HttpApp, pages: Pages): void {
  const { refdata } = pages;
  app.post(START_PATH, { config: { viewers: STARTING } }, async (request, reply) => {
    const viewer = pages.signedInViewer(request);
    const existing = await refdata.store.findByIri(
      `${refdata.iriBase}/ontology/${CFIHOS_CORE.path}`,
    );
    // Asked twice (a second tab, a reload), the library made first is the answer.
    if (existing) return reply.redirect(pageHref(refdata, existing.iri) ?? '/', 303);
    const family = refdata.families.byKey(LIBRARY_FAMILY);
    if (!family) throw new Error('The library family is not registered.');
    const library = await createDraft(
      refdata,
      family,
      {
        name: CFIHOS_CORE.name,
        path: CFIHOS_CORE.path,
        description: CFIHOS_CORE.attribution,
        changeJustification: 'The first library of this instance, from the files shipped with it.',
      },
      viewer.subject,
    );
    try {
      const job = await refdata.imports.create({
        library: library.iri,
        dryRun: false,
        mode: 'valid-only',
        encoding: undefined,
        owner: viewer.subject,
        files: await cfihosCoreFiles(),
      });
      refdata.imports.nudge();
      return reply.redirect(`/account/imports/${String(job.id)}`, 303);
    } catch (error) {
      if (!(error instanceof ImportRunning)) throw error;
      return reply.redirect(pageHref(refdata, library.iri) ?? '/', 303);
    }
  });
}
