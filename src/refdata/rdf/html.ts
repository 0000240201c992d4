import type { Quad, Term } from 'n3';
import { readAsset } from '../../platform/web/assets.js';
import { escapeHtml, html, trusted } from '../../platform/web/html.js';
import { frame } from '../../platform/web/layout.js';
import type { ResourceRow } from '../resources/rows.js';
import { NS, RDL_NAMESPACE } from './vocabulary.js';

export { escapeHtml };

/** How people see a status: Submitted is "Pending review", as on the platform. */
export function statusLabel(status: string): string {
  if (status === 'Submitted') return 'Pending review';
  if (status === 'ExternallyManaged') return 'Externally managed';
  return status;
}

/** An IRI by a known prefix (`xsd:string`), else whole. */
export function compactIri(iri: string): string {
  const namespaces: Record<string, string> = { ...NS, rdl: RDL_NAMESPACE };
  for (const [prefix, base] of Object.entries(namespaces)) {
    if (iri.startsWith(base)) return `${prefix}:${iri.slice(base.length)}`;
  }
  return iri;
}

/**
 * Every statement about the resource as a table, IRIs as links (ours to their
 * own pages); blank nodes (qualified cardinalities, connection points) shown
 * inline. Escaped HTML, for a page's body.
 */
export function statementsTable(
  row: ResourceRow,
  quads: readonly Quad[],
  iriBase: string,
  publicUrl: string,
): string {
  const link = (iri: string) => {
    const href = iri.startsWith(`${iriBase}/`)
      ? `${publicUrl}${iri.slice(iriBase.length)}`
      : iri.startsWith(RDL_NAMESPACE)
        ? `${publicUrl}/vocab#${iri.slice(RDL_NAMESPACE.length)}`
        : iri;
    // Only web addresses become links: a stored `javascript:` or `data:` IRI (or
    // any other scheme) is shown as text, never made clickable.
    if (!/^https?:\/\//i.test(href)) return `<code>${escapeHtml(compactIri(iri))}</code>`;
    return `<a href="${escapeHtml(href)}">${escapeHtml(compactIri(iri))}</a>`;
  };
  const rows = quads
    .filter((quad) => quad.subject.value === row.iri)
    .map((quad) => {
      const object =
        quad.object.termType === 'NamedNode'
          ? link(quad.object.value)
          : quad.object.termType === 'BlankNode'
            ? `<em>${escapeHtml(describeBlankNode(quad.object, quads, new Set()))}</em>`
            : escapeHtml(quad.object.value);
      return `<tr><th scope="row">${link(quad.predicate.value)}</th><td>${object}</td></tr>`;
    })
    .join('\n');
  return `<table id="statements">\n${rows}\n</table>`;
}

/**
 * A blank node as what it says, Turtle-like: `sh:path imf:hasTerminal;
 * sh:qualifiedValueShape [sh:class x]`. Nested ones are written inside
 * brackets, never by their generated labels (`n3-73`), which mean nothing to a
 * reader and change with every request.
 */
function describeBlankNode(node: Term, quads: readonly Quad[], seen: Set<string>): string {
  if (seen.has(node.value)) return '[…]';
  seen.add(node.value);
  return quads
    .filter((inner) => inner.subject.equals(node))
    .map((inner) => {
      const object = inner.object;
      const value =
        object.termType === 'NamedNode'
          ? compactIri(object.value)
          : object.termType === 'BlankNode'
            ? `[${describeBlankNode(object, quads, seen)}]`
            : object.value;
      return `${compactIri(inner.predicate.value)} ${value}`;
    })
    .join('; ');
}

/**
 * The page of a resource for a client that asked the API for HTML (the web
 * pages serve browsers; see web/resource-pages.ts): label, status, IRI,
 * definition and statements, in the shared frame.
 */
export function resourcePage(
  row: ResourceRow,
  quads: readonly Quad[],
  iriBase: string,
  publicUrl: string,
): string {
  const body = JSON.parse(row.body) as { name?: string; description?: string };
  return refdataPage(
    body.name ?? row.iri,
    `<p><span id="status" class="status status-${escapeHtml(row.status)}">${escapeHtml(statusLabel(row.status))}</span> <code id="iri">${escapeHtml(row.iri)}</code></p>
${body.description ? `<p id="definition">${escapeHtml(body.description)}</p>` : ''}
${statementsTable(row, quads, iriBase, publicUrl)}`,
  );
}

/** A refdata page outside the web pages' sessions: the shared frame, a plain header. */
export function refdataPage(title: string, content: string): string {
  return frame(
    {
      service: 'refdata',
      title,
      header: html`<nav aria-label="Site"><a href="/">Libraries</a> <a href="/search">Search</a></nav>`,
      style: STATUS_STYLE,
      wide: true,
    },
    trusted(content),
  );
}

/** The colours of the status badges. */
export const STATUS_STYLE = readAsset(new URL('../web/assets/status.css', import.meta.url));
