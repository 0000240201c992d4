import { createRemoteJWKSet, errors, jwtVerify } from 'jose';
import { HttpError } from '../../platform/http/problem.js';
import type { HttpApp } from '../../platform/http/server.js';
import { formField } from '../../platform/web/page-checks.js';
import type { IdentityProvider } from '../auth/identity-provider.js';
import { problems } from '../described-responses.js';
import { problem } from '../problem-codes.js';
import type { RefdataSessions } from './session.js';

export const BACKCHANNEL_LOGOUT_PATH = '/sign-in/backchannel-logout';
/** OpenID Connect Back-Channel Logout 1.0, section 2.4. */
const LOGOUT_EVENT = 'http://schemas.openid.net/event/backchannel-logout';
/** A logout token is a few hundred bytes; anything far larger is not one. */
const MAX_TOKEN_LENGTH = 16 * 1024;
/** Clock difference tolerated between the provider and here. */
const CLOCK_TOLERANCE_SECONDS = 60;

/** Who and which session a verified logout token names. */
export interface LogoutRequest {
  subject: string | undefined;
  sid: string | undefined;
}

function refused(detail: string): HttpError {
  return new HttpError(
    problem(400, 'invalid-logout-token', detail, { title: 'The logout token was not accepted' }),
  );
}

/**
 * The checks of section 2.6: the provider's signature (its keys and algorithms
 * from the discovery openid-client made), issuer, audience (this client),
 * issued and expiry times, the logout event, a subject or session, and no
 * nonce (so an ID token cannot pass for a logout token).
 */
export class LogoutTokenVerifier {
  private keys: ReturnType<typeof createRemoteJWKSet> | undefined;

  constructor(private readonly oidc: IdentityProvider) {}

  async verify(token: string): Promise<LogoutRequest> {
    const configuration = await this.oidc.discover();
    const metadata = configuration.serverMetadata();
    if (!metadata.jwks_uri)
      throw refused('The provider publishes no keys to check the token with.');
    this.keys ??= createRemoteJWKSet(new URL(metadata.jwks_uri));
    let payload: Record<string, unknown>;
    try {
      ({ payload } = await jwtVerify(token, this.keys, {
        issuer: metadata.issuer,
        audience: this.oidc.config.clientId,
        algorithms: metadata.id_token_signing_alg_values_supported ?? ['RS256'],
        requiredClaims: ['iat', 'jti'],
        clockTolerance: CLOCK_TOLERANCE_SECONDS,
      }));
    } catch (error) {
      if (error instanceof errors.JOSEError) {
        throw refused(`The token did not pass its checks: ${error.message}`);
      }
      throw error;
    }
    const events = payload.events;
    if (
      typeof events !== 'object' ||
      events === null ||
      typeof (events as Record<string, unknown>)[LOGOUT_EVENT] !== 'object'
    ) {
      throw refused('The token carries no back-channel logout event.');
    }
    if ('nonce' in payload) throw refused('A logout token has no nonce.');
    const subject = typeof payload.sub === 'string' ? payload.sub : undefined;
    const sid = typeof payload.sid === 'string' ? payload.sid : undefined;
    if (subject === undefined && sid === undefined) {
      throw refused('The token names neither a subject nor a session.');
    }
    return { subject, sid };
  }
}

/**
 * `POST /sign-in/backchannel-logout`, where the provider says a session ended
 * (OpenID Connect Back-Channel Logout 1.0, section 2.5): the sessions signed in
 * through it are ended here too, those of the session named by `sid`, or all
 * the subject's when the token names no session. Not a page: the provider's
 * server posts it, so it carries no form token, and refusals are 400 problems.
 */
export function registerBackchannelLogout(
  app: HttpApp,
  sessions: RefdataSessions,
  oidc: IdentityProvider,
): void {
  const verifier = new LogoutTokenVerifier(oidc);
  app.post(BACKCHANNEL_LOGOUT_PATH, {
    schema: {
      summary: 'End the sessions an OpenID Connect provider says have ended (back-channel logout)',
      tags: ['authentication'],
      consumes: ['application/x-www-form-urlencoded'],
      response: {
        200: { description: 'The sessions it named are ended (or there were none)', type: 'null' },
        ...problems(400, 413, 415),
      },
    },
    handler: async (request, reply) => {
      const token = formField(request.body, 'logout_token');
      if (token === '') throw refused('logout_token is missing.');
      if (token.length > MAX_TOKEN_LENGTH || !/^[\w-]+\.[\w-]+\.[\w-]+$/.test(token)) {
        throw refused('logout_token is not a signed JWT.');
      }
      const { subject, sid } = await verifier.verify(token);
      const issuer = oidc.config.issuer;
      const ended = await sessions.endMatching(
        subject === undefined ? 'anyone' : `${issuer}#${subject}`,
        (data) =>
          data.viewer?.via === 'oidc' &&
          data.viewer.subject.startsWith(`${issuer}#`) &&
          (sid === undefined || data.sid === sid),
      );
      request.log.info({ ended }, 'back-channel logout');
      return reply.header('cache-control', 'no-store').status(200).send();
    },
  });
}
