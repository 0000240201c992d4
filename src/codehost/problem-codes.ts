import { problemCatalogue } from '../platform/http/problem.js';

/**
 * RFC 6749 section 5.2 and 4.1.2.1, RFC 6750 section 3.1, RFC 7009, RFC 8628,
 * RFC 8707 and RFC 7591 error codes.
 */
export const OAUTH_ERROR_CODES = [
  'invalid_request',
  'invalid_client',
  'invalid_grant',
  'unauthorized_client',
  'unsupported_grant_type',
  'invalid_scope',
  'access_denied',
  'unsupported_response_type',
  'server_error',
  'temporarily_unavailable',
  'invalid_token',
  'insufficient_scope',
  'unsupported_token_type',
  // RFC 8628 section 3.5: the device authorization grant's answers while polling.
  'authorization_pending',
  'slow_down',
  'expired_token',
  // RFC 8707 section 2: a resource the server does not know, or more than one.
  'invalid_target',
  // RFC 7591 section 3.2.2: registration metadata refused.
  'invalid_redirect_uri',
  'invalid_client_metadata',
] as const;
export type OAuthErrorCode = (typeof OAUTH_ERROR_CODES)[number];

/**
 * codehost's problem codes beside the platform's: OAuth's error codes, and the
 * API's (GitLab's messages); docs/errors.md lists every one.
 */
export const CODEHOST_PROBLEMS = problemCatalogue([
  ...OAUTH_ERROR_CODES,
  'unauthorized',
  'invalid-parameter',
  /** A message GitLab words exactly, sent as it is: `{"message": "404 Group Not Found"}`. */
  'gitlab-verbatim',
  /** ActiveRecord validation errors: `{"message": {"path": ["has already been taken"]}}`. */
  'gitlab-record-invalid',
]);

export type CodehostProblemCode = (typeof CODEHOST_PROBLEMS.codes)[number];
export const problem = CODEHOST_PROBLEMS.problem;
