import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { SignJWT } from 'jose';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { runProgram } from '../../src/program.js';
import { loadOrCreateSigningKey } from '../../src/refdata/auth/signing-key.js';
import { DATABASE_KINDS } from '../harness.js';
import {
  create,
  createLibrary,
  iriQuery,
  type Refdata,
  startRefdata,
  uniqueName,
} from './helpers.js';

/**
 * Tokens, errors and logs as clients nobody on the team wrote met them: names
 * from Object.prototype, claims of the wrong type, validation before
 * authentication, refusals that do not say what would be accepted, misleading
 * wording, and an expected outage logged as a fault.
 */
describe.each(DATABASE_KINDS)('refdata tokens and errors on %s', (kind) => {
  let service: Refdata;
  let keyDirectory: string;
  beforeAll(async () => {
    keyDirectory = mkdtempSync(join(tmpdir(), 'chrd-key-'));
    service = await startRefdata(kind, {
      REFDATA_PORT: '18202',
      REFDATA_SIGNING_KEY_FILE: join(keyDirectory, 'key.json'),
    });
  });
  afterAll(async () => {
    await service?.close();
    rmSync(keyDirectory, { recursive: true, force: true });
  });

  const library = { changeJustification: 'x', name: 'Claims', description: 'd' };

  it('11: answers names of Object.prototype as unknown problem types, without authentication', async () => {
    for (const name of ['constructor', '__proto__', 'toString', 'valueOf', 'hasOwnProperty']) {
      const response = await service.app.inject({ url: `/problems/${name}` });
      expect(response.statusCode, name).toBe(404);
      expect(response.headers['content-type']).toMatch(/^application\/problem\+json/);
    }
    const known = await service.app.inject({ url: '/problems/not-found' });
    expect(known.statusCode).toBe(200);
  });

  describe('12: claims of the wrong type or empty', () => {
    const signed = async (claims: Record<string, unknown>) => {
      const key = await loadOrCreateSigningKey(
        service.config.settings.refdata.tokens.signingKeyFile,
      );
      const tokens = service.config.settings.refdata.tokens;
      const now = Math.floor(Date.now() / 1000);
      return new SignJWT({
        sub: 'alice',
        roles: ['Creator'],
        iss: tokens.issuer,
        aud: tokens.audience,
        iat: now,
        exp: now + 600,
        ...claims,
      })
        .setProtectedHeader({ alg: 'ES256', kid: key.kid })
        .sign(key.privateKey);
    };

    for (const [claims, named] of [
      [{ sub: { id: 'alice' } }, 'sub'],
      [{ sub: '' }, 'sub'],
      [{ sub: '   ' }, 'sub'],
      [{ sub: 42 }, 'sub'],
      [{ sub: 'x'.repeat(256) }, 'sub'],
      [{ roles: { Creator: true } }, 'roles'],
      [{ roles: [1, 2] }, 'roles'],
      [{ iat: Math.floor(Date.now() / 1000) + 3600 }, 'iat'],
      // A lifetime beyond REFDATA_TOKEN_MAX_LIFETIME_SECONDS (366 days), from iat or from now.
      [{ exp: Math.floor(Date.now() / 1000) + 10 * 366 * 86_400 }, 'exp'],
      [{ exp: 1e30 }, 'exp'],
      [{ iat: undefined, exp: Math.floor(Date.now() / 1000) + 400 * 86_400 }, 'exp'],
    ] as const) {
      it(`refuses ${JSON.stringify(claims).slice(0, 40)} with 401 naming ${named}`, async () => {
        const before = await service.db.selectFrom('resources').select('id').execute();
        const response = await service.call('POST', '/ontologies/domains', {
          roles: [],
          headers: { authorization: `Bearer ${await signed(claims)}` },
          body: { ...library, name: uniqueName('Claims') },
        });
        expect(response.statusCode, response.body).toBe(401);
        expect(response.json().detail).toContain(`${named} claim`);
        expect(response.headers['www-authenticate']).toContain(`${named} claim`);
        expect(await service.db.selectFrom('resources').select('id').execute()).toEqual(before);
      });
    }

    it('accepts a well-formed token signed the same way', async () => {
      const response = await service.call('POST', '/ontologies/domains', {
        roles: [],
        headers: { authorization: `Bearer ${await signed({})}` },
        body: { ...library, name: uniqueName('Claims') },
      });
      expect(response.statusCode, response.body).toBe(201);
    });
  });

  it('13: answers 401 and 403 before looking at the body', async () => {
    const bad = { name: 42, unknown: true };
    const anonymous = await service.call('POST', '/ontologies/domains', { roles: [], body: bad });
    expect(anonymous.statusCode).toBe(401);
    expect(anonymous.json()).not.toHaveProperty('errors');
    const reader = await service.call('POST', '/ontologies/domains', {
      roles: ['Reader'],
      body: bad,
    });
    expect(reader.statusCode).toBe(403);
    const malformed = await service.app.inject({
      method: 'PUT',
      url: '/status/approve?iri=x',
      headers: { 'content-type': 'application/json' },
      payload: '{not json',
    });
    expect(malformed.statusCode).toBe(401);
    const creatorDeciding = await service.call('PUT', '/status/approve?iri=x', {
      body: { nonsense: 1 },
    });
    expect(creatorDeciding.statusCode).toBe(403);
    // With the right role the body is checked as before.
    const creator = await service.call('POST', '/ontologies/domains', { body: bad });
    expect(creator.statusCode).toBe(400);
  });

  it('14: a token minted on the command line with other ports is accepted, and says where it comes from', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'chrd-mint-'));
    try {
      const stdout = new PassThrough();
      const stderr = new PassThrough();
      let token = '';
      let said = '';
      stdout.on('data', (chunk: Buffer) => {
        token += chunk.toString();
      });
      stderr.on('data', (chunk: Buffer) => {
        said += chunk.toString();
      });
      const status = await runProgram(['refdata-token-mint', 'carol', '--roles=Reader'], {
        env: {
          DATA_DIR: dataDir,
          REFDATA_PORT: '18101',
          REFDATA_SIGNING_KEY_FILE: service.config.settings.refdata.tokens.signingKeyFile,
        },
        stdout,
        stderr,
      });
      expect(status, said).toBe(0);
      expect(said).toContain(`refdata: data directory ${dataDir}; database SQLite`);
      expect(said).toContain(join(dataDir, 'refdata.sqlite'));
      expect(said).toContain(`iss ${service.config.settings.refdata.tokens.issuer}`);
      const response = await service.call('GET', '/search/search-index', {
        roles: [],
        headers: { authorization: `Bearer ${token.trim()}` },
      });
      expect(response.statusCode, response.body).toBe(200);
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });

  describe('15: wording', () => {
    it('names the allowed values of an enumeration once', async () => {
      const response = await service.call('POST', '/imf/terminaltypes', {
        body: {
          changeJustification: 'x',
          name: uniqueName('Terminal'),
          description: 'd',
          ontology: await createLibrary(service),
          direction: 'Input',
        },
      });
      expect(response.statusCode).toBe(400);
      const errors = response.json().errors as { pointer: string; detail: string }[];
      expect(errors.filter((error) => error.pointer === '#/direction')).toEqual([
        { pointer: '#/direction', detail: 'Direction must be one of "input", "output"' },
      ]);
    });

    it('accepts an empty JSON body on a route without a body', async () => {
      const dimension = await create(service, '/cfihos/dimension', {
        name: uniqueName('Mass'),
        ontology: await createLibrary(service),
        dimensionCode: 'M',
      });
      const response = await service.call('PUT', `/status/submit?${iriQuery(dimension.iri)}`, {
        headers: { 'content-type': 'application/json', 'content-length': '0' },
      });
      expect(response.statusCode, response.body).toBe(204);
      // curl -X PUT -H 'Content-Type: application/json' sends no Content-Length at all.
      const other = await create(service, '/cfihos/dimension', {
        name: uniqueName('Mass'),
        ontology: await createLibrary(service),
        dimensionCode: 'M',
      });
      const withoutLength = await service.call('PUT', `/status/submit?${iriQuery(other.iri)}`, {
        headers: { 'content-type': 'application/json' },
      });
      expect(withoutLength.statusCode, withoutLength.body).toBe(204);
      // A value offers no submit link: it is submitted with its picklist.
      const picklist = await create(service, '/cfihos/picklist', {
        name: uniqueName('Drives'),
        ontology: await createLibrary(service),
        subClassOf: 'http://x.example/p',
        picklistValues: [{ name: 'Electric', description: 'd' }],
      });
      expect(picklist.links).toHaveProperty('submit');
      const value = (picklist.picklistValues as { id: string }[])[0]?.id as string;
      const read = await service.call('GET', `/cfihos/picklistvalue?${iriQuery(value)}`);
      expect(read.json().links).not.toHaveProperty('submit');
    });

    it('gives an unknown resource a documented problem type', async () => {
      const response = await service.call(
        'GET',
        `/cfihos/dimension?${iriQuery('https://nowhere.example/x')}`,
      );
      expect(response.statusCode).toBe(404);
      expect(response.json().type).toMatch(/\/problems\/not-found$/);
      const documented = await service.app.inject({ url: '/problems/not-found' });
      expect(documented.json().title).toBe('Not found');
    });
  });

  it('16: logs a search outage as one warn line without a stack', async () => {
    await service.db.updateTable('search_state').set({ state: 'down' }).execute();
    try {
      // The instance reads the state within its poll interval.
      const response = await vi.waitFor(async () => {
        const answer = await service.call('GET', '/search/search-index?q=pump');
        expect(answer.statusCode).toBe(503);
        return answer;
      });
      const lines = service
        .logLines()
        .filter((line) => line.traceId === response.headers['x-request-id']);
      expect(lines.some((line) => line.level === 50)).toBe(false);
      const warned = lines.filter((line) => line.level === 40);
      expect(warned).toHaveLength(1);
      expect(JSON.stringify(warned[0])).not.toMatch(/stack/);
    } finally {
      await service.db.updateTable('search_state').set({ state: 'available' }).execute();
      await vi.waitFor(async () =>
        expect((await service.call('GET', '/search/search-index?q=pump')).statusCode).toBe(200),
      );
    }
  });
});
