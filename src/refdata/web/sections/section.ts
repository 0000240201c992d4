import type { FastifyRequest } from 'fastify';
import type { Markup } from '../../../platform/web/html.js';
import type { Status } from '../../db/tables.js';
import type { Family } from '../../families/family.js';
import type { ResourceRow } from '../../resources/rows.js';
import type { Pages } from '../pages.js';

/** The parts of a resource page's (declared, checked) query that sections read. */
export interface PageQuery {
  family?: string[];
  status?: string[];
  page?: number;
  done?: string;
  /** The language chosen on the page, if any. */
  lang?: string;
}

/** What a section of a resource page is given. */
export interface SectionContext {
  pages: Pages;
  request: FastifyRequest;
  row: ResourceRow;
  body: Record<string, unknown>;
  /** The page's query: which of a library's terms, and which page of them. */
  query: PageQuery;
  /** Which statuses the viewer may see (undefined: all, they are signed in). */
  visible: readonly Status[] | undefined;
  /** The language the page shows its resource's labels in (chosen or negotiated). */
  language: string;
}

/**
 * A part of a resource's page shown for some families (a library's terms, a
 * picklist's values, a block's drawing, what links here). A new one is a new
 * module and a line in the registry.
 */
export interface PageSection {
  /** Whether it is shown on the pages of this family; left out, it is shown on every page. */
  shownFor?(family: Family): boolean;
  /** `top`: under the title, before the status (a class's breadcrumbs); else after the definition. */
  placement?: 'top';
  render(context: SectionContext): Promise<Markup>;
}

/** `shownFor` of a section that belongs to these families. */
export function ofFamilies(...keys: string[]): (family: Family) => boolean {
  return (family) => keys.includes(family.key);
}
