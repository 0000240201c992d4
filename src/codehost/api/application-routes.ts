import { Type } from '@sinclair/typebox';
import type { HttpApp } from '../../platform/http/server.js';
import type { Codehost } from '../context.js';
import { ApplicationError, type ApplicationRow, redirectUrisOf } from '../oauth/applications.js';
import { isScope, type Scope } from '../oauth/scopes.js';
import { RecordInvalid } from '../record-invalid.js';
import { authenticateApiRequest } from './authentication.js';
import { answer, apiErrors } from './described-responses.js';
import { badParameter, forbidden, gitlabError, recordInvalidError } from './gitlab-errors.js';
import {
  booleanParameter,
  describedBody,
  requestParameters,
  requiredString,
  stringParameter,
} from './parameters.js';
import { API_PREFIXES } from './user-routes.js';

/** An application's id in an address: numeric (anything else finds no application). */
const APPLICATION_ID = Type.Object({
  id: Type.String({ minLength: 1, maxLength: 20, description: 'The numeric id' }),
});

/** GitLab's application entity, and codehost's two settings beside it. */
const GitLabApplication = Type.Object({
  id: Type.Integer(),
  application_id: Type.String({ description: 'The client id' }),
  application_name: Type.String(),
  callback_url: Type.String({ description: 'The redirect URIs, one per line' }),
  confidential: Type.Boolean(),
  device_authorization_grant: Type.Boolean({ description: 'codehost: RFC 8628 is on' }),
  backchannel_logout_uri: Type.String({ description: "codehost: '' for none" }),
});

const GitLabApplicationWithSecret = Type.Composite([
  GitLabApplication,
  Type.Object({ secret: Type.String({ description: 'Shown here once, stored as a hash' }) }),
]);

const NewApplication = Type.Object({
  name: Type.String(),
  redirect_uri: Type.String({ description: 'One URI, or several separated by new lines' }),
  scopes: Type.String({ description: 'Space-separated, such as `api read_user openid`' }),
  confidential: Type.Optional(Type.Boolean({ description: 'true unless given' })),
  device_authorization_grant: Type.Optional(
    Type.Boolean({
      description: 'codehost: let devices sign in with RFC 8628 (false unless given)',
    }),
  ),
  backchannel_logout_uri: Type.Optional(
    Type.String({ description: 'codehost: where OpenID Connect logout tokens are posted' }),
  ),
});

/** The settings an update may change; those left out stay as they are. */
const ApplicationChanges = Type.Object({
  device_authorization_grant: Type.Optional(Type.Boolean()),
  backchannel_logout_uri: Type.Optional(Type.String()),
});

function applicationEntity(application: ApplicationRow) {
  return {
    id: application.id,
    application_id: application.uid,
    application_name: application.name,
    callback_url: redirectUrisOf(application).join('\n'),
    confidential: application.confidential === 1,
    device_authorization_grant: application.device_authorization_grant === 1,
    backchannel_logout_uri: application.backchannel_logout_uri,
  };
}

/** A refusal of the application's rules, as ActiveRecord words its validations. */
function invalid(error: ApplicationError) {
  return recordInvalidError(new RecordInvalid({ [error.field]: [error.message] }));
}

/** A required boolean parameter's value, or the default when it is left out. */
function flag(parameters: Readonly<Record<string, unknown>>, name: string, otherwise: boolean) {
  return booleanParameter(parameters, name) ?? otherwise;
}

/**
 * GitLab's Applications API (administrators only): create an application,
 * list, delete, renew its secret. codehost adds the application's device grant
 * and back-channel logout settings to what it takes and shows, and `PUT` to
 * change those two, which the page does too.
 */
