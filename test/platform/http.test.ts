import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { serviceSection } from '../../src/platform/config.js';
import { SERVICES_UNDER_TEST } from '../error-shapes.js';
import { addFixtureRoutes, SECRET_IN_ERROR } from '../fixtures/routes.js';
import { DATABASE_KINDS, startTestService, type TestService } from '../harness.js';

const BODY_LIMIT = 2048;

describe.each(DATABASE_KINDS)('on %s', (kind) => {
  describe.each(SERVICES_UNDER_TEST)(
    '$definition.name HTTP basics',
    ({ definition, expectError }) => {
      let service: TestService;
      const isRefdata = definition.name === 'refdata';

      beforeAll(async () => {
        service = await startTestService(definition, kind, {
          env: { HTTP_BODY_LIMIT: String(BODY_LIMIT) },
          extend: addFixtureRoutes,
        });
      });
      afterAll(async () => service?.close());

      const postJson = (url: string, payload: string, headers: Record<string, string> = {}) =>
        service.app.inject({
          method: 'POST',
          url,
          payload,
          headers: { 'content-type': 'application/json', ...headers },
        });

      it('answers liveness and readiness', async () => {
        const health = await service.app.inject({ url: '/-/health' });
        expect(health.statusCode).toBe(200);
        expect(health.json()).toEqual({ status: 'ok' });
        const ready = await service.app.inject({ url: '/-/ready' });
        expect(ready.statusCode).toBe(200);
        expect(ready.json()).toEqual({ status: 'ok', database: 'ok' });
      });

      // codehost's unknown API addresses answer JSON; its other addresses are
      // people's, answered with a page (see codehost's web tests).
      const unknownPath = isRefdata ? '/no/such/thing' : '/api/v4/no/such/thing';

      it('answers an unknown route with 404 in its own shape', async () => {
        const body = expectError(await service.app.inject({ url: `${unknownPath}?x=1` }), 404);
        if (isRefdata)
          expect(body).toMatchObject({
            type: expect.stringMatching(/\/problems\/not-found$/),
            instance: '/no/such/thing',
          });
        else expect(body).toEqual({ message: '404 Not Found' });
      });

      it('answers 404, not a parse error, for a malformed body sent to an unknown route', async () => {
        expectError(await postJson(unknownPath, '{"broken'), 404);
      });

      it('answers a wrong method with 405 and an Allow header', async () => {
        const response = await service.app.inject({ method: 'DELETE', url: '/-/health' });
        const body = expectError(response, 405);
        expect(response.headers.allow).toBe('GET, HEAD');
        if (!isRefdata) expect(body).toEqual({ message: '405 Method Not Allowed' });

        // A path outside codehost's machine prefixes is answered with a page.
        const onPost = await service.app.inject({ method: 'GET', url: '/test/echo' });
        if (isRefdata) expectError(onPost, 405);
        else {
          expect(onPost.statusCode).toBe(405);
          expect(onPost.headers['content-type']).toMatch(/^text\/html/);
        }
        expect(onPost.headers.allow).toBe('POST');
      });

      it('answers malformed JSON with 400', async () => {
        const body = expectError(await postJson('/test/echo', '{"name": "x", '), 400);
        if (isRefdata) {
          expect(body.type).toBe(
            `${service.config.services.refdata.publicUrl}/problems/malformed-body`,
          );
        } else {
          expect(body.message).toMatch(/^400 Bad request - The request body is not valid JSON/);
        }
      });

      it('answers JSON nested past the limit with 400 before parsing it, and takes it at the limit', async () => {
        // 10,000 deep was a stack overflow, a 500 per request, before authentication; this
        // test's body limit is 2 KiB (test/refdata/sparql-hostile.test.ts sends 10,000 to both).
        const nested = (depth: number) =>
          `{"name": "x", "count": 1, "tags": ["a"], "extra": ${'['.repeat(depth)}${']'.repeat(depth)}}`;
        const body = expectError(await postJson('/test/echo', nested(900)), 400);
        if (isRefdata) {
          expect(body.type).toBe(
            `${service.config.services.refdata.publicUrl}/problems/malformed-body`,
          );
          expect(body.detail).toMatch(/more than 100 levels deep/);
        } else expect(body.message).toMatch(/^400 Bad request - The JSON body nests .* 100 levels/);
        // Brackets inside strings are text, not nesting.
        const inString = await postJson(
          '/test/echo',
          JSON.stringify({ name: '['.repeat(50), count: 1, tags: ['{'.repeat(600)] }),
        );
        expect(inString.statusCode, inString.body).toBe(200);
        // At the limit it is parsed, and answered for what it is (a field the route does not take).
        const atLimit = await postJson('/test/echo', nested(99));
        expect(atLimit.statusCode).toBe(400);
        expect(atLimit.body).not.toMatch(/levels deep/);
      });

      it('answers an empty JSON body and a prototype-poisoning body with 400', async () => {
        expectError(await postJson('/test/echo', ''), 400);
        expectError(await postJson('/test/echo', '{"__proto__": {"admin": true}}'), 400);
      });

      it('answers an oversized body with 413, whether or not Content-Length announces it', async () => {
        const big = JSON.stringify({ name: 'x', count: 1, tags: ['a'.repeat(BODY_LIMIT)] });
        expectError(await postJson('/test/echo', big), 413);
        const chunked = await service.app.inject({
          method: 'POST',
          url: '/test/echo',
          payload: big,
          headers: { 'content-type': 'application/json', 'transfer-encoding': 'chunked' },
        });
        expectError(chunked, 413);
      });

      it('answers an unsupported Content-Type with 415', async () => {
        const response = await postJson('/test/echo', '<name>x</name>', {
          'content-type': 'application/xml',
        });
        expectError(response, 415);
      });

      it('accepts a valid JSON body and a form body on the same route', async () => {
        const json = await postJson(
          '/test/echo?limit=3',
          JSON.stringify({ name: 'gear', count: 2 }),
        );
        expect(json.statusCode).toBe(200);
        expect(json.json()).toEqual({ received: { name: 'gear', count: 2 }, limit: 3 });
        const form = await service.app.inject({
          method: 'POST',
          url: '/test/echo',
          payload: 'name=gear&count=2',
          headers: { 'content-type': 'application/x-www-form-urlencoded' },
        });
        expect(form.statusCode).toBe(200);
        expect(form.json()).toEqual({ received: { name: 'gear', count: 2 }, limit: null });
      });

      it('reads form bodies strictly: spaces, repeats, escapes that are not UTF-8, a too large one', async () => {
        const postForm = (payload: string | Buffer) =>
          service.app.inject({
            method: 'POST',
            url: '/test/echo',
            payload,
            headers: { 'content-type': 'application/x-www-form-urlencoded' },
          });
        const read = await postForm('name=gear+box%21&count=2&tags=a&tags=%C3%A9');
        expect(read.statusCode).toBe(200);
        expect(read.json().received).toEqual({ name: 'gear box!', count: 2, tags: ['a', 'é'] });
        // %-escapes that do not spell UTF-8, an incomplete one, raw bytes that are not UTF-8.
        for (const payload of [
          'name=%FF&count=1',
          'name=%ED%A0%80&count=1',
          'name=100%&count=1',
          Buffer.from([
            0x6e, 0x61, 0x6d, 0x65, 0x3d, 0xff, 0x26, 0x63, 0x6f, 0x75, 0x6e, 0x74, 0x3d, 0x31,
          ]),
        ]) {
          expectError(await postForm(payload), 400);
        }
        // __proto__ is a field like any other: unknown here, and never a prototype.
        const proto = await postForm('name=x&count=1&__proto__=y');
        expect(JSON.stringify(expectError(proto, 400))).toMatch(/__proto__/);
        expectError(await postForm(`name=x&count=1&tags=${'a'.repeat(BODY_LIMIT)}`), 413);
      });

      it('takes JSON types as they are, but coerces text from forms and query strings', async () => {
        // A number where the schema wants a string is the client's error in JSON...
        const json = await postJson('/test/echo', JSON.stringify({ name: 42, count: '2' }));
        const body = expectError(json, 400);
        expect(JSON.stringify(body)).toMatch(/name/);
        expect(JSON.stringify(body)).toMatch(/count/);
        // ...while a form can only send text, which is read as the schema's types.
        const form = await service.app.inject({
          method: 'POST',
          url: '/test/echo?limit=2',
          payload: 'name=42&count=7',
          headers: { 'content-type': 'application/x-www-form-urlencoded' },
        });
        expect(form.statusCode).toBe(200);
        expect(form.json()).toEqual({ received: { name: '42', count: 7 }, limit: 2 });
      });

      it('lists each invalid field: missing, wrong type, unknown', async () => {
        const response = await postJson(
          '/test/echo',
          JSON.stringify({ count: 'many', extra: true, tags: [1, 'b'] }),
        );
        const body = expectError(response, 400);
        if (isRefdata) {
          expect(body.type).toBe(
            `${service.config.services.refdata.publicUrl}/problems/validation`,
          );
          expect(body.errors).toEqual(
            expect.arrayContaining([
              { pointer: '#/name', detail: 'is required' },
              { pointer: '#/extra', detail: 'is not a known field' },
              { pointer: '#/count', detail: 'must be integer' },
            ]),
          );
        } else {
          expect(body.message).toMatch(/^400 Bad request - /);
          expect(body.message).toMatch(/\/name is required/);
          expect(body.message).toMatch(/\/extra is not a known field/);
        }
      });

      it('escapes field names in JSON pointers (RFC 6901)', async () => {
        const response = await postJson(
          '/test/echo',
          JSON.stringify({ name: 'a', count: 1, 'a/b~c': true }),
        );
        const body = expectError(response, 400);
        if (isRefdata) {
          expect(body.errors).toEqual([{ pointer: '#/a~1b~0c', detail: 'is not a known field' }]);
        }
      });

      it('names an invalid query parameter', async () => {
        const body = expectError(
          await postJson('/test/echo?limit=99', JSON.stringify({ name: 'a', count: 1 })),
          400,
        );
        if (isRefdata) {
          expect(body.errors).toEqual([{ parameter: 'limit', detail: 'must be <= 10' }]);
        } else {
          expect(body.message).toBe('400 Bad request - limit must be <= 10');
        }
      });

      it('answers an unexpected failure with 500, a traceId and no internals', async () => {
        const response = await service.app.inject({ url: '/test/boom' });
        const body = expectError(response, 500);
        expect(response.body).not.toContain(SECRET_IN_ERROR);
        expect(response.body).not.toContain('postgres://');
        expect(service.logText()).not.toContain(SECRET_IN_ERROR);
        expect(body.traceId).toBe(response.headers['x-request-id']);
        // The operator finds the cause in the log line carrying the same traceId.
        const logged = service
          .logLines()
          .find((line) => line.traceId === body.traceId && line.msg === 'request failed');
        expect(logged).toMatchObject({ level: 50, err: { type: 'Error' } });
      });

      it('renders a problem a route throws in its own shape', async () => {
        const body = expectError(await service.app.inject({ url: '/test/conflict' }), 409);
        if (isRefdata) {
          expect(body).toMatchObject({
            type: expect.stringMatching(/\/problems\/conflict$/),
            title: 'Conflict',
            detail: 'That name is taken.',
          });
        } else {
          expect(body).toEqual({ message: '409 Conflict' });
        }
      });

      it('keeps a well-formed incoming X-Request-Id and replaces a doubtful one', async () => {
        const kept = await service.app.inject({
          url: '/nowhere',
          headers: { 'x-request-id': 'lb-0123456789abcdef' },
        });
        expect(kept.headers['x-request-id']).toBe('lb-0123456789abcdef');
        const replaced = await service.app.inject({
          url: '/nowhere',
          headers: { 'x-request-id': 'bad id <script>' },
        });
        expect(replaced.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
      });

      it('sends security headers', async () => {
        const response = await service.app.inject({ url: '/-/health' });
        expect(response.headers).toMatchObject({
          'x-content-type-options': 'nosniff',
          'x-frame-options': 'DENY',
          'referrer-policy': 'no-referrer',
        });
        expect(response.headers['content-security-policy']).toContain("default-src 'self'");
      });

      it('publishes OpenAPI 3.1 generated from the route schemas, and a docs page', async () => {
        const spec = await service.app.inject({ url: '/openapi.json' });
        expect(spec.statusCode).toBe(200);
        const document = spec.json() as {
          openapi: string;
          info: { title: string };
          servers: { url: string }[];
          paths: Record<string, unknown>;
        };
        expect(document.openapi).toBe('3.1.0');
        expect(document.info.title).toBe(definition.name);
        // Relative first, so "Try it out" reaches the server at whatever address the
        // page was opened at; then the configured public address.
        expect(document.servers.map((server) => server.url)).toEqual([
          '/',
          serviceSection(service.config, definition.name).publicUrl,
        ]);
        expect(document.paths).toHaveProperty(['/-/health', 'get']);
        expect(document.paths).toHaveProperty(['/-/ready', 'get', 'responses', '503']);
        // Hidden plumbing stays out of the description.
        expect(Object.keys(document.paths).some((path) => path.startsWith('/test/'))).toBe(false);
        expect(document.paths).not.toHaveProperty(['/openapi.json']);

        const docs = await service.app.inject({ url: '/docs/' });
        expect(docs.statusCode).toBe(200);
        expect(docs.headers['content-type']).toMatch(/^text\/html/);
      });

      it('reports not ready, 503, once the database is gone', async () => {
        await service.database.close();
        const ready = await service.app.inject({ url: '/-/ready' });
        expect(ready.statusCode).toBe(503);
        expect(ready.json()).toEqual({ status: 'unavailable', database: 'unreachable' });
        expect((await service.app.inject({ url: '/-/health' })).statusCode).toBe(200);
      });
    },
  );
});
