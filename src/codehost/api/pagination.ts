import { Type } from '@sinclair/typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { type SelectQueryBuilder, sql } from 'kysely';
import { badParameter } from './gitlab-errors.js';
import { integerParameter, type Parameters } from './parameters.js';

export interface Page {
  page: number;
  perPage: number;
}

export const MAX_PER_PAGE = 100;

/** What `pageOf` reads. */
export const PAGE_PARAMETERS = {
  page: Type.Optional(Type.Integer({ minimum: 1, description: 'Page number, from 1' })),
  per_page: Type.Optional(
    Type.Integer({
      minimum: 1,
      description: `Items per page: 20 unless given, at most ${MAX_PER_PAGE}`,
    }),
  ),
};

/** GitLab's `page` (from 1) and `per_page` (default 20, at most 100). */
export function pageOf(parameters: Parameters): Page {
  const page = integerParameter(parameters, 'page') ?? 1;
  const perPage = integerParameter(parameters, 'per_page') ?? 20;
  if (page < 1) throw badParameter('page does not have a valid value');
  if (perPage < 1) throw badParameter('per_page does not have a valid value');
  return { page, perPage: Math.min(perPage, MAX_PER_PAGE) };
}

/**
 * GitLab's pagination headers, which its clients follow to fetch every page:
 * X-Total, X-Total-Pages, X-Per-Page, X-Page, X-Next-Page, X-Prev-Page and Link.
 */
export function paginationHeaders(
  request: FastifyRequest,
  reply: FastifyReply,
  publicUrl: string,
  { page, perPage }: Page,
  total: number,
): void {
  const totalPages = Math.max(1, Math.ceil(total / perPage));
  const link = (target: number) => {
    const url = new URL(request.url, publicUrl);
    url.searchParams.set('page', String(target));
    url.searchParams.set('per_page', String(perPage));
    // Tokens never travel in links a client may log or follow elsewhere.
    url.searchParams.delete('private_token');
    url.searchParams.delete('access_token');
    return url.toString();
  };
  const links: string[] = [];
  if (page > 1) links.push(`<${link(Math.min(page - 1, totalPages))}>; rel="prev"`);
  if (page < totalPages) links.push(`<${link(page + 1)}>; rel="next"`);
  links.push(`<${link(1)}>; rel="first"`, `<${link(totalPages)}>; rel="last"`);
  reply.headers({
    'x-total': String(total),
    'x-total-pages': String(totalPages),
    'x-per-page': String(perPage),
    'x-page': String(page),
    'x-next-page': page < totalPages ? String(page + 1) : '',
    'x-prev-page': page > 1 ? String(Math.min(page - 1, totalPages)) : '',
    link: links.join(', '),
  });
}

/**
 * One page of a filtered list, as GitLab answers one: the total the filter lets
 * through, the page's rows in the order asked (ties broken by id in the same
 * direction, so pages neither skip nor repeat), and the pagination headers set.
 */
export async function listPage<DB, TB extends keyof DB>(
  request: FastifyRequest,
  reply: FastifyReply,
  publicUrl: string,
  page: Page,
  filtered: SelectQueryBuilder<DB, TB, object>,
  order: { column: string; sort: 'asc' | 'desc' },
) {
  const counted = await filtered
    .select(sql<number>`count(*)`.as('total'))
    .$castTo<{ total: number | string }>()
    .executeTakeFirstOrThrow();
  const rows = await filtered
    .selectAll()
    .orderBy(sql.ref(order.column), order.sort)
    .orderBy(sql.ref('id'), order.sort)
    .limit(page.perPage)
    .offset((page.page - 1) * page.perPage)
    .execute();
  paginationHeaders(request, reply, publicUrl, page, Number(counted.total));
  return rows;
}
