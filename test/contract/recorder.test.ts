/**
 * The contract check itself: it must catch what it exists to catch, or every
 * file's passing check would mean nothing.
 */
import { Type } from '@sinclair/typebox';
import type { FastifyReply } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ServiceDefinition } from '../../src/platform/service.js';
import { refdata } from '../../src/refdata/app.js';
import { startTestService, type TestService } from '../harness.js';
import { contractViolations, describedPath } from './recorder.js';

describe('contract check', () => {
  let service: TestService;
  beforeAll(async () => {
    service = await startTestService(refdata as ServiceDefinition, 'sqlite', {
      extend: (app) => {
        app.get('/test/contract/:kind', {
          schema: {
            params: Type.Object({ kind: Type.String() }),
            response: {
              // Untyped for the handler: it answers against its description on purpose.
              200: Type.Unsafe<unknown>(
                Type.Object({ count: Type.Integer() }, { additionalProperties: false }),
              ),
            },
          },
          handler: async (request, typedReply) => {
            const reply = typedReply as unknown as FastifyReply;
            const { kind } = request.params as { kind: string };
            if (kind === 'right') return { count: 3 };
            if (kind === 'wrong') return { count: 'three' };
            if (kind === 'teapot') return reply.status(418).send({ count: 3 });
            return reply.type('text/plain').send('three');
          },
        });
      },
    });
  });
  afterAll(() => service.close());

  it('writes paths as the description does', () => {
    expect(describedPath('/api/v4/projects/:id/members')).toBe('/api/v4/projects/{id}/members');
    expect(describedPath('/ontology/*')).toBe('/ontology/{*}');
  });

  it('passes a described answer and names each kind of gap', async () => {
    for (const kind of ['right', 'wrong', 'teapot', 'text'])
      await service.app.inject({ url: `/test/contract/${kind}` });
    // An unknown address is not an operation, and the description's own route is plumbing.
    await service.app.inject({ url: '/no/such/address' });
    await service.app.inject({ url: '/openapi.json' });
    // Taking the violations here also keeps them from failing this file afterwards.
    expect(contractViolations()).toEqual([
      'refdata GET /test/contract/{kind} 200: text/plain is not described',
      'refdata GET /test/contract/{kind} 200: the body does not match (/count must be integer)',
      'refdata GET /test/contract/{kind} 418: the status is not described',
    ]);
    await service.app.inject({ url: '/test/contract/right' });
    expect(contractViolations()).toEqual([]);
  });
});
