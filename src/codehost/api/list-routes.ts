import { type TObject, type TSchema, Type } from '@sinclair/typebox';
import type { FastifyRequest } from 'fastify';
import type { Codehost } from '../context.js';
import { authenticateApiRequest } from './authentication.js';
import { apiErrors, page } from './described-responses.js';
import { PAGE_PARAMETERS, pageOf } from './pagination.js';
import {
  booleanParameter,
  describedQuery,
  requestParameters,
  stringParameter,
} from './parameters.js';
import { containsText } from './queries.js';

/**
 * What GitLab's list endpoints (`/groups`, `/projects`) share: their page, their
 * `search` and `owned` parameters, how they are described, and what a handler
 * reads before it chooses its rows.
 */

/** The parameters every list reads: the page, `search` and `owned`, described for this list. */
export function listParameters(described: { search: string; owned: string }) {
  return {
    ...PAGE_PARAMETERS,
    search: Type.Optional(Type.String({ description: described.search })),
    owned: Type.Optional(Type.Boolean({ description: described.owned })),
  };
}

/** A list endpoint's options: a page of `item`, its parameters, its errors, the `api` scope. */
export function listRouteOptions(described: {
  summary: string;
  tags: string[];
  parameters: TObject;
  item: TSchema;
  page: string;
}) {
  return {
    schema: {
      summary: described.summary,
      tags: described.tags,
      ...describedQuery(described.parameters),
      response: {
        200: page(described.item, described.page),
        ...apiErrors(400, 401, 403),
      },
    },
    config: { apiScopes: ['api'] as const },
  };
}

/** What a list's handler reads first: the caller, the parameters, the page, `search` and `owned`. */
export async function listRequest(request: FastifyRequest, codehost: Codehost) {
  const { user } = await authenticateApiRequest(request, codehost);
  const parameters = requestParameters(request);
  return {
    user,
    parameters,
    page: pageOf(parameters),
    search: stringParameter(parameters, 'search'),
    owned: booleanParameter(parameters, 'owned') ?? false,
  };
}

/** `search` as GitLab's lists apply it: part of the name or of the path, in any case. */
export function nameOrPathContains(search: string) {
  return [containsText('name', search), containsText('path', search)];
}
