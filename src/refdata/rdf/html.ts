import type { Quad } from 'n3';
import { escapeHtml } from '../../platform/web/html.js';
import type { ResourceRow } from '../resources/store.js';
import { NS, RDL_NAMESPACE } from './vocabulary.js';

export { escapeHtml };

/** How people see a status: Submitted is "Pending review", as on the platform. */
export function statusLabel(status: string): string {
  return status === 'Submitted' ? 'Pending review' : status;
}

function compact(iri: string): string {
  const namespaces: Record<string, string> = { ...NS, rdl: RDL_NAMESPACE };
  for (const [prefix, base] of Object.entries(namespaces)) {
    if (iri.startsWith(base)) return `${prefix}:${iri.slice(base.length)}`;
  }
  return iri;
}

/**
 * A page for people: the label, the status badge, the definition, and every
 * statement, with IRIs as links (ours to their own pages).
 */
export function resourcePage(
  row: ResourceRow,
  quads: readonly Quad[],
  iriBase: string,
  publicUrl: string,
): string {
  const body = JSON.parse(row.body) as { name?: string; description?: string };
  const link = (iri: string) => {
    const href = iri.startsWith(`${iriBase}/`)
      ? `${publicUrl}${iri.slice(iriBase.length)}`
      : iri.startsWith(RDL_NAMESPACE)
        ? `${publicUrl}/vocab#${iri.slice(RDL_NAMESPACE.length)}`
        : iri;
    // Only web addresses become links: a stored `javascript:` or `data:` IRI (or
    // any other scheme) is shown as text, never made clickable.
    if (!/^https?:\/\//i.test(href)) return `<code>${escapeHtml(compact(iri))}</code>`;
    return `<a href="${escapeHtml(href)}">${escapeHtml(compact(iri))}</a>`;
  };
  const rows = quads
    .filter((quad) => quad.subject.value === row.iri)
    .map((quad) => {
      const object =
        quad.object.termType === 'NamedNode'
          ? link(quad.object.value)
          : quad.object.termType === 'BlankNode'
            ? `<em>${escapeHtml(
                quads
                  .filter((inner) => inner.subject.equals(quad.object))
                  .map(
                    (inner) =>
                      `${compact(inner.predicate.value)} ${inner.object.termType === 'NamedNode' ? compact(inner.object.value) : inner.object.value}`,
                  )
                  .join('; '),
              )}</em>`
            : escapeHtml(quad.object.value);
      return `<tr><th>${link(quad.predicate.value)}</th><td>${object}</td></tr>`;
    })
    .join('\n');
  const status = statusLabel(row.status);
  return refdataPage(
    body.name ?? row.iri,
    `<h1 id="label">${escapeHtml(body.name ?? row.iri)}</h1>
<p><span id="status" class="status status-${escapeHtml(row.status)}">${escapeHtml(status)}</span> <code id="iri">${escapeHtml(row.iri)}</code></p>
${body.description ? `<p id="definition">${escapeHtml(body.description)}</p>` : ''}
<table id="statements">
${rows}
</table>`,
  );
}

/** A refdata page: the shared head and styles around `content` (already escaped HTML). */
export function refdataPage(title: string, content: string): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<link rel="icon" href="data:,">
<title>${escapeHtml(title)} · refdata</title>
<style>
body{font-family:system-ui,sans-serif;margin:2rem auto;max-width:60rem;padding:0 1rem;color:#222}
.status{display:inline-block;padding:.15rem .6rem;border-radius:1rem;font-size:.85rem;font-weight:600;background:#eee}
.status-Draft{background:#fff3cd}.status-Submitted{background:#dbeafe}.status-Approved{background:#dcfce7}
.status-Rejected,.status-Deprecated{background:#fde2e2}
table{border-collapse:collapse;width:100%}th,td{text-align:left;vertical-align:top;padding:.3rem;border-bottom:1px solid #ddd}
th{font-weight:500;width:16rem}code{word-break:break-all}code.term{word-break:normal;overflow-wrap:anywhere}tr:target{background:#fff3cd}
@media (max-width:40rem){th{width:auto}}
</style>
</head>
<body>
${content}
</body>
</html>`;
}