export function registerApplicationRoutes(app: HttpApp, codehost: Codehost): void {
  const administrator = async (request: Parameters<typeof authenticateApiRequest>[0]) => {
    const { user } = await authenticateApiRequest(request, codehost);
    if (user.is_admin !== 1) throw forbidden();
    return user;
  };
  const owned = async (ownerId: number, id: string) => {
    const application = /^\d{1,10}$/.test(id)
      ? await codehost.applications.findOwned(ownerId, Number(id))
      : undefined;
    if (!application) throw gitlabError(404, '404 Application Not Found');
    return application;
  };

  for (const prefix of API_PREFIXES) {
    app.post(`${prefix}/applications`, {
      schema: {
        summary: 'Register an OAuth application (administrators)',
        tags: ['applications'],
        ...describedBody(NewApplication),
        response: {
          201: answer(GitLabApplicationWithSecret, 'The application, with its secret'),
          ...apiErrors(400, 401, 403, 413, 415),
        },
      },
      config: { apiScopes: ['api'] },
      handler: async (request, reply) => {
        const user = await administrator(request);
        const parameters = requestParameters(request);
        const name = requiredString(parameters, 'name');
        const redirectUris = requiredString(parameters, 'redirect_uri');
        const scopeNames = requiredString(parameters, 'scopes').split(/\s+/).filter(Boolean);
        if (!scopeNames.every(isScope)) throw badParameter('scopes does not have a valid value');
        try {
          const { application, secret } = await codehost.applications.create(user.id, {
            name,
            redirectUris,
            scopes: scopeNames as Scope[],
            confidential: flag(parameters, 'confidential', true),
            deviceAuthorizationGrant: flag(parameters, 'device_authorization_grant', false),
            backchannelLogoutUri: stringParameter(parameters, 'backchannel_logout_uri') ?? '',
          });
          return reply.status(201).send({ ...applicationEntity(application), secret });
        } catch (error) {
          if (error instanceof ApplicationError) throw invalid(error);
          throw error;
        }
      },
    });

    app.get(`${prefix}/applications`, {
      schema: {
        summary: "The caller's applications (administrators)",
        tags: ['applications'],
        response: {
          200: answer(Type.Array(GitLabApplication) as never, 'The applications'),
          ...apiErrors(401, 403),
        },
      },
      config: { apiScopes: ['api'] },
      handler: async (request) => {
        const user = await administrator(request);
        return (await codehost.applications.ownedBy(user.id)).map(applicationEntity);
      },
    });

    app.put(`${prefix}/applications/:id`, {
      schema: {
        summary: "Change an application's device grant or back-channel logout (codehost)",
        tags: ['applications'],
        params: APPLICATION_ID,
        ...describedBody(ApplicationChanges),
        response: {
          200: answer(GitLabApplication, 'The application as it is now'),
          ...apiErrors(400, 401, 403, 404, 413, 415),
        },
      },
      config: { apiScopes: ['api'] },
      handler: async (request) => {
        const user = await administrator(request);
        const application = await owned(user.id, request.params.id);
        const parameters = requestParameters(request);
        try {
          await codehost.applications.update(user.id, application.id, {
            name: application.name,
            redirectUris: redirectUrisOf(application).join('\n'),
            postLogoutRedirectUris: application.post_logout_redirect_uris,
            scopes: application.scopes.split(' ').filter(isScope),
            confidential: application.confidential === 1,
            deviceAuthorizationGrant: flag(
              parameters,
              'device_authorization_grant',
              application.device_authorization_grant === 1,
            ),
            backchannelLogoutUri:
              stringParameter(parameters, 'backchannel_logout_uri') ??
              application.backchannel_logout_uri,
            backchannelLogoutSessionRequired: application.backchannel_logout_session_required === 1,
          });
        } catch (error) {
          if (error instanceof ApplicationError) throw invalid(error);
          throw error;
        }
        return applicationEntity(await owned(user.id, request.params.id));
      },
    });

    app.delete(`${prefix}/applications/:id`, {
      schema: {
        summary: 'Delete an application, and every token it was given (administrators)',
        tags: ['applications'],
        params: APPLICATION_ID,
        response: {
          204: { description: 'Deleted', type: 'null' },
          ...apiErrors(400, 401, 403, 404),
        },
      },
      config: { apiScopes: ['api'] },
      handler: async (request, reply) => {
        const user = await administrator(request);
        const application = await owned(user.id, request.params.id);
        await codehost.applications.delete(user.id, application.id);
        return reply.status(204).send();
      },
    });

    app.post(`${prefix}/applications/:id/renew-secret`, {
      schema: {
        summary: "Renew an application's secret; the old one stops working (administrators)",
        tags: ['applications'],
        params: APPLICATION_ID,
        response: {
          200: answer(GitLabApplicationWithSecret, 'The application, with its new secret'),
          ...apiErrors(400, 401, 403, 404),
        },
      },
      config: { apiScopes: ['api'] },
      handler: async (request) => {
        const user = await administrator(request);
        const application = await owned(user.id, request.params.id);
        const secret = await codehost.applications.renewSecret(user.id, application.id);
        if (secret === undefined) throw gitlabError(404, '404 Application Not Found');
        return { ...applicationEntity(application), secret };
      },
    });
  }
}
