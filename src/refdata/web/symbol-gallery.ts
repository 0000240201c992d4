import { Type } from '@sinclair/typebox';
import { sql } from 'kysely';
import type { HttpApp } from '../../platform/http/server.js';
import { html, trusted } from '../../platform/web/html.js';
import type { Status } from '../db/tables.js';
import { renderSymbol } from '../symbols/render.js';
import { defaultStatuses, pageHref, statusLabel, visibleStatuses } from './links.js';
import type { Pages } from './pages.js';

const PAGE_SIZE = 48;

/** `/symbols`: the engineering symbols as a gallery of their drawings, a page at a time. */
export function registerSymbolGallery(app: HttpApp, pages: Pages): void {
  const { refdata } = pages;
  const querystring = Type.Object(
    {
      page: Type.Optional(Type.Integer({ minimum: 1, maximum: 100000 })),
      // Visitors are not shown Rejected symbols unless they ask for them.
      rejected: Type.Optional(Type.Literal('include')),
    },
    { additionalProperties: false },
  );
  app.get('/symbols', { schema: { querystring } }, async (request, reply) => {
    const page = request.query.page ?? 1;
    const signedIn = pages.viewerOf(request) !== undefined;
    const including = request.query.rejected === 'include';
    const visible = including ? visibleStatuses(signedIn) : defaultStatuses(signedIn);
    const rejectedCount = signedIn
      ? 0
      : Number(
          (
            await refdata.db
              .selectFrom('resources')
              .select(sql<number>`count(*)`.as('n'))
              .where('family', '=', 'symbol')
              .where('status', '=', 'Rejected')
              .executeTakeFirst()
          )?.n ?? 0,
        );
    const pageAddress = (n: number) =>
      `/symbols?${new URLSearchParams({ ...(n > 1 ? { page: String(n) } : {}), ...(including ? { rejected: 'include' } : {}) }).toString()}`;
    const base = refdata.db
      .selectFrom('resources')
      .where('family', '=', 'symbol')
      .$if(visible !== undefined, (select) =>
        select.where('status', 'in', (visible ?? []) as Status[]),
      );
    const total = Number(
      (await base.select(sql<number>`count(*)`.as('n')).executeTakeFirst())?.n ?? 0,
    );
    const symbols = await base
      .selectAll()
      .orderBy('name_normalized')
      .orderBy('id')
      .limit(PAGE_SIZE)
      .offset((page - 1) * PAGE_SIZE)
      .execute();
    const last = Math.max(1, Math.ceil(total / PAGE_SIZE));
    return pages.answer(
      request,
      reply,
      200,
      { title: 'Engineering symbols', wide: true },
      html`<p>${total} ${total === 1 ? 'symbol' : 'symbols'}${last > 1 ? html`, page ${page} of ${last}` : html``}.</p>
${
  rejectedCount > 0
    ? html`<form method="get" action="/symbols" id="rejected-choice"><label class="inline"><input type="checkbox" name="rejected" value="include"${including ? html` checked` : html``}> Include the ${rejectedCount} rejected ${rejectedCount === 1 ? 'symbol' : 'symbols'}</label> <button type="submit">Show</button></form>`
    : html``
}
<ul id="symbol-gallery" class="gallery">${symbols.map(
        (symbol) =>
          html`<li><a href="${pageHref(refdata, symbol.iri) ?? symbol.iri}"><span class="thumb" aria-hidden="true">${trusted(renderSymbol(symbol))}</span><span>${symbol.name}</span></a>${symbol.status === 'Approved' ? html`` : html` <span class="status status-${symbol.status}">${statusLabel(symbol.status)}</span>`}</li>`,
      )}</ul>
<nav aria-label="Pages of symbols" class="inline-list">${page > 1 ? html`<a rel="prev" href="${pageAddress(page - 1)}">Previous</a>` : html``}${page < last ? html`<a rel="next" href="${pageAddress(page + 1)}">Next</a>` : html``}</nav>`,
    );
  });
}
