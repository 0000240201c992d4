import type { RouteOptions } from 'fastify';
import type { ApiSecurity, SecurityRequirement } from '../../platform/http/openapi.js';
import type { RefdataSettings } from '../config.js';

/**
 * refdata's API security for its description: a bearer JWT on every route
 * that declares its `access` (read from the route's config, as the one access
 * check reads it, so the description follows the code); where visitors may
 * read too, no token is one of the ways. With REFDATA_JWKS_URL the tokens come from another identity
 * provider, which is then described as the OpenID Connect scheme it is.
 */
export function refdataApiSecurity(settings: RefdataSettings): ApiSecurity {
  const tokens = settings.tokens;
  const provider = tokens.jwksUrl ? tokens.issuer.replace(/\/+$/, '') : undefined;
  return {
    schemes: {
      bearer: {
        type: 'http',
        scheme: 'bearer',
        bearerFormat: 'JWT',
        description: provider
          ? `An access token from ${provider} with a refdata role (Reader, Creator, Reviewer).`
          : 'An access token with refdata roles: `npm run cli -- refdata-token-mint <you> --roles=Creator,Reviewer` (docs/getting-started.md).',
      },
      ...(provider
        ? {
            openIdConnect: {
              type: 'openIdConnect',
              openIdConnectUrl: `${provider}/.well-known/openid-configuration`,
              description: 'Sign in at the identity provider that issues refdata tokens.',
            },
          }
        : {}),
    },
    requirementsOf: (route: RouteOptions): SecurityRequirement[] | undefined => {
      const access = route.config?.access;
      if (!access) return undefined;
      const tokens = (provider ? ['bearer', 'openIdConnect'] : ['bearer']).map((scheme) => ({
        [scheme]: [],
      }));
      return access.visitors && settings.web.anonymousRead ? [{}, ...tokens] : tokens;
    },
  };
}
