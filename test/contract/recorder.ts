/**
 * The contract check: every response a test file's services give is held
 * against the API description of its operation and status. Services started by
 * the harness record what they send (`recordResponses`); after the file's tests,
 * `contractViolations` lists every answer the description does not cover: an
 * undocumented operation or status, a content type the status does not list, or
 * a JSON body its schema refuses.
 */
import { Ajv2020 } from 'ajv/dist/2020.js';
import type { HttpApp } from '../../src/platform/http/server.js';

interface Recorded {
  service: string;
  /** The description of the instance that answered: test families add operations. */
  description: Description;
  method: string;
  route: string;
  status: number;
  contentType: string;
  body: string | undefined;
}

interface MediaType {
  schema?: unknown;
}
interface Response {
  content?: Record<string, MediaType>;
}
interface Operation {
  responses?: Record<string, Response>;
}
interface Description {
  paths: Record<string, Record<string, Operation>>;
}

const recorded: Recorded[] = [];
const descriptions = new WeakMap<HttpApp, Description>();

/** Fastify's `/a/:id/*` as the description writes it: `/a/{id}/{*}`. */
export function describedPath(route: string): string {
  return route.replace(/:([A-Za-z0-9_]+)/g, '{$1}').replace(/\*/g, '{*}');
}

/** Bodies larger than this are checked for their status and type only. */
const CHECKED_BODY_BYTES = 256 * 1024;

export function recordResponses(app: HttpApp, service: string): void {
  app.addHook('onSend', async (request, reply, payload) => {
    const route = request.routeOptions.url;
    const schema = request.routeOptions.schema as { hide?: boolean } | undefined;
    // Unknown addresses and the description's own plumbing are not operations.
    if (route === undefined || schema?.hide) return payload;
    let description = descriptions.get(app);
    if (!description) {
      description = app.swagger() as Description;
      descriptions.set(app, description);
    }
    const body =
      typeof payload === 'string' && payload.length <= CHECKED_BODY_BYTES ? payload : undefined;
    recorded.push({
      service,
      description,
      method: request.method === 'HEAD' ? 'get' : request.method.toLowerCase(),
      route,
      status: reply.statusCode,
      contentType:
        String(reply.getHeader('content-type') ?? '')
          .split(';')[0]
          ?.trim() ?? '',
      body,
    });
    return payload;
  });
}

function pointer(...segments: string[]): string {
  return segments.map((segment) => segment.replace(/~/g, '~0').replace(/\//g, '~1')).join('/');
}

/** Each violation once, as `service METHOD path status: what is wrong`. */
export function contractViolations(): string[] {
  const violations = new Set<string>();
  const validators = new Map<Description, Ajv2020>();
  for (const answer of recorded.splice(0)) {
    const description = answer.description;
    const path = describedPath(answer.route);
    const key = `${answer.service} ${answer.method.toUpperCase()} ${path} ${answer.status}`;
    const operation = description.paths[path]?.[answer.method];
    if (!operation) {
      violations.add(`${key}: the operation is not described`);
      continue;
    }
    const status = String(answer.status);
    const responses = operation.responses ?? {};
    const documentedAs = [status, `${status[0]}XX`].find((code) => responses[code] !== undefined);
    const response = documentedAs ? responses[documentedAs] : undefined;
    if (!documentedAs || !response) {
      violations.add(`${key}: the status is not described`);
      continue;
    }
    if (!answer.body || answer.status === 204 || answer.status === 304) continue;
    const media = response.content?.[answer.contentType];
    if (!media) {
      violations.add(`${key}: ${answer.contentType || 'a body without a type'} is not described`);
      continue;
    }
    if (media.schema === undefined || !/json$/.test(answer.contentType)) continue;
    let ajv = validators.get(description);
    if (!ajv) {
      ajv = new Ajv2020({ strict: false, allErrors: false, validateFormats: false });
      ajv.addSchema(description, answer.service);
      validators.set(description, ajv);
    }
    const reference = `${answer.service}#/${pointer('paths', path, answer.method, 'responses', documentedAs, 'content', answer.contentType, 'schema')}`;
    const validate = ajv.getSchema(reference) ?? ajv.compile({ $ref: reference });
    let parsed: unknown;
    try {
      parsed = JSON.parse(answer.body);
    } catch {
      violations.add(`${key}: the body is not JSON`);
      continue;
    }
    if (!validate(parsed)) {
      const [error] = validate.errors ?? [];
      violations.add(`${key}: the body does not match (${error?.instancePath} ${error?.message})`);
    }
  }
  return [...violations].sort();
}
