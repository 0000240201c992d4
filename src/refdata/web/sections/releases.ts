import { html, type Markup, timeTag } from '../../../platform/web/html.js';
import { LIBRARY_FAMILY } from '../../families/family.js';
import { PUBLISHED_STATUSES } from '../../lifecycle/views.js';
import { releasePath } from '../../releases/versions.js';
import { viewerMayRelease } from '../release-pages.js';
import { libraryDraftsOffer } from '../review/library-submission.js';
import { ofFamilies, type PageSection, type SectionContext } from './section.js';

/** The first line of release notes, for a list. */
function firstLine(notes: string): string {
  const line = notes.split('\n')[0] ?? '';
  return line.length > 140 ? `${line.slice(0, 139)}…` : line;
}

/**
 * A library's releases, the latest first, its quality report, and for a
 * Reviewer or the library's author the way to release it.
 */
export const libraryReleases: PageSection = {
  shownFor: ofFamilies(LIBRARY_FAMILY),
  async render({ pages, request, row }: SectionContext): Promise<Markup> {
    const { refdata } = pages;
    const releases = await refdata.releases.list(row.iri);
    const now = Date.now();
    const quality = `/quality?${new URLSearchParams({ library: row.iri })}`;
    // A release holds what is published: offered once something is, and
    // otherwise the way there said.
    const mayRelease = viewerMayRelease(pages, request, row);
    const published = mayRelease
      ? await refdata.store.countInLibrary(row.iri, PUBLISHED_STATUSES)
      : 0;
    const action = !mayRelease
      ? html``
      : published > 0
        ? html` <a class="button" href="/releases/new?${new URLSearchParams({ library: row.iri }).toString()}">Release it…</a>`
        : html` <span class="hint" id="nothing-to-release">Nothing here is Approved yet, so there is nothing to release: a release holds the library's Approved and Deprecated resources. Have its Drafts reviewed first.</span>`;
    return html`<h2 id="releases">Releases</h2>
${
  releases.length === 0
    ? html`<p>Not released yet.</p>`
    : html`<p><a href="${releasePath(refdata, `${row.iri}/releases/latest`)}">The latest release</a> always has this address.</p>
<ul class="releases">${releases.map(
        (release) =>
          html`<li><a href="${releasePath(refdata, release.iri)}">${release.version}</a>, ${timeTag(Number(release.released_at), now)}: ${firstLine(release.notes)}</li>`,
      )}</ul>`
}
${pages.viewerOf(request) ? html`<p><a href="${quality}">Quality report</a>${action}</p>` : html``}
${await libraryDraftsOffer(pages, request, row)}`;
  },
};
