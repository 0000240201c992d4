import { describe, expect, it } from 'vitest';
import { CFIHOS_RDL_V2_IRI } from '../../src/refdata/families/library.js';
import { DATABASE_KINDS } from '../harness.js';
import {
  approve,
  create,
  createLibrary,
  expectRefused,
  iriQuery,
  refdataForTests,
  uniqueName,
} from './helpers.js';

describe.each(DATABASE_KINDS)('refdata authoring on %s', (kind) => {
  const service = refdataForTests(kind, { REFDATA_IRI_BASE: 'https://rdl.example.org' });

  /** A refused write: its status, the problem's type and the fields it names; nothing stored. */
  const refused = (
    method: 'POST' | 'PUT',
    url: string,
    body: Record<string, unknown>,
    status: number,
    pointers: string[] = [],
  ) => expectRefused(service, { method, url, body }, status, pointers);

  describe('libraries', () => {
    it('creates a Draft with its IRI, Location, ETag and links', async () => {
      const response = await service.call('POST', '/ontologies/domains', {
        body: {
          changeJustification: 'Start the pump library',
          name: 'Pump Library',
          description: 'Pumps and their parts',
          upperOntologies: ['http://rds.posccaesar.org/ontology/lis14/ont/core'],
          backupFrequency: 'weekly',
        },
      });
      expect(response.statusCode).toBe(201);
      const body = response.json();
      expect(body).toMatchObject({
        iri: 'https://rdl.example.org/ontology/pump-library',
        family: 'library',
        status: 'Draft',
        name: 'Pump Library',
        backupFrequency: 'weekly',
        version: 1,
        createdBy: 'alice',
      });
      expect(body).not.toHaveProperty('changeJustification');
      expect(response.headers.location).toBe(
        `${service.config.services.refdata.publicUrl}/ontologies/domains?${iriQuery(body.iri)}`,
      );
      expect(response.headers.etag).toBe('"1"');
      expect(body.links.submit).toContain('/status/submit?iri=');
      const read = await service.call('GET', `/ontologies/domains?${iriQuery(body.iri)}`, {
        roles: ['Reader'],
      });
      expect(read.json()).toEqual(body);
      expect(read.headers.etag).toBe('"1"');
    });

    it('refuses a second library with the same name or path, and other families’ fields', async () => {
      const name = uniqueName('Valve Library');
      await createLibrary(service, { name });
      await refused(
        'POST',
        '/ontologies/domains',
        { changeJustification: 'x', name: name.toUpperCase(), description: 'd' },
        409,
      );
      const path = `valves-${Date.now()}`;
      await createLibrary(service, { path });
      const duplicatePath = await refused(
        'POST',
        '/ontologies/domains',
        { changeJustification: 'x', name: uniqueName('Other'), description: 'd', path },
        409,
      );
      expect(duplicatePath.title).toBe('Duplicate resource');
      // Rule 1: a class's field is unknown to the library model.
      await refused(
        'POST',
        '/ontologies/domains',
        {
          changeJustification: 'x',
          name: uniqueName('L'),
          description: 'd',
          subClassOf: ['http://x.example/c'],
        },
        400,
        ['/subClassOf'],
      );
    });

    it('limits backupFrequency and needs the CFIHOS RDL v2.0 with a cfihosPrefix (rule 2)', async () => {
      const base = { changeJustification: 'x', description: 'd' };
      await refused(
        'POST',
        '/ontologies/domains',
        { ...base, name: uniqueName('L'), backupFrequency: 'hourly' },
        400,
        ['/backupFrequency'],
      );
      const problem = await refused(
        'POST',
        '/ontologies/domains',
        {
          ...base,
          name: uniqueName('L'),
          cfihosPrefix: 'ACME',
          upperOntologies: ['http://x.example/other'],
        },
        400,
        ['/upperOntologies'],
      );
      expect(problem.type).toMatch(/\/problems\/domain-rule$/);
      await refused(
        'POST',
        '/ontologies/domains',
        { ...base, name: uniqueName('L'), upperOntologies: [CFIHOS_RDL_V2_IRI] },
        400,
        ['/cfihosPrefix'],
      );
      const cfihos = await createLibrary(service, {
        cfihosPrefix: 'ACME',
        upperOntologies: [CFIHOS_RDL_V2_IRI],
      });
      expect(cfihos).toMatch(/^https:\/\/rdl\.example\.org\/ontology\//);
    });
  });

  describe('terms and their references', () => {
    it('needs an existing library and references of the right family', async () => {
      const ontology = await createLibrary(service);
      const dimension = await create(service, '/cfihos/dimension', {
        name: uniqueName('Length'),
        ontology,
        dimensionCode: 'L',
      });
      const base = { changeJustification: 'x', description: 'd' };
      await refused(
        'POST',
        '/rdl/terms/subclass',
        { ...base, name: 'No library', subClassOf: ['http://x.example/c'] },
        400,
        ['/ontology'],
      );
      await refused(
        'POST',
        '/rdl/terms/subclass',
        {
          ...base,
          name: 'Bad library',
          ontology: dimension.iri,
          subClassOf: ['http://x.example/c'],
        },
        400,
        ['/ontology'],
      );
      await refused(
        'POST',
        '/rdl/terms/subclass',
        { ...base, name: 'Not absolute', ontology: 'pumps', subClassOf: ['http://x.example/c'] },
        400,
        ['/ontology'],
      );
      await refused(
        'POST',
        '/rdl/terms/subclass',
        { ...base, name: 'Wrong super', ontology, subClassOf: [dimension.iri] },
        400,
        ['/subClassOf/0'],
      );
      await refused(
        'POST',
        '/cfihos/unitofmeasure',
        {
          ...base,
          name: 'Metre',
          ontology,
          dimensionRef: ontology,
          measurementSystem: 'SI',
          symbol: 'm',
        },
        400,
        ['/dimensionRef'],
      );
      const unit = await create(service, '/cfihos/unitofmeasure', {
        name: 'Metre',
        ontology,
        dimensionRef: dimension.iri,
        measurementSystem: 'SI',
        symbol: 'm',
      });
      expect(unit.iri).toMatch(
        /^https:\/\/rdl\.example\.org\/cfihos\/unitOfMeasure\/[0-9a-f-]{36}$/,
      );
      const pump = await create(service, '/rdl/terms/subclass', {
        name: 'Pump',
        ontology,
        subClassOf: ['http://x.example/equipment'],
      });
      expect(pump.iri.startsWith(`${ontology}/`)).toBe(true);
      // The same name in the same library and family is a duplicate; in another library it is not.
      await refused(
        'POST',
        '/rdl/terms/subclass',
        { ...base, name: 'pump', ontology, subClassOf: ['http://x.example/e'] },
        409,
      );
      await create(service, '/rdl/terms/subclass', {
        name: 'Pump',
        ontology: await createLibrary(service),
        subClassOf: ['http://x.example/e'],
      });
    });

    it('checks definition sources and related terms', async () => {
      const ontology = await createLibrary(service);
      const base = {
        changeJustification: 'x',
        description: 'd',
        ontology,
        subClassOf: ['http://x.example/c'],
      };
      await refused(
        'POST',
        '/rdl/terms/subclass',
        {
          ...base,
          name: uniqueName('C'),
          definitionSources: [{ sourceIri: 'http://iso.org/15926', sourceName: 'ISO' }],
        },
        400,
        ['/definitionSources/0'],
      );
      await refused(
        'POST',
        '/rdl/terms/subclass',
        { ...base, name: uniqueName('C'), definitionSources: [{ sourceName: 'ISO' }] },
        400,
        ['/definitionSources/0'],
      );
      await refused(
        'POST',
        '/rdl/terms/subclass',
        {
          ...base,
          name: uniqueName('C'),
          relatedTerms: [
            { relationType: 'sameAs', targetLibrary: 'ETIM', targetIdentifier: 'EC000001' },
          ],
        },
        400,
        ['/relatedTerms/0/relationType'],
      );
      const ok = await create(service, '/rdl/terms/subclass', {
        ...base,
        name: uniqueName('C'),
        definitionSources: [
          { sourceIri: 'http://iso.org/15926' },
          {
            sourceName: 'ISO 14224',
            sourceId: 'A.2',
            sourceUrl: 'https://www.iso.org/standard/64076.html',
            version: '2016',
          },
        ],
        relatedTerms: [
          {
            relationType: 'exactMatch',
            targetLibrary: 'ISO 15926-4',
            targetIdentifier: 'R12345',
            targetVersion: '2007',
          },
        ],
      });
      expect(ok.definitionSources).toHaveLength(2);
    });

    it('applies the value kinds of properties (rule 3)', async () => {
      const ontology = await createLibrary(service);
      const dimension = await create(service, '/cfihos/dimension', {
        name: uniqueName('Pressure'),
        ontology,
        dimensionCode: 'P',
      });
      const picklist = await create(service, '/cfihos/picklist', {
        name: uniqueName('Colours'),
        ontology,
        subClassOf: 'http://x.example/picklist',
      });
      const base = { changeJustification: 'x', description: 'd', ontology };
      await refused(
        'POST',
        '/general/property',
        { ...base, name: uniqueName('P'), types: ['number'] },
        400,
        ['/range'],
      );
      await refused(
        'POST',
        '/general/property',
        { ...base, name: uniqueName('P'), types: ['number'], range: picklist.iri },
        400,
        ['/range'],
      );
      await refused(
        'POST',
        '/general/property',
        { ...base, name: uniqueName('P'), types: ['controlledText'], range: dimension.iri },
        400,
        ['/range'],
      );
      await refused(
        'POST',
        '/general/property',
        { ...base, name: uniqueName('P'), types: ['freeText'], range: picklist.iri },
        400,
        ['/range'],
      );
      await refused(
        'POST',
        '/general/property',
        { ...base, name: uniqueName('P'), types: ['colour'] },
        400,
        ['/types/0'],
      );
      await refused(
        'POST',
        '/general/property',
        { ...base, name: uniqueName('P'), types: ['number', 'boolean'], range: dimension.iri },
        400,
        ['/types'],
      );
      for (const [types, range] of [
        [['number'], dimension.iri],
        [['controlledText'], picklist.iri],
        [['freeText'], undefined],
        [['boolean'], 'http://www.w3.org/2001/XMLSchema#boolean'],
      ] as const) {
        const created = await create(service, '/general/property', {
          name: uniqueName('P'),
          ontology,
          types,
          ...(range ? { range } : {}),
        });
        expect(created.status).toBe('Draft');
      }
      // A property of a CFIHOS library gets a CFIHOS IRI.
      const cfihos = await createLibrary(service, {
        cfihosPrefix: 'ACME',
        upperOntologies: [CFIHOS_RDL_V2_IRI],
      });
      const cfihosProperty = await create(service, '/general/property', {
        name: uniqueName('P'),
        ontology: cfihos,
        types: ['freeText'],
      });
      expect(cfihosProperty.iri).toMatch(/^https:\/\/rdl\.example\.org\/cfihos\/property\//);
    });

    it('checks CFIHOS classes: entity type, super entity and property references', async () => {
      const ontology = await createLibrary(service);
      const property = await create(service, '/general/property', {
        name: uniqueName('P'),
        ontology,
        types: ['freeText'],
      });
      const tag = await create(service, '/cfihos/entity', {
        name: uniqueName('Tag'),
        ontology,
        entityType: 'tag',
        propertyReferences: [],
      });
      const base = { changeJustification: 'x', description: 'd', ontology };
      await refused(
        'POST',
        '/cfihos/entity',
        { ...base, name: uniqueName('E'), entityType: 'machine', propertyReferences: [] },
        400,
        ['/entityType'],
      );
      await refused(
        'POST',
        '/cfihos/entity',
        {
          ...base,
          name: uniqueName('E'),
          entityType: 'equipment',
          superEntity: tag.iri,
          propertyReferences: [],
        },
        400,
        ['/superEntity'],
      );
      await refused(
        'POST',
        '/cfihos/entity',
        {
          ...base,
          name: uniqueName('E'),
          entityType: 'equipment',
          propertyReferences: [
            { propertyUri: property.iri, minCardinality: 2, maxCardinality: 1 },
            { propertyUri: ontology, minCardinality: 0, maxCardinality: 1 },
          ],
        },
        400,
        ['/propertyReferences/0/minCardinality', '/propertyReferences/1/propertyUri'],
      );
      await refused(
        'POST',
        '/cfihos/entity',
        {
          ...base,
          name: uniqueName('E'),
          entityType: 'equipment',
          propertyReferences: [
            { propertyUri: property.iri, minCardinality: -1, maxCardinality: 1 },
          ],
        },
        400,
        ['/propertyReferences/0/minCardinality'],
      );
      const equipment = await create(service, '/cfihos/entity', {
        name: uniqueName('Centrifugal pump'),
        ontology,
        entityType: 'equipment',
        propertyReferences: [{ propertyUri: property.iri, minCardinality: 0, maxCardinality: 1 }],
        isAbstract: false,
      });
      expect(equipment.iri).toMatch(/\/cfihos\/equipmentClass\//);
      // CFIHOS names a tag class and an equipment class alike: each kind is its own name scope.
      const twin = await create(service, '/cfihos/entity', {
        name: tag.name,
        ontology,
        entityType: 'equipment',
        propertyReferences: [],
      });
      expect(twin.iri).toMatch(/\/cfihos\/equipmentClass\//);
      await refused(
        'POST',
        '/cfihos/entity',
        {
          ...base,
          name: String(tag.name).toUpperCase(),
          entityType: 'tag',
          propertyReferences: [],
        },
        409,
        [],
      );
    });
  });

  describe('updates', () => {
    it('replaces a Draft, with ETags, If-Match, 404, wrong family and the justification', async () => {
      const ontology = await createLibrary(service);
      const created = await create(service, '/rdl/terms/subclass', {
        name: uniqueName('Motor'),
        ontology,
        subClassOf: ['http://x.example/m'],
      });
      const url = `/rdl/terms/subclass?${iriQuery(created.iri)}`;
      const body = {
        changeJustification: 'Better words',
        name: created.name,
        description: 'An electric motor',
        ontology,
        subClassOf: ['http://x.example/m'],
      };
      const updated = await service.call('PUT', url, { body, headers: { 'if-match': '"1"' } });
      expect(updated.statusCode).toBe(204);
      expect(updated.body).toBe('');
      expect(updated.headers.etag).toBe('"2"');
      const read = await service.call('GET', url);
      expect(read.json()).toMatchObject({ description: 'An electric motor', version: 2 });

      const stale = await service.call('PUT', url, { body, headers: { 'if-match': '"1"' } });
      expect(stale.statusCode).toBe(409);
      expect(stale.json().title).toBe('Changed meanwhile');
      await refused('PUT', url, { ...body, changeJustification: undefined }, 400, [
        '/changeJustification',
      ]);
      const unknown = await service.call(
        'PUT',
        `/rdl/terms/subclass?${iriQuery(`${ontology}/nothing`)}`,
        { body },
      );
      expect(unknown.statusCode).toBe(404);
      const { subClassOf: _classOnly, ...common } = body;
      const wrong = await service.call('PUT', `/general/property?${iriQuery(created.iri)}`, {
        body: { ...common, types: ['freeText'] },
      });
      expect(wrong.statusCode).toBe(400);
      expect(wrong.json().title).toBe('Resource of another family');
      const missingIri = await service.call('PUT', '/rdl/terms/subclass', { body });
      expect(missingIri.statusCode).toBe(400);
    });

    it('lets exactly one of two concurrent updates of a Draft win', async () => {
      const ontology = await createLibrary(service);
      const created = await create(service, '/rdl/terms/subclass', {
        name: uniqueName('Fan'),
        ontology,
        subClassOf: ['http://x.example/f'],
      });
      const url = `/rdl/terms/subclass?${iriQuery(created.iri)}`;
      const answers = await Promise.all(
        ['First', 'Second', 'Third'].map((word) =>
          service.call('PUT', url, {
            headers: { 'if-match': '"1"' },
            body: {
              changeJustification: word,
              name: created.name,
              description: word,
              ontology,
              subClassOf: ['http://x.example/f'],
            },
          }),
        ),
      );
      expect(answers.map((answer) => answer.statusCode).sort()).toEqual([204, 409, 409]);
      const revisions = await service.call('GET', `/revisions?${iriQuery(created.iri)}`);
      expect(revisions.json().map((revision: { action: string }) => revision.action)).toEqual([
        'create',
        'update',
      ]);
    });
  });

  describe('lifecycle', () => {
    it('submits a Draft once, locks it, and keeps every step as a revision', async () => {
      // Published first: an approval waits for everything the resource names.
      const ontology = await createLibrary(service);
      await approve(service, ontology);
      const created = await create(service, '/cfihos/dimension', {
        name: uniqueName('Mass'),
        ontology,
        dimensionCode: 'M',
      });
      const submit = `/status/submit?${iriQuery(created.iri)}`;
      expect((await service.call('PUT', submit)).statusCode).toBe(204);
      const again = await service.call('PUT', submit);
      expect(again.statusCode).toBe(409);
      expect(again.json().title).toBe('Not in the state this step starts from');
      expect(again.json().detail).toMatch(/is Submitted; submit takes a Draft resource/);
      const locked = await service.call('PUT', `/cfihos/dimension?${iriQuery(created.iri)}`, {
        body: {
          changeJustification: 'x',
          name: 'Mass',
          description: 'd',
          ontology,
          dimensionCode: 'M',
        },
      });
      expect(locked.statusCode).toBe(409);
      expect(
        (await service.call('PUT', `/status/submit?${iriQuery(`${ontology}/none`)}`)).statusCode,
      ).toBe(404);

      const approval = `/status/approve?${iriQuery(created.iri)}`;
      const noReason = await service.call('PUT', approval, { roles: ['Reviewer'], body: {} });
      expect(noReason.statusCode).toBe(400);
      const stale = await service.call('PUT', approval, {
        roles: ['Reviewer'],
        body: { justification: 'ok' },
        headers: { 'if-match': '"1"' },
      });
      expect(stale.statusCode).toBe(409);
      expect(
        (
          await service.call('PUT', approval, {
            roles: ['Reviewer'],
            body: { justification: 'Correct' },
          })
        ).statusCode,
      ).toBe(204);
      expect(
        (
          await service.call('PUT', `/status/reject?${iriQuery(created.iri)}`, {
            roles: ['Reviewer'],
            body: { justification: 'late' },
          })
        ).statusCode,
      ).toBe(409);

      const history = (
        await service.call('GET', `/revisions?${iriQuery(created.iri)}`, { roles: ['Reader'] })
      ).json();
      expect(
        history.map((revision: { action: string; status: string }) => [
          revision.action,
          revision.status,
        ]),
      ).toEqual([
        ['create', 'Draft'],
        ['submit', 'Submitted'],
        ['approve', 'Approved'],
      ]);
      expect(history[2]).toMatchObject({ actor: 'rita', justification: 'Correct', version: 3 });
    });

    it('deprecates what an approved resource replaces, and rejects with a reason', async () => {
      const ontology = await createLibrary(service);
      await approve(service, ontology);
      const old = await create(service, '/cfihos/dimension', {
        name: uniqueName('Time'),
        ontology,
        dimensionCode: 'T',
      });
      // Only what was published can be replaced.
      await service.call('PUT', `/status/submit?${iriQuery(old.iri)}`);
      await service.call('PUT', `/status/approve?${iriQuery(old.iri)}`, {
        roles: ['Reviewer'],
        body: { justification: 'Published' },
      });
      const replacement = await create(service, '/cfihos/dimension', {
        name: uniqueName('Duration'),
        ontology,
        dimensionCode: 'T',
        replaces: old.iri,
      });
      await service.call('PUT', `/status/submit?${iriQuery(replacement.iri)}`);
      await service.call('PUT', `/status/approve?${iriQuery(replacement.iri)}`, {
        roles: ['Reviewer'],
        body: { justification: 'Clearer name' },
      });
      const replaced = await service.call('GET', `/cfihos/dimension?${iriQuery(old.iri)}`);
      expect(replaced.json().status).toBe('Deprecated');

      const other = await create(service, '/cfihos/dimension', {
        name: uniqueName('Angle'),
        ontology,
        dimensionCode: 'A',
      });
      await service.call('PUT', `/status/submit?${iriQuery(other.iri)}`);
      expect(
        (
          await service.call('PUT', `/status/reject?${iriQuery(other.iri)}`, {
            roles: ['Reviewer'],
            body: { justification: 'Duplicate of Plane angle' },
          })
        ).statusCode,
      ).toBe(204);
      expect(
        (await service.call('GET', `/cfihos/dimension?${iriQuery(other.iri)}`)).json().status,
      ).toBe('Rejected');
      await refused(
        'POST',
        '/cfihos/dimension',
        {
          changeJustification: 'x',
          name: uniqueName('D'),
          description: 'd',
          ontology,
          dimensionCode: 'X',
          replaces: ontology,
        },
        400,
        ['/replaces'],
      );
    });
  });

  describe('picklists', () => {
    it('owns its values: creates, updates, removes them, and submits them together', async () => {
      const ontology = await createLibrary(service);
      const picklist = await create(service, '/cfihos/picklist', {
        name: uniqueName('Seal types'),
        ontology,
        subClassOf: 'http://x.example/picklist',
        picklistValues: [
          { name: 'Mechanical', description: 'A mechanical seal' },
          { name: 'Packing', description: 'Gland packing' },
        ],
      });
      const values = picklist.picklistValues as { id: string; name: string }[];
      expect(values.map((value) => value.name)).toEqual(['Mechanical', 'Packing']);
      const mechanical = values[0]?.id as string;
      expect(mechanical).toMatch(/\/cfihos\/propertyPicklistValue\//);

      const url = `/cfihos/picklist?${iriQuery(picklist.iri)}`;
      const update = await service.call('PUT', url, {
        body: {
          changeJustification: 'Packing is obsolete',
          name: picklist.name,
          description: 'd',
          ontology,
          subClassOf: 'http://x.example/picklist',
          picklistValues: [
            { id: mechanical, name: 'Mechanical seal', description: 'A mechanical seal' },
            { name: 'Lip', description: 'A lip seal' },
          ],
        },
      });
      expect(update.statusCode).toBe(204);
      const read = (await service.call('GET', url)).json();
      expect(
        read.picklistValues.map((value: { id: string; name: string }) => [
          value.id === mechanical,
          value.name,
        ]),
      ).toEqual([
        [true, 'Mechanical seal'],
        [false, 'Lip'],
      ]);
      await refused(
        'PUT',
        url,
        {
          changeJustification: 'x',
          name: picklist.name,
          description: 'd',
          ontology,
          subClassOf: 'http://x.example/picklist',
          picklistValues: [
            { id: `${ontology}/foreign`, name: 'X', description: 'd' },
            { name: 'lip', description: 'd' },
            { name: 'Lip', description: 'd' },
          ],
        },
        400,
        ['/picklistValues/0/id', '/picklistValues/2/name'],
      );

      const valueSubmit = await service.call('PUT', `/status/submit?${iriQuery(mechanical)}`);
      expect(valueSubmit.statusCode).toBe(409);
      expect(valueSubmit.json().title).toBe('Values move with their picklist');
      expect(valueSubmit.json().detail).toMatch(
        /submitted, approved and rejected with its picklist/,
      );
      expect(
        (await service.call('PUT', `/status/submit?${iriQuery(picklist.iri)}`)).statusCode,
      ).toBe(204);
      const after = (await service.call('GET', url)).json();
      expect(after.status).toBe('Submitted');
      expect(after.picklistValues.map((value: { status: string }) => value.status)).toEqual([
        'Submitted',
        'Submitted',
      ]);
      // A value of a submitted picklist can no longer be added or changed.
      await refused(
        'POST',
        '/cfihos/picklistvalue',
        { changeJustification: 'x', name: 'Late', description: 'd', picklist: picklist.iri },
        400,
        ['/picklist'],
      );
    });

    it('adds a value through the standalone route while the picklist is a Draft', async () => {
      const ontology = await createLibrary(service);
      const picklist = await create(service, '/cfihos/picklist', {
        name: uniqueName('Drives'),
        ontology,
        subClassOf: 'http://x.example/p',
      });
      const value = await create(service, '/cfihos/picklistvalue', {
        name: 'Electric',
        picklist: picklist.iri,
      });
      expect(value.picklist).toBe(picklist.iri);
      const read = (await service.call('GET', `/cfihos/picklist?${iriQuery(picklist.iri)}`)).json();
      expect(read.picklistValues.map((entry: { id: string }) => entry.id)).toEqual([value.iri]);
      await refused(
        'POST',
        '/cfihos/picklistvalue',
        { changeJustification: 'x', name: 'electric', description: 'd', picklist: picklist.iri },
        409,
      );
      await refused(
        'POST',
        '/cfihos/picklistvalue',
        { changeJustification: 'x', name: 'Hydraulic', description: 'd', picklist: ontology },
        400,
        ['/picklist'],
      );
    });
  });

  it("takes the ETag a GET of the resource's IRI gave, in any format, as the version it names", async () => {
    const ontology = await createLibrary(service);
    const name = uniqueName('Impeller');
    const made = await create(service, '/rdl/terms/subclass', {
      name,
      ontology,
      subClassOf: ['http://x.example/E'],
    });
    const path = new URL(made.iri).pathname;
    const read = await service.call('GET', path, { headers: { accept: 'application/json' } });
    const representation = read.headers.etag as string;
    expect(representation).toMatch(/^"\d+-json"$/);
    const body = (description: string) => ({
      changeJustification: 'Clearer',
      name,
      description,
      ontology,
      subClassOf: ['http://x.example/E'],
    });
    const url = `/rdl/terms/subclass?${iriQuery(made.iri)}`;
    const based = await service.call('PUT', url, {
      headers: { 'if-match': representation },
      body: body('Moves fluid'),
    });
    expect(based.statusCode, based.body).toBe(204);
    // The same tag names the version before: stale now, in Turtle's form as in JSON's.
    for (const tag of [representation, representation.replace('-json', '-turtle')]) {
      const stale = await service.call('PUT', url, {
        headers: { 'if-match': tag },
        body: body('Overwrite'),
      });
      expect(stale.statusCode, tag).toBe(409);
      expect(stale.json().type).toMatch(/stale-write$/);
    }
    // A version that merely begins like it is another version.
    const now = (await service.call('GET', path, { headers: { accept: 'text/turtle' } })).headers
      .etag as string;
    const longer = now.replace(/^"(\d+)-/, '"$10-');
    const wrong = await service.call('PUT', url, {
      headers: { 'if-match': longer },
      body: body('Overwrite'),
    });
    expect(wrong.statusCode).toBe(409);
    const current = await service.call('PUT', url, {
      headers: { 'if-match': now },
      body: body('Moves fluid with an impeller'),
    });
    expect(current.statusCode).toBe(204);
  });

  it('gives a picklist an ETag that covers its values, so a value edited on its own is not lost', async () => {
    const ontology = await createLibrary(service);
    const picklist = await create(service, '/cfihos/picklist', {
      name: uniqueName('Seals'),
      ontology,
      subClassOf: 'http://x.example/seal',
      picklistValues: [{ name: 'Lip', description: 'A lip seal' }],
    });
    const url = `/cfihos/picklist?${iriQuery(picklist.iri)}`;
    const path = new URL(picklist.iri).pathname;
    const first = await service.call('GET', url);
    const valueIri = first.json().picklistValues[0].id as string;
    const turtle = await service.call('GET', path, { headers: { accept: 'text/turtle' } });
    const tags = { json: first.headers.etag as string, turtle: turtle.headers.etag as string };

    // A value changed through its own route.
    const edited = await service.call('PUT', `/cfihos/picklistvalue?${iriQuery(valueIri)}`, {
      body: {
        changeJustification: 'Clearer',
        name: 'Lip',
        description: 'A lip seal, spring-loaded',
        picklist: picklist.iri,
      },
    });
    expect(edited.statusCode).toBe(204);
    const second = await service.call('GET', url);
    expect(second.headers.etag).not.toBe(tags.json);
    expect(second.json().picklistValues[0].description).toBe('A lip seal, spring-loaded');
    const conditional = await service.call('GET', path, {
      headers: { accept: 'text/turtle', 'if-none-match': tags.turtle },
    });
    expect(conditional.statusCode).toBe(200);
    expect(conditional.body).toContain('spring-loaded');
    // A picklist PUT based on what was read before the value's edit is stale.
    const stale = await service.call('PUT', url, {
      headers: { 'if-match': tags.json },
      body: {
        changeJustification: 'Overwrite',
        name: first.json().name,
        description: 'A picklist',
        ontology,
        subClassOf: 'http://x.example/seal',
        picklistValues: [{ id: valueIri, name: 'Lip', description: 'A lip seal' }],
      },
    });
    expect(stale.statusCode).toBe(409);
    expect(stale.json().type).toMatch(/stale-write$/);
    // A value added on its own changes the tag as well, and the history says so.
    await create(service, '/cfihos/picklistvalue', { name: 'Labyrinth', picklist: picklist.iri });
    const third = await service.call('GET', url);
    expect(third.headers.etag).not.toBe(second.headers.etag);
  });

  it('answers the unsupported routes with a 404 problem that says so', async () => {
    for (const [method, url] of [
      ['POST', '/rdl/terms/annotationproperty'],
      ['GET', '/rdl/shapes'],
      ['PUT', '/rdl/shapes?iri=x'],
    ] as const) {
      const response = await service.call(method, url, method === 'GET' ? {} : { body: {} });
      expect(response.statusCode).toBe(404);
      expect(response.json()).toMatchObject({ title: 'Route not supported', status: 404 });
    }
  });
});
