import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DATABASE_KINDS } from '../harness.js';
import { create, createLibrary, type Refdata, startRefdata, uniqueName } from './helpers.js';

const FIXTURE_CATALOGUES = fileURLToPath(new URL('../fixtures/catalogues', import.meta.url));

const etim = (targetIdentifier: string, relationType = 'exactMatch', targetVersion = '10.0') => ({
  relationType,
  targetLibrary: 'ETIM',
  targetIdentifier,
  targetVersion,
});
const unspsc = (targetIdentifier: string, relationType: string) => ({
  relationType,
  targetLibrary: 'UNSPSC',
  targetIdentifier,
  targetVersion: '26.0801',
});

describe.each(DATABASE_KINDS)('catalogue mappings (rule 4) on %s', (kind) => {
  let service: Refdata;
  let ontology: string;
  let dimension: string;
  let picklist: string;
  beforeAll(async () => {
    service = await startRefdata(kind, { REFDATA_CATALOGUES_DIR: FIXTURE_CATALOGUES });
    ontology = await createLibrary(service);
    dimension = (
      await create(service, '/cfihos/dimension', {
        name: uniqueName('Length'),
        ontology,
        dimensionCode: 'L',
      })
    ).iri;
    picklist = (
      await create(service, '/cfihos/picklist', {
        name: uniqueName('Colours'),
        ontology,
        subClassOf: 'http://x.example/p',
      })
    ).iri;
  });
  afterAll(async () => service?.close());

  async function expectRule(
    route: string,
    body: Record<string, unknown>,
    pointer: string | undefined,
  ) {
    const response = await service.call('POST', route, {
      body: {
        changeJustification: 'x',
        description: 'd',
        name: uniqueName('M'),
        ontology,
        ...body,
      },
    });
    if (pointer === undefined) {
      expect(response.statusCode, response.body).toBe(201);
      return;
    }
    expect(response.statusCode, response.body).toBe(400);
    expect(response.json().errors.map((error: { pointer: string }) => error.pointer)).toContain(
      `#${pointer}`,
    );
  }

  it('maps properties to ETIM features of a compatible type only', async () => {
    const number = { types: ['number'], range: dimension };
    await expectRule(
      '/general/property',
      { ...number, relatedTerms: [etim('EF000008')] },
      undefined,
    );
    await expectRule(
      '/general/property',
      { ...number, relatedTerms: [etim('EF000049', 'closeMatch')] },
      undefined,
    );
    await expectRule(
      '/general/property',
      { ...number, relatedTerms: [etim('EF000001')] },
      '/relatedTerms/0/targetIdentifier',
    );
    await expectRule(
      '/general/property',
      { types: ['boolean'], relatedTerms: [etim('EF000001')] },
      undefined,
    );
    await expectRule(
      '/general/property',
      { types: ['boolean'], relatedTerms: [etim('EF000007')] },
      '/relatedTerms/0/targetIdentifier',
    );
    await expectRule(
      '/general/property',
      { types: ['controlledText'], range: picklist, relatedTerms: [etim('EF000007')] },
      undefined,
    );
    await expectRule(
      '/general/property',
      { types: ['controlledText'], range: picklist, relatedTerms: [etim('EF009999')] },
      '/relatedTerms/0/targetIdentifier',
    );
    await expectRule(
      '/general/property',
      { types: ['freeText'], relatedTerms: [etim('EF009999')] },
      undefined,
    );
    await expectRule(
      '/general/property',
      { types: ['freeText'], relatedTerms: [etim('EC000765')] },
      '/relatedTerms/0/targetIdentifier',
    );
  });

  it('checks the catalogue version, the entry and the family', async () => {
    await expectRule(
      '/general/property',
      { types: ['freeText'], relatedTerms: [etim('EF009999', 'exactMatch', '9.0')] },
      '/relatedTerms/0/targetVersion',
    );
    await expectRule(
      '/general/property',
      { types: ['freeText'], relatedTerms: [etim('EF123456')] },
      '/relatedTerms/0/targetIdentifier',
    );
    await expectRule(
      '/cfihos/unitofmeasure',
      {
        dimensionRef: dimension,
        measurementSystem: 'SI',
        symbol: 'mm',
        relatedTerms: [etim('EU570448')],
      },
      undefined,
    );
    await expectRule(
      '/cfihos/unitofmeasure',
      {
        dimensionRef: dimension,
        measurementSystem: 'SI',
        symbol: 'mm',
        relatedTerms: [etim('EF000008')],
      },
      '/relatedTerms/0/targetIdentifier',
    );
    await expectRule(
      '/rdl/terms/subclass',
      { subClassOf: ['http://x.example/c'], relatedTerms: [etim('EC000765')] },
      '/relatedTerms/0',
    );
    // Other libraries are recorded as given.
    await expectRule(
      '/rdl/terms/subclass',
      {
        subClassOf: ['http://x.example/c'],
        relatedTerms: [
          { relationType: 'exactMatch', targetLibrary: 'eCl@ss', targetIdentifier: '36-41-01-01' },
        ],
      },
      undefined,
    );
  });

  it('maps equipment classes to ETIM classes and to UNSPSC Classes (broader only) or Commodities', async () => {
    const equipment = { entityType: 'equipment', propertyReferences: [] };
    await expectRule(
      '/cfihos/entity',
      { ...equipment, relatedTerms: [etim('EC000765'), unspsc('40151501', 'exactMatch')] },
      undefined,
    );
    await expectRule(
      '/cfihos/entity',
      { ...equipment, relatedTerms: [unspsc('40151500', 'broadMatch')] },
      undefined,
    );
    await expectRule(
      '/cfihos/entity',
      { ...equipment, relatedTerms: [unspsc('40151500', 'exactMatch')] },
      '/relatedTerms/0/relationType',
    );
    await expectRule(
      '/cfihos/entity',
      { ...equipment, relatedTerms: [unspsc('40150000', 'broadMatch')] },
      '/relatedTerms/0/targetIdentifier',
    );
    await expectRule(
      '/cfihos/entity',
      {
        entityType: 'tag',
        propertyReferences: [],
        relatedTerms: [unspsc('40151501', 'exactMatch')],
      },
      '/relatedTerms/0',
    );
    await expectRule(
      '/general/property',
      { types: ['freeText'], relatedTerms: [unspsc('40151501', 'exactMatch')] },
      '/relatedTerms/0',
    );
  });

  it('refuses checked mappings when the catalogue is not loaded', async () => {
    const bare = await startRefdata(kind);
    try {
      const library = await createLibrary(bare);
      const response = await bare.call('POST', '/general/property', {
        body: {
          changeJustification: 'x',
          name: 'Width',
          description: 'd',
          ontology: library,
          types: ['freeText'],
          relatedTerms: [etim('EF009999')],
        },
      });
      expect(response.statusCode).toBe(400);
      expect(response.json().errors[0].detail).toMatch(/ETIM 10.0 is not loaded/);
    } finally {
      await bare.close();
    }
  });
});
