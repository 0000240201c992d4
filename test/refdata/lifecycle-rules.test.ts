import { describe, expect, it } from 'vitest';
import { DATABASE_KINDS } from '../harness.js';
import {
  approve,
  create,
  createLibrary,
  iriQuery,
  refdataForTests,
  uniqueName,
} from './helpers.js';

/**
 * Lifecycle and rule defects found by clients and fuzzers nobody on the team
 * wrote: values deciding alone, IRIs drifting from their fields, loops in class
 * hierarchies, blank text, values without a library, lost history, replacing the
 * unpublished.
 */
describe.each(DATABASE_KINDS)('refdata lifecycle rules on %s', (kind) => {
  const service = refdataForTests(kind, { REFDATA_IRI_BASE: 'https://rdl.example.org' });

  const pathOf = (iri: string) => iri.replace('https://rdl.example.org', '');
  const read = async (route: string, iri: string) =>
    (await service.call('GET', `${route}?${iriQuery(iri)}`)).json();
  const decide = (decision: 'approve' | 'reject', iri: string) =>
    service.call('PUT', `/status/${decision}?${iriQuery(iri)}`, {
      roles: ['Reviewer'],
      body: { justification: 'Reviewed' },
    });
  const submit = (iri: string) => service.call('PUT', `/status/submit?${iriQuery(iri)}`);
  /** A library approved: an approval waits for everything a term names, its library too. */
  const approvedLibrary = async () => {
    const library = await createLibrary(service);
    await approve(service, library);
    return library;
  };
  const publish = async (iri: string) => {
    expect((await submit(iri)).statusCode).toBe(204);
    expect((await decide('approve', iri)).statusCode).toBe(204);
  };

  async function picklistWithValues(ontology: string) {
    const picklist = await create(service, '/cfihos/picklist', {
      name: uniqueName('Seal types'),
      ontology,
      subClassOf: 'http://x.example/picklist',
      picklistValues: [
        { name: 'Mechanical', description: 'A mechanical seal' },
        { name: 'Packing', description: 'Gland packing' },
      ],
    });
    return { picklist, values: picklist.picklistValues as { id: string; name: string }[] };
  }

  describe('1: picklist values move only with their picklist', () => {
    for (const decision of ['approve', 'reject'] as const) {
      it(`refuses to ${decision} a value alone, and the picklist decision moves every value`, async () => {
        const { picklist, values } = await picklistWithValues(await approvedLibrary());
        expect((await submit(picklist.iri)).statusCode).toBe(204);
        const value = values[0]?.id as string;
        const alone = await decide(decision, value);
        expect(alone.statusCode).toBe(409);
        expect(alone.json()).toMatchObject({
          title: 'Values move with their picklist',
          type: expect.stringMatching(/\/problems\/moves-with-picklist$/),
        });
        expect((await read('/cfihos/picklistvalue', value)).status).toBe('Submitted');

        expect((await decide(decision, picklist.iri)).statusCode).toBe(204);
        const after = await read('/cfihos/picklist', picklist.iri);
        const status = decision === 'approve' ? 'Approved' : 'Rejected';
        expect(after.status).toBe(status);
        expect(after.picklistValues.map((entry: { status: string }) => entry.status)).toEqual([
          status,
          status,
        ]);
      });
    }

    it('says the picklist is the one not in the right state, not one of its values', async () => {
      const { picklist } = await picklistWithValues(await approvedLibrary());
      expect((await submit(picklist.iri)).statusCode).toBe(204);
      const again = await submit(picklist.iri);
      expect(again.statusCode).toBe(409);
      expect(again.json().detail).toBe(
        `${picklist.iri} is Submitted; submit takes a Draft resource.`,
      );
      const early = await decide(
        'approve',
        (
          await create(service, '/cfihos/dimension', {
            name: uniqueName('Length'),
            ontology: await createLibrary(service),
            dimensionCode: 'L',
          })
        ).iri,
      );
      expect(early.statusCode).toBe(409);
      expect(early.json().title).toBe('Not in the state this step starts from');
      expect(early.json().detail).toMatch(/is Draft; approve takes a Submitted resource/);
    });
  });

  describe('2: what is part of an IRI cannot change', () => {
    it('keeps a library path and a term library fixed, naming the field', async () => {
      const first = await createLibrary(service, { path: uniqueName('fixed').replace(' ', '-') });
      const second = await createLibrary(service);
      const path = first.slice(first.lastIndexOf('/') + 1);
      const moved = await service.call('PUT', `/ontologies/domains?${iriQuery(first)}`, {
        body: { changeJustification: 'Move', name: 'Moved', description: 'd', path: 'elsewhere' },
      });
      expect(moved.statusCode).toBe(400);
      expect(moved.json().errors).toEqual([
        {
          pointer: '#/path',
          detail: `Path cannot change after create (it is part of the IRI); it is "${path}"`,
        },
      ]);
      // Leaving the path out keeps it; renaming is fine.
      const renamed = await service.call('PUT', `/ontologies/domains?${iriQuery(first)}`, {
        body: { changeJustification: 'Rename', name: uniqueName('Renamed'), description: 'd' },
      });
      expect(renamed.statusCode, renamed.body).toBe(204);
      expect((await read('/ontologies/domains', first)).path).toBe(path);
      // A library made from its name records the path it got.
      expect((await read('/ontologies/domains', second)).path).toBe(
        second.slice(second.lastIndexOf('/') + 1),
      );

      const term = await create(service, '/rdl/terms/subclass', {
        name: uniqueName('Pump'),
        ontology: first,
        subClassOf: ['http://x.example/Equipment'],
      });
      const rehomed = await service.call('PUT', `/rdl/terms/subclass?${iriQuery(term.iri)}`, {
        body: {
          changeJustification: 'Move',
          name: 'Pump',
          description: 'd',
          ontology: second,
          subClassOf: ['http://x.example/Equipment'],
        },
      });
      expect(rehomed.statusCode).toBe(400);
      expect(rehomed.json().errors[0]).toMatchObject({ pointer: '#/ontology' });
      expect((await read('/rdl/terms/subclass', term.iri)).ontology).toBe(first);
    });
  });

  describe('3: generalization cycles', () => {
    it('refuses a subClassOf loop of three classes, naming the field and the loop', async () => {
      const ontology = await createLibrary(service);
      const a = await create(service, '/rdl/terms/subclass', {
        name: uniqueName('A'),
        ontology,
        subClassOf: ['http://x.example/Thing'],
      });
      const b = await create(service, '/rdl/terms/subclass', {
        name: uniqueName('B'),
        ontology,
        subClassOf: [a.iri],
      });
      const c = await create(service, '/rdl/terms/subclass', {
        name: uniqueName('C'),
        ontology,
        subClassOf: [b.iri],
      });
      const loop = await service.call('PUT', `/rdl/terms/subclass?${iriQuery(a.iri)}`, {
        body: {
          changeJustification: 'Loop',
          name: a.name,
          description: 'd',
          ontology,
          subClassOf: ['http://x.example/Thing', c.iri],
        },
      });
      expect(loop.statusCode).toBe(400);
      expect(loop.json().errors).toEqual([
        {
          pointer: '#/subClassOf/1',
          detail: `Superclasses › 2 would make a cycle of generalizations: ${a.iri} → ${c.iri} → ${b.iri} → ${a.iri}`,
        },
      ]);
    });

    it('refuses a superEntity loop of CFIHOS classes', async () => {
      const ontology = await createLibrary(service);
      const entity = (name: string, superEntity?: string) =>
        create(service, '/cfihos/entity', {
          name: uniqueName(name),
          ontology,
          entityType: 'equipment',
          propertyReferences: [],
          ...(superEntity ? { superEntity } : {}),
        });
      const top = await entity('Rotating equipment');
      const middle = await entity('Pump', top.iri);
      const bottom = await entity('Centrifugal pump', middle.iri);
      const loop = await service.call('PUT', `/cfihos/entity?${iriQuery(top.iri)}`, {
        body: {
          changeJustification: 'Loop',
          name: top.name,
          description: 'd',
          ontology,
          entityType: 'equipment',
          propertyReferences: [],
          superEntity: bottom.iri,
        },
      });
      expect(loop.statusCode).toBe(400);
      expect(loop.json().errors[0]).toMatchObject({ pointer: '#/superEntity' });
      expect(loop.json().errors[0].detail).toContain(`${top.iri} → ${bottom.iri} → ${middle.iri}`);
    });
  });

  describe('4: blank text', () => {
    it('refuses white-space-only text and stores prose trimmed', async () => {
      const ontology = await createLibrary(service);
      for (const field of ['name', 'description', 'changeJustification']) {
        const response = await service.call('POST', '/cfihos/dimension', {
          body: {
            changeJustification: 'Blank test',
            name: uniqueName('Blank'),
            description: 'd',
            ontology,
            dimensionCode: 'B',
            [field]: ' \t\n ',
          },
        });
        expect(response.statusCode, field).toBe(400);
        expect(response.json().errors).toEqual([
          {
            pointer: `#/${field}`,
            detail: `${{ name: 'Name', description: 'Description', changeJustification: 'Why this change' }[field]} must not be empty or only white space`,
          },
        ]);
      }
      const name = uniqueName('Trimmed');
      const created = await create(service, '/cfihos/dimension', {
        name: `  ${name}  `,
        description: '  Padded  ',
        changeJustification: '  Why  ',
        ontology,
        dimensionCode: 'T',
      });
      expect(created).toMatchObject({ name, description: 'Padded' });
      const [revision] = (await service.call('GET', `/revisions?${iriQuery(created.iri)}`)).json();
      expect(revision.justification).toBe('Why');
      await submit(created.iri);
      const blankDecision = await service.call('PUT', `/status/approve?${iriQuery(created.iri)}`, {
        roles: ['Reviewer'],
        body: { justification: '   ' },
      });
      expect(blankDecision.statusCode).toBe(400);
      expect(blankDecision.json().errors[0].pointer).toBe('#/justification');
    });
  });

  describe('5: a standalone value takes its picklist library', () => {
    it('in JSON, RDF and search, with its collection', async () => {
      const ontology = await createLibrary(service);
      const picklist = await create(service, '/cfihos/picklist', {
        name: uniqueName('Drives'),
        ontology,
        subClassOf: 'http://x.example/p',
      });
      const label = uniqueName('Hydraulicdrive');
      const value = await create(service, '/cfihos/picklistvalue', {
        name: label,
        picklist: picklist.iri,
      });
      expect(value.ontology).toBe(ontology);
      const turtle = await service.call('GET', pathOf(value.iri), {
        headers: { accept: 'application/n-triples' },
      });
      expect(turtle.body).toContain(
        `<${value.iri}> <http://www.w3.org/2000/01/rdf-schema#isDefinedBy> <${ontology}> .`,
      );
      const found = await service.call(
        'GET',
        `/search/search-index?q=${encodeURIComponent(label)}&library=${encodeURIComponent(ontology)}`,
      );
      expect(found.statusCode, found.body).toBe(200);
      expect(found.json().hits.map((hit: { iri: string }) => hit.iri)).toEqual([value.iri]);
      expect(found.json().hits[0].collection).toMatchObject({ iri: ontology });
      const elsewhere = await service.call(
        'GET',
        `/search/search-index?q=${encodeURIComponent(label)}&library=${encodeURIComponent(await createLibrary(service))}`,
      );
      expect(elsewhere.json().total).toBe(0);
    });
  });

  describe('6: removed values keep their history', () => {
    it('writes a tombstone revision and records the values in the picklist revisions', async () => {
      const ontology = await createLibrary(service);
      const { picklist, values } = await picklistWithValues(ontology);
      const [mechanical, packing] = values as unknown as [{ id: string }, { id: string }];
      const update = await service.call('PUT', `/cfihos/picklist?${iriQuery(picklist.iri)}`, {
        body: {
          changeJustification: 'Packing is obsolete',
          name: picklist.name,
          description: 'd',
          ontology,
          subClassOf: 'http://x.example/picklist',
          picklistValues: [{ id: mechanical.id, name: 'Mechanical', description: 'A seal' }],
        },
      });
      expect(update.statusCode, update.body).toBe(204);

      const history = await service.call('GET', `/revisions?${iriQuery(packing.id)}`);
      expect(history.statusCode, history.body).toBe(200);
      expect(
        history
          .json()
          .map((revision: { action: string; version: number }) => [
            revision.action,
            revision.version,
          ]),
      ).toEqual([
        ['create', 1],
        ['remove', 2],
      ]);
      expect(history.json()[1]).toMatchObject({
        actor: 'alice',
        justification: 'Packing is obsolete',
        body: { name: 'Packing' },
      });
      const gone = await service.call('GET', `/cfihos/picklistvalue?${iriQuery(packing.id)}`);
      expect(gone.statusCode).toBe(410);
      expect(gone.json().title).toBe('Removed');

      expect((await submit(picklist.iri)).statusCode).toBe(204);
      const picklistHistory = (
        await service.call('GET', `/revisions?${iriQuery(picklist.iri)}`)
      ).json();
      expect(
        picklistHistory.map(
          (revision: { body: { picklistValues: unknown } }) => revision.body.picklistValues,
        ),
      ).toEqual([
        [
          { id: mechanical.id, name: 'Mechanical', description: 'A mechanical seal' },
          { id: packing.id, name: 'Packing', description: 'Gland packing' },
        ],
        [{ id: mechanical.id, name: 'Mechanical', description: 'A seal' }],
        [{ id: mechanical.id, name: 'Mechanical', description: 'A seal' }],
      ]);
    });
  });

  describe('7: replacing', () => {
    it('replaces only Approved resources, and both sides link in JSON and RDF', async () => {
      const ontology = await approvedLibrary();
      const old = await create(service, '/cfihos/dimension', {
        name: uniqueName('Time'),
        ontology,
        dimensionCode: 'T',
      });
      const early = await service.call('POST', '/cfihos/dimension', {
        body: {
          changeJustification: 'x',
          name: uniqueName('Duration'),
          description: 'd',
          ontology,
          dimensionCode: 'T',
          replaces: old.iri,
        },
      });
      expect(early.statusCode).toBe(400);
      expect(early.json().errors).toEqual([
        {
          pointer: '#/replaces',
          detail: 'Replaces must be an Approved unit-of-measure dimension; it is Draft',
        },
      ]);

      await publish(old.iri);
      const replacement = await create(service, '/cfihos/dimension', {
        name: uniqueName('Duration'),
        ontology,
        dimensionCode: 'T',
        replaces: old.iri,
      });
      // A Draft replacement says nothing yet about the old one.
      expect((await read('/cfihos/dimension', old.iri)).replacedBy).toBeUndefined();
      await publish(replacement.iri);
      const deprecated = await read('/cfihos/dimension', old.iri);
      expect(deprecated).toMatchObject({ status: 'Deprecated', replacedBy: replacement.iri });
      for (const accept of ['application/n-triples', 'text/turtle', 'application/ld+json']) {
        const rdf = await service.call('GET', pathOf(old.iri), {
          headers: { accept },
        });
        expect(rdf.body, accept).toContain(replacement.iri);
        expect(rdf.body, accept).toMatch(/isReplacedBy/);
      }
      const dereferenced = await service.call('GET', pathOf(old.iri), {
        headers: { accept: 'application/json' },
      });
      expect(dereferenced.json().replacedBy).toBe(replacement.iri);
      // The library's export says it too: a link to another IRI, so at level 2 as well.
      for (const level of [2, 3]) {
        const exported = await service.call('GET', `${pathOf(ontology)}?detailLevel=${level}`, {
          headers: { accept: 'application/n-triples' },
        });
        expect(exported.body, `level ${level}`).toContain(
          `<${old.iri}> <http://purl.org/dc/terms/isReplacedBy> <${replacement.iri}> .`,
        );
      }
      const forward = await service.call('GET', pathOf(replacement.iri), {
        headers: { accept: 'application/n-triples' },
      });
      expect(forward.body).toContain(
        `<${replacement.iri}> <http://purl.org/dc/terms/replaces> <${old.iri}> .`,
      );
    });

    it('keeps one successor: a second replacement of what is already replaced is refused', async () => {
      const ontology = await approvedLibrary();
      const old = await create(service, '/cfihos/dimension', {
        name: uniqueName('Luminosity'),
        ontology,
        dimensionCode: 'J',
      });
      await publish(old.iri);
      // Two Drafts replace the same Approved resource; the first to be approved wins.
      const [first, second] = [
        await create(service, '/cfihos/dimension', {
          name: uniqueName('Luminous intensity'),
          ontology,
          dimensionCode: 'J',
          replaces: old.iri,
        }),
        await create(service, '/cfihos/dimension', {
          name: uniqueName('Light'),
          ontology,
          dimensionCode: 'J',
          replaces: old.iri,
        }),
      ];
      expect((await service.call('PUT', `/status/submit?${iriQuery(second.iri)}`)).statusCode).toBe(
        204,
      );
      await publish(first.iri);
      const approval = await service.call('PUT', `/status/approve?${iriQuery(second.iri)}`, {
        roles: ['Reviewer'],
        body: { justification: 'Also good' },
      });
      expect(approval.statusCode).toBe(409);
      expect(approval.json().type).toMatch(/already-replaced$/);
      expect(approval.json().detail).toContain(first.iri);
      expect((await read('/cfihos/dimension', second.iri)).status).toBe('Submitted');
      expect((await read('/cfihos/dimension', old.iri)).replacedBy).toBe(first.iri);
      // It can still be rejected.
      expect((await decide('reject', second.iri)).statusCode).toBe(204);
    });
  });

  describe('8: references are of the families their field names', () => {
    it('refuses a resource named where its own family is not taken, and an outside IRI that is one of ours of the wrong family', async () => {
      const ontology = await createLibrary(service);
      const dimension = await create(service, '/cfihos/dimension', {
        name: uniqueName('Length'),
        ontology,
        dimensionCode: 'L',
      });
      const unit = await create(service, '/cfihos/unitofmeasure', {
        name: uniqueName('Metre'),
        ontology,
        dimensionRef: dimension.iri,
        measurementSystem: 'SI',
        symbol: 'm',
      });
      // A unit measuring itself: the field takes dimensions only.
      const itself = await service.call('PUT', `/cfihos/unitofmeasure?${iriQuery(unit.iri)}`, {
        body: {
          changeJustification: 'x',
          name: unit.name,
          description: 'd',
          ontology,
          dimensionRef: unit.iri,
          measurementSystem: 'SI',
          symbol: 'm',
        },
      });
      expect(itself.statusCode).toBe(400);
      expect(itself.json().errors).toEqual([
        {
          pointer: '#/dimensionRef',
          detail:
            'Dimension ref must be the IRI of a unit-of-measure dimension, not of a unit of measure',
        },
      ]);
      expect((await read('/cfihos/unitofmeasure', unit.iri)).dimensionRef).toBe(dimension.iri);
      // A picklist may be a kind of a class elsewhere, but one of ours must be a class.
      const kindOfLibrary = await service.call('POST', '/cfihos/picklist', {
        body: {
          changeJustification: 'x',
          name: uniqueName('Colours'),
          description: 'd',
          ontology,
          subClassOf: ontology,
        },
      });
      expect(kindOfLibrary.statusCode).toBe(400);
      expect(kindOfLibrary.json().errors).toEqual([
        {
          pointer: '#/subClassOf',
          detail: 'Superclass must be the IRI of a class, not of a library',
        },
      ]);
    });
  });
});
