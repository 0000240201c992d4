import { html, type Markup } from '../../../platform/web/html.js';
import { subclassesOf } from '../../resources/hierarchy.js';
import { makesTrees, treeLevel } from '../hierarchy/tree.js';
import { defaultStatuses } from '../links.js';
import type { PageSection, SectionContext } from './section.js';

/** A class's subclasses, each opening to its own, as the library's tree draws them. */
export const subclasses: PageSection = {
  shownFor: makesTrees,
  async render({ pages, row, visible }: SectionContext): Promise<Markup> {
    const level = await subclassesOf(
      pages.refdata.db,
      row.iri,
      defaultStatuses(visible === undefined),
    );
    if (level.total === 0) return html``;
    return html`<h2 id="subclasses">Subclasses (${level.total})</h2>${treeLevel(pages, level, 'subclass-tree')}`;
  },
};
