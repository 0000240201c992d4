import { describe, expect, it } from 'vitest';
import { SERVICES_UNDER_TEST } from '../error-shapes.js';
import { addFixtureRoutes } from '../fixtures/routes.js';
import { baseUrl, startTestService } from '../harness.js';

describe.each(SERVICES_UNDER_TEST)('$definition.name shutdown', ({ definition }) => {
  it('finishes in-flight requests, refuses new ones, and closes the database', async () => {
    const service = await startTestService(definition, 'sqlite', {
      extend: addFixtureRoutes,
      listen: true,
    });
    const url = baseUrl(service);
    const inFlight = fetch(`${url}/test/slow`);
    await new Promise((resolve) => setTimeout(resolve, 100));

    const closing = service.close();
    const response = await inFlight;
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ finished: true });
    await closing;

    await expect(fetch(`${url}/-/health`)).rejects.toThrow();
    await expect(service.database.ping()).rejects.toThrow();
  });
});
