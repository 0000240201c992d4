import { type TSchema, Type } from '@sinclair/typebox';
import { oauthErrors } from '../api/described-responses.js';
import type { Codehost } from '../context.js';

/**
 * A form's parameters, each a single string; others are ignored (RFC 6749
 * section 3.2), and the handler says which are missing in OAuth's words.
 */
const formBody = (parameters: Record<string, string>) =>
  Type.Object(
    Object.fromEntries(
      Object.entries(parameters).map(([name, description]) => [
        name,
        Type.Optional(
          // RFC 8707 lets `resource` repeat; the endpoint answers two with invalid_target.
          name === 'resource'
            ? Type.Union([Type.String(), Type.Array(Type.String())], { description })
            : Type.String({ description }),
        ),
      ]),
    ),
    {
      additionalProperties: Type.String(),
      description: 'Form parameters (application/x-www-form-urlencoded; JSON is accepted too).',
    },
  );

/** How a client authenticates in the body (RFC 6749 section 2.3.1), or names itself. */
export const CLIENT_PARAMETERS = {
  client_id: 'The Application ID (or HTTP Basic authentication)',
  client_secret: 'The secret of a confidential client (or HTTP Basic authentication)',
};

const OAUTH_ERRORS = oauthErrors({
  400: 'invalid_request, invalid_grant, unsupported_grant_type, invalid_scope, ...',
  401: 'invalid_client (WWW-Authenticate: Basic)',
  413: 'The body is larger than the limit',
  415: 'The body is neither a form nor JSON',
  429: 'Too many requests from this address (Retry-After)',
});

/**
 * What the endpoints clients post forms to share (token, revocation,
 * introspection, device authorization): the credential rate limit, form bodies
 * and OAuth's error answers.
 */
export function formEndpoint(codehost: Codehost) {
  const rateLimit = {
    max: codehost.platform.security.credentialRequestsPerMinute,
    timeWindow: 60_000,
  };
  return <T extends TSchema>(
    summary: string,
    parameters: Record<string, string>,
    success: T,
    description: string,
  ) => ({
    config: { rateLimit },
    schema: {
      summary,
      tags: ['oauth'],
      consumes: ['application/x-www-form-urlencoded', 'application/json'],
      body: formBody(parameters),
      response: { 200: { ...success, description }, ...OAUTH_ERRORS },
    },
  });
}
