import { readAsset } from '../../../platform/web/assets.js';
import { html, type Markup } from '../../../platform/web/html.js';
import type { Family } from '../../families/family.js';
import type { TreeNode } from '../../resources/hierarchy.js';
import { pageHref, statusLabel } from '../links.js';
import type { Pages } from '../pages.js';

/** The script that opens a tree's levels as they are asked for; the tree works without it. */
export const TREE_SCRIPT_PATH = '/assets/refdata-tree.js';
export const TREE_SCRIPT = readAsset(new URL('../assets/tree.js', import.meta.url));

/** Where a level of the tree is fetched from: the subclasses of `iri`, as a list. */
export function subtreeAddress(iri: string): string {
  return `/hierarchy/subclasses?${new URLSearchParams({ iri }).toString()}`;
}

/**
 * Whether a family's resources are classes in a tree: they have superclasses
 * (`subClassOf`, `superEntity`) and are not an aggregate (a picklist is a list
 * of values, whose `subClassOf` says what kind of list it is).
 */
export function makesTrees(family: Family): boolean {
  const fields = family.schema.properties as Record<string, unknown>;
  return ('subClassOf' in fields || 'superEntity' in fields) && family.aggregate === undefined;
}

/**
 * A class in a tree: its link, and when it has subclasses a `<details>` that
 * opens to them. The script fetches the level when it is opened; without
 * script, the opened `<details>` links to the class's page, which lists them.
 */
export function treeNode(pages: Pages, node: TreeNode, namesakes = false): Markup {
  const href = pageHref(pages.refdata, node.iri) ?? node.iri;
  // Two classes of one name side by side (CFIHOS's equipment and tag roots are both
  // "class") say what tells them apart.
  const which = namesakes
    ? html` <span class="hint">(${node.scope || pages.refdata.families.labelOf(node.family)})</span>`
    : html``;
  const link = html`<a href="${href}">${node.name}</a>${which}${
    node.status === 'Approved'
      ? html``
      : html` <span class="status status-${node.status}">${statusLabel(node.status)}</span>`
  }`;
  if (node.subclasses === 0) return html`<li>${link}</li>`;
  const count = `${node.subclasses} ${node.subclasses === 1 ? 'subclass' : 'subclasses'}`;
  // The toggle is its own control beside the link (a link inside a summary is
  // two controls in one, which keyboards and screen readers cannot tell apart).
  return html`<li>${link} <details class="subtree" data-subtree="${subtreeAddress(node.iri)}"><summary>${count}<span class="visually-hidden"> of ${node.name}</span></summary><p class="subtree-link"><a href="${href}#subclasses">Show the ${count} of ${node.name}</a></p></details></li>`;
}

/** A level of a tree: its classes, and how many more there are than it lists. */
export function treeLevel(
  pages: Pages,
  level: { nodes: TreeNode[]; total: number },
  id?: string,
): Markup {
  const more = level.total - level.nodes.length;
  const named = new Map<string, number>();
  for (const node of level.nodes) named.set(node.name, (named.get(node.name) ?? 0) + 1);
  return html`<ul class="tree"${id ? html` id="${id}"` : html``}>${level.nodes.map((node) => treeNode(pages, node, (named.get(node.name) ?? 0) > 1))}${
    more > 0
      ? html`<li class="hint">and ${more} more: search this library to find them</li>`
      : html``
  }</ul>`;
}
