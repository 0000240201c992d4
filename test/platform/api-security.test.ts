/**
 * Each service's description says how its operations authenticate, read from
 * the routes themselves: /docs gets a working Authorize, and a generated client
 * knows which calls need which credentials.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { codehost } from '../../src/codehost/app.js';
import type { ServiceDefinition } from '../../src/platform/service.js';
import { refdata } from '../../src/refdata/app.js';
import { startTestService, type TestService } from '../harness.js';

interface Operation {
  security?: Record<string, string[]>[];
  responses?: Record<string, { headers?: Record<string, unknown> }>;
}

/** The headers a status of an operation is described with. */
const headersOf = (description: Description, path: string, method: string, status: number) =>
  Object.keys(description.paths[path]?.[method]?.responses?.[status]?.headers ?? {});
interface Description {
  components: { securitySchemes: Record<string, Record<string, unknown>> };
  paths: Record<string, Record<string, Operation>>;
}

async function describeService(service: TestService): Promise<Description> {
  const response = await service.app.inject({ url: '/openapi.json' });
  expect(response.statusCode).toBe(200);
  return response.json() as Description;
}

describe('codehost: security in the API description', () => {
  let service: TestService;
  let description: Description;
  beforeAll(async () => {
    service = await startTestService(codehost as ServiceDefinition, 'sqlite');
    description = await describeService(service);
  });
  afterAll(() => service.app.close());

  it('names every way GitLab takes a token, and its own OAuth endpoints', () => {
    const publicUrl = service.config.services.codehost.publicUrl;
    const schemes = description.components.securitySchemes;
    expect(schemes.privateToken).toMatchObject({
      type: 'apiKey',
      in: 'header',
      name: 'PRIVATE-TOKEN',
    });
    expect(schemes.privateTokenParameter).toMatchObject({ in: 'query', name: 'private_token' });
    expect(schemes.accessTokenParameter).toMatchObject({ in: 'query', name: 'access_token' });
    expect(schemes.bearer).toMatchObject({ type: 'http', scheme: 'bearer' });
    expect(schemes.oauth2).toMatchObject({
      type: 'oauth2',
      flows: {
        authorizationCode: {
          authorizationUrl: `${publicUrl}/oauth/authorize`,
          tokenUrl: `${publicUrl}/oauth/token`,
          scopes: { api: expect.any(String), read_user: expect.any(String) },
        },
      },
    });
  });

  it('asks for a token with the scopes each API operation takes, and on nothing else', () => {
    const api = Object.entries(description.paths).filter(([path]) => path.startsWith('/api/'));
    expect(api.length).toBeGreaterThan(10);
    for (const [path, operations] of api) {
      // /user also admits a read_user token; everything else wants api.
      const scopes = path.endsWith('/user') ? ['api', 'read_user'] : ['api'];
      for (const [method, operation] of Object.entries(operations)) {
        expect(operation.security, `${method} ${path}`).toEqual(
          scopes.flatMap((scope) =>
            [
              'privateToken',
              'privateTokenParameter',
              'accessTokenParameter',
              'bearer',
              'oauth2',
            ].map((scheme) => ({ [scheme]: [scope] })),
          ),
        );
      }
    }
    expect(description.paths['/oauth/token']?.post?.security).toBeUndefined();
    // What a refused client acts on is described with the refusal.
    expect(headersOf(description, '/api/v4/user', 'get', 401)).toEqual(['www-authenticate']);
    expect(headersOf(description, '/oauth/token', 'post', 401)).toEqual(['www-authenticate']);
    expect(headersOf(description, '/oauth/token', 'post', 429)).toEqual(['retry-after']);
    expect(description.paths['/-/health']?.get?.security).toBeUndefined();
  });

  it('lets the docs page sign in with PKCE', async () => {
    const initializer = await service.app.inject({ url: '/docs/static/swagger-initializer.js' });
    expect(initializer.statusCode).toBe(200);
    expect(initializer.body).toContain('usePkceWithAuthorizationCodeGrant');
  });
});

describe('refdata: security in the API description', () => {
  let service: TestService;
  let description: Description;
  beforeAll(async () => {
    service = await startTestService(refdata as ServiceDefinition, 'sqlite');
    description = await describeService(service);
  });
  afterAll(() => service.app.close());

  it('describes the headers a refused client acts on', () => {
    expect(headersOf(description, '/rdl/terms/subclass', 'post', 401)).toEqual([
      'www-authenticate',
    ]);
    expect(headersOf(description, '/search/search-index', 'get', 503)).toEqual(['retry-after']);
  });

  it('describes its bearer JWT, and the routes guarded by a role check need it', () => {
    expect(description.components.securitySchemes.bearer).toMatchObject({
      type: 'http',
      scheme: 'bearer',
      bearerFormat: 'JWT',
    });
    // Without REFDATA_JWKS_URL there is no other provider to describe.
    expect(description.components.securitySchemes.openIdConnect).toBeUndefined();
    expect(description.paths['/rdl/terms/subclass']?.post?.security).toEqual([{ bearer: [] }]);
    expect(description.paths['/status/approve']?.put?.security).toEqual([{ bearer: [] }]);
    expect(description.paths['/-/health']?.get?.security).toBeUndefined();
    expect(description.paths['/.well-known/jwks.json']?.get?.security).toBeUndefined();
  });

  it('describes the identity provider when tokens come from one', async () => {
    const other = await startTestService(refdata as ServiceDefinition, 'sqlite', {
      env: {
        REFDATA_JWKS_URL: 'https://login.example.org/keys',
        REFDATA_TOKEN_ISSUER: 'https://login.example.org/',
      },
    });
    try {
      const described = await describeService(other);
      expect(described.components.securitySchemes.openIdConnect).toEqual({
        type: 'openIdConnect',
        openIdConnectUrl: 'https://login.example.org/.well-known/openid-configuration',
        description: expect.any(String),
      });
      expect(described.paths['/rdl/terms/subclass']?.post?.security).toEqual([
        { bearer: [] },
        { openIdConnect: [] },
      ]);
    } finally {
      await other.app.close();
    }
  });
});
