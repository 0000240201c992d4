import type { FastifyRequest } from 'fastify';
import type { ApplicationRow, ApplicationStore } from './applications.js';
import { invalidClient, oauthError } from './errors.js';

export type ClientIdentity =
  /** No client named at all (the spec's password grant). */
  | { kind: 'none' }
  /** A public client named by `client_id`; it has no secret to prove. */
  | { kind: 'public'; application: ApplicationRow }
  /** A client that proved its secret. */
  | { kind: 'authenticated'; application: ApplicationRow };

/**
 * RFC 6749 section 2.3.1: HTTP Basic (id and secret form-encoded) or
 * `client_id`/`client_secret` in the body, never both at once. A confidential
 * client must prove its secret; a public one is named by `client_id` alone.
 */
export async function identifyClient(
  request: FastifyRequest,
  body: Record<string, string>,
  applications: ApplicationStore,
): Promise<ClientIdentity> {
  const header = request.headers.authorization;
  if (header !== undefined && /^basic\s/i.test(header)) {
    if (body.client_secret !== undefined) {
      throw oauthError(400, 'invalid_request', 'Use one client authentication method, not two.');
    }
    const credentials = parseBasic(header);
    if (!credentials) throw invalidClient('The Authorization header is malformed.');
    if (body.client_id !== undefined && body.client_id !== credentials.id) {
      throw oauthError(
        400,
        'invalid_request',
        'client_id does not match the authenticated client.',
      );
    }
    const application = await applications.authenticate(credentials.id, credentials.secret);
    if (!application) throw invalidClient();
    return { kind: 'authenticated', application };
  }
  if (body.client_id === undefined) {
    if (body.client_secret !== undefined) {
      throw oauthError(400, 'invalid_request', 'client_secret was sent without client_id.');
    }
    return { kind: 'none' };
  }
  if (body.client_secret !== undefined) {
    const application = await applications.authenticate(body.client_id, body.client_secret);
    if (!application) throw invalidClient();
    return { kind: 'authenticated', application };
  }
  const application = await applications.findByClientId(body.client_id);
  if (!application) throw invalidClient();
  if (application.confidential) {
    throw invalidClient('This client is confidential and must authenticate with its secret.');
  }
  return { kind: 'public', application };
}

function parseBasic(header: string): { id: string; secret: string } | undefined {
  const encoded = header.slice(6).trim();
  if (!/^[A-Za-z0-9+/]+=*$/.test(encoded)) return undefined;
  const decoded = Buffer.from(encoded, 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  if (colon < 0) return undefined;
  try {
    // The id and secret are form-encoded before being joined (section 2.3.1).
    const formDecode = (text: string) => decodeURIComponent(text.replaceAll('+', ' '));
    return {
      id: formDecode(decoded.slice(0, colon)),
      secret: formDecode(decoded.slice(colon + 1)),
    };
  } catch {
    return undefined;
  }
}

/**
 * The request's parameters as single strings. RFC 6749 section 3.2: a parameter
 * sent twice is invalid; values that are not text are too.
 */
export function singleValuedParameters(
  body: unknown,
  /** Parameters read on their own (RFC 8707's `resource` may repeat): left out here. */
  except: readonly string[] = [],
): Record<string, string> {
  if (body === undefined || body === null) return {};
  if (typeof body !== 'object' || Array.isArray(body)) {
    throw oauthError(400, 'invalid_request', 'The request body must hold form parameters.');
  }
  const parameters: Record<string, string> = {};
  for (const [name, value] of Object.entries(body)) {
    if (except.includes(name)) continue;
    if (Array.isArray(value)) {
      throw oauthError(400, 'invalid_request', `The parameter ${name} is repeated.`);
    }
    if (typeof value !== 'string') {
      throw oauthError(400, 'invalid_request', `The parameter ${name} must be a string.`);
    }
    if (value !== '') parameters[name] = value;
  }
  return parameters;
}
