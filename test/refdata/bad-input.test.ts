import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DATABASE_KINDS } from '../harness.js';
import {
  create,
  createLibrary,
  iriQuery,
  type Refdata,
  startRefdata,
  uniqueName,
} from './helpers.js';

/** Malformed, oversized, wrong-typed and unknown input on every refdata route: a 4xx problem, nothing changed. */
describe.each(DATABASE_KINDS)('refdata bad input on %s', (kind) => {
  let service: Refdata;
  let ontology: string;
  let draft: string;
  beforeAll(async () => {
    service = await startRefdata(kind, { HTTP_BODY_LIMIT: '65536' });
    ontology = await createLibrary(service);
    draft = (
      await create(service, '/cfihos/dimension', {
        name: uniqueName('Force'),
        ontology,
        dimensionCode: 'F',
      })
    ).iri;
  });
  afterAll(async () => service?.close());

  const snapshot = async () => ({
    resources: await service.db
      .selectFrom('resources')
      .select(['iri', 'version', 'status', 'body'])
      .orderBy('id')
      .execute(),
    revisions: Number(
      (
        await service.db
          .selectFrom('revisions')
          .select((eb) => eb.fn.countAll<number>().as('n'))
          .executeTakeFirstOrThrow()
      ).n,
    ),
  });

  const writeRoutes = () =>
    [
      ['POST', '/ontologies/domains'],
      ['POST', '/rdl/terms/subclass'],
      ['POST', '/general/property'],
      ['POST', '/cfihos/entity'],
      ['POST', '/cfihos/picklist'],
      ['POST', '/cfihos/picklistvalue'],
      ['POST', '/cfihos/unitofmeasure'],
      ['POST', '/cfihos/dimension'],
      ['POST', '/imf/attributetypes'],
      ['POST', '/imf/terminaltypes'],
      ['POST', '/imf/blocktypes'],
      ['POST', '/esl/engineeringSymbols'],
      ['PUT', `/cfihos/dimension?${iriQuery(draft)}`],
      ['PUT', `/status/approve?${iriQuery(draft)}`],
    ] as const;

  it('answers malformed, oversized, non-object, empty and unsupported bodies on every write route', async () => {
    const before = await snapshot();
    for (const [method, url] of writeRoutes()) {
      const send = async (payload: string, contentType: string) =>
        service.app.inject({
          method,
          url,
          headers: {
            authorization: `Bearer ${await service.token(['Creator', 'Reviewer'])}`,
            'content-type': contentType,
          },
          payload,
        });
      for (const [payload, contentType, status] of [
        ['{"name": ', 'application/json', 400],
        [JSON.stringify({ name: 'x'.repeat(70000) }), 'application/json', 413],
        ['[1, 2]', 'application/json', 400],
        ['"text"', 'application/json', 400],
        ['null', 'application/json', 400],
        ['', 'application/json', 400],
        ['name=x', 'text/plain', 415],
        ['<a/>', 'application/xml', 415],
      ] as const) {
        const response = await send(payload, contentType);
        expect(response.statusCode, `${method} ${url} ${contentType} ${payload.slice(0, 20)}`).toBe(
          status,
        );
        expect(response.headers['content-type']).toMatch(/^application\/problem\+json/);
        expect(response.json().traceId).toBeTruthy();
      }
    }
    expect(await snapshot()).toEqual(before);
  });

  it('answers wrong types, unknown fields and missing fields with every field named', async () => {
    const before = await snapshot();
    const response = await service.call('POST', '/cfihos/entity', {
      body: {
        changeJustification: '',
        name: 42,
        ontology: ['x'],
        entityType: 'equipment',
        propertyReferences: 'none',
        colour: 'blue',
        isAbstract: 'yes',
      },
    });
    expect(response.statusCode).toBe(400);
    const pointers = response.json().errors.map((error: { pointer: string }) => error.pointer);
    expect(pointers).toEqual(
      expect.arrayContaining([
        '#/changeJustification',
        '#/name',
        '#/ontology',
        '#/propertyReferences',
        '#/colour',
        '#/isAbstract',
        '#/description',
      ]),
    );
    expect(await snapshot()).toEqual(before);
  });

  it('answers missing, overlong, unknown and NUL-bearing iri parameters', async () => {
    const before = await snapshot();
    const body = {
      changeJustification: 'x',
      name: 'Force',
      description: 'd',
      ontology,
      dimensionCode: 'F',
    };
    for (const [url, status] of [
      ['/cfihos/dimension', 400],
      [`/cfihos/dimension?iri=${'a'.repeat(3000)}`, 400],
      [`/cfihos/dimension?${iriQuery(draft)}&extra=1`, 400],
      [`/cfihos/dimension?iri=${encodeURIComponent(`${draft}\u0000`)}`, 404],
      ['/cfihos/dimension?iri=not%20an%20iri', 404],
    ] as const) {
      const put = await service.call('PUT', url, { body });
      expect(put.statusCode, url).toBe(status);
      const get = await service.call('GET', url, { roles: ['Reader'] });
      expect(get.statusCode, url).toBe(status);
    }
    for (const route of ['/status/submit', '/revisions']) {
      const response = await service.call(route === '/revisions' ? 'GET' : 'PUT', route);
      expect(response.statusCode).toBe(400);
    }
    const nul = await service.call('POST', '/cfihos/dimension', {
      body: { ...body, name: 'Nul\u0000name', dimensionCode: 'N' },
    });
    expect(nul.statusCode).toBeLessThan(500);
    expect(nul.statusCode).toBeGreaterThanOrEqual(400);
    expect(await snapshot()).toEqual(before);
  });

  it('answers unknown routes and methods in its own shape', async () => {
    const unknown = await service.call('GET', '/imf/nothing');
    expect(unknown.statusCode).toBe(404);
    expect(unknown.headers['content-type']).toMatch(/^application\/problem\+json/);
    const method = await service.call('DELETE', '/cfihos/dimension');
    expect(method.statusCode).toBe(405);
  });
});
