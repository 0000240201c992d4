import type { LightMyRequestResponse } from 'fastify';
import { expect } from 'vitest';
import { codehost } from '../src/codehost/app.js';
import type { ServiceDefinition } from '../src/platform/service.js';
import { refdata } from '../src/refdata/app.js';

export interface ServiceUnderTest {
  definition: ServiceDefinition;
  /**
   * Asserts the response is this service's error shape for the status; returns the
   * body. `beforeRequest`: refused before a request line was read, so no address.
   */
  expectError(
    response: LightMyRequestResponse,
    status: number,
    options?: { beforeRequest?: boolean },
  ): Record<string, unknown>;
}

function commonChecks(response: LightMyRequestResponse, status: number): Record<string, unknown> {
  expect(response.statusCode).toBe(status);
  expect(response.headers['x-request-id']).toEqual(expect.any(String));
  const text = response.body;
  // Nothing from inside the server: no stack frames, no source paths.
  expect(text).not.toMatch(/\bat .+\.(ts|js):\d+/);
  expect(text).not.toMatch(/node_modules|\/src\//);
  return response.json() as Record<string, unknown>;
}

/** codehost speaks GitLab: `{"message": "404 Not Found"}`. */
export const codehostUnderTest: ServiceUnderTest = {
  definition: codehost as ServiceDefinition,
  expectError(response, status) {
    const body = commonChecks(response, status);
    expect(response.headers['content-type']).toMatch(/^application\/json/);
    expect(body.message).toEqual(expect.stringMatching(new RegExp(`^${status} `)));
    if (status >= 500) expect(body.traceId).toBe(response.headers['x-request-id']);
    return body;
  },
};

/** refdata speaks RFC 9457 Problem Details. */
export const refdataUnderTest: ServiceUnderTest = {
  definition: refdata as ServiceDefinition,
  expectError(response, status, options = {}) {
    const body = commonChecks(response, status);
    expect(response.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(body).toMatchObject({
      type: expect.any(String),
      title: expect.any(String),
      status,
      traceId: response.headers['x-request-id'],
    });
    // The path asked for; absent only when the request line itself was never read.
    if (options.beforeRequest) expect(body.instance).toBeUndefined();
    else expect(body.instance).toEqual(expect.stringMatching(/^\//));
    return body;
  },
};

export const SERVICES_UNDER_TEST = [codehostUnderTest, refdataUnderTest];
