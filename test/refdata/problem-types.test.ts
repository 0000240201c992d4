import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { refdataUnderTest } from '../error-shapes.js';
import { DATABASE_KINDS, startTestService, type TestService } from '../harness.js';

describe.each(DATABASE_KINDS)('refdata problem types on %s', (kind) => {
  let service: TestService;
  beforeAll(async () => {
    service = await startTestService(refdataUnderTest.definition, kind);
  });
  afterAll(async () => service?.close());

  it('describes each problem type it uses at the type URI', async () => {
    const response = await service.app.inject({ url: '/problems/validation' });
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual({
      type: `${service.config.services.refdata.publicUrl}/problems/validation`,
      title: 'Invalid request',
      description: expect.stringContaining('errors'),
    });
  });

  it('answers an unknown or oversized problem type with 404 or 400 Problem Details', async () => {
    refdataUnderTest.expectError(await service.app.inject({ url: '/problems/no-such-type' }), 404);
    const body = refdataUnderTest.expectError(
      await service.app.inject({ url: `/problems/${'x'.repeat(65)}` }),
      400,
    );
    expect(body.errors).toEqual([
      { parameter: 'code', detail: 'must NOT have more than 64 characters' },
    ]);
  });
});
