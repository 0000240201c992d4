import { describe, expect, it } from 'vitest';
import { DATABASE_KINDS } from '../harness.js';
import {
  approve,
  create,
  createLibrary,
  iriQuery,
  type Refdata,
  refdataForTests,
  storedCounts,
  uniqueName,
} from './helpers.js';

const REVIEWER = { roles: ['Reviewer' as const], subject: 'rita' };
const SECOND_REVIEWER = { roles: ['Reviewer' as const], subject: 'ravi' };

/** A class naming a property whose range is a picklist, all Drafts in a Draft library. */
async function chain(service: Refdata, author = 'alice') {
  const library = await createLibrary(service);
  const picklist = await create(
    service,
    '/cfihos/picklist',
    {
      name: uniqueName('Seal types'),
      ontology: library,
      subClassOf: 'https://example.org/List',
      picklistValues: [{ name: 'Single', description: 'One seal' }],
    },
    author,
  );
  const property = await create(
    service,
    '/general/property',
    {
      name: uniqueName('Seal type'),
      ontology: library,
      types: ['controlledText'],
      range: picklist.iri,
    },
    author,
  );
  const equipment = await create(
    service,
    '/cfihos/entity',
    {
      name: uniqueName('Pump'),
      ontology: library,
      entityType: 'equipment',
      propertyReferences: [{ propertyUri: property.iri, minCardinality: 1, maxCardinality: 1 }],
    },
    author,
  );
  return { library, picklist: picklist.iri, property: property.iri, equipment: equipment.iri };
}

async function statusOf(service: Refdata, iri: string): Promise<string> {
  const row = await service.db
    .selectFrom('resources')
    .select('status')
    .where('iri', '=', iri)
    .executeTakeFirstOrThrow();
  return row.status;
}

describe.each(DATABASE_KINDS)('the review process (%s)', (kind) => {
  const service = refdataForTests(kind);

  describe('packages', () => {
    it("submits a library's Drafts as one package, and refuses bad asks storing nothing", async () => {
      const library = await createLibrary(service, { name: uniqueName('Whole library') });
      const pump = await create(service, '/rdl/terms/subclass', {
        name: uniqueName('Pump'),
        ontology: library,
        subClassOf: ['http://x.example/Equipment'],
      });
      const before = await storedCounts(service);
      const refusals: [unknown, number][] = [
        [{}, 400],
        [{ library, resources: [pump.iri] }, 400],
        [{ library: 42 }, 400],
        [{ library: `https://x.example/${'a'.repeat(3000)}` }, 400],
        [{ library, colour: 'red' }, 400],
        [{ library: `${library}-none` }, 404],
        [{ library: pump.iri }, 404],
      ];
      for (const [body, status] of refusals) {
        const refused = await service.call('POST', '/packages', { body });
        expect(refused.statusCode, JSON.stringify(body).slice(0, 80)).toBe(status);
        expect(refused.headers['content-type']).toMatch(/^application\/problem\+json/);
      }
      // Another Creator has no Drafts there: nothing to submit.
      const other = await service.call('POST', '/packages', { subject: 'bob', body: { library } });
      expect(other.statusCode).toBe(409);
      expect(other.json().detail).toMatch(/You have no Drafts in/);
      expect(await storedCounts(service)).toEqual(before);
      // Its author's: the library and the class, one package.
      const made = await service.call('POST', '/packages', { body: { library } });
      expect(made.statusCode, made.body).toBe(201);
      expect(
        made
          .json()
          .items.map((item: { iri: string }) => item.iri)
          .sort(),
      ).toEqual([library, pump.iri].sort());
      // Submitted now: nothing left to submit.
      expect((await service.call('POST', '/packages', { body: { library } })).statusCode).toBe(409);
    });

    it('offers every Draft behind a resource, transitively, and names what it names', async () => {
      const { library, picklist, property, equipment } = await chain(service);
      const answer = await service.call('GET', `/dependencies?${iriQuery(equipment)}`, {
        roles: ['Reader'],
      });
      expect(answer.statusCode).toBe(200);
      const drafts = answer.json().drafts.map((entry: { iri: string }) => entry.iri);
      expect(new Set(drafts)).toEqual(new Set([library, property, picklist]));
      // Nearest first: what the class names before what those name.
      expect(drafts.indexOf(property)).toBeLessThan(drafts.indexOf(picklist));
      const names = answer.json().names;
      expect(names).toContainEqual(
        expect.objectContaining({ iri: property, field: '/propertyReferences/0/propertyUri' }),
      );
      expect(
        (await service.call('GET', `/dependencies?${iriQuery(`${library}/none`)}`)).statusCode,
      ).toBe(404);
    });

    it('submits a package, refuses an approval that names what is not approved, sends one item back and approves the rest together', async () => {
      const { library, picklist, property, equipment } = await chain(service);
      const made = await service.call('POST', '/packages', {
        body: { resources: [equipment, property, picklist, library], name: 'Seal pumps' },
      });
      expect(made.statusCode, made.body).toBe(201);
      const pack = made.json();
      expect(made.headers.location).toMatch(new RegExp(`/packages/${pack.id}$`));
      expect(pack).toMatchObject({
        name: 'Seal pumps',
        state: 'waiting',
        counts: { Submitted: 4 },
      });
      expect(pack.items.map((item: { iri: string }) => item.iri).sort()).toEqual(
        [library, picklist, property, equipment].sort(),
      );
      const waiting = (await service.call('GET', '/packages?state=waiting', REVIEWER)).json();
      expect(waiting.map((entry: { id: number }) => entry.id)).toContain(pack.id);

      // The class alone: the property and picklist it names are not approved yet.
      const before = await storedCounts(service);
      const alone = await service.call('PUT', `/status/approve?${iriQuery(equipment)}`, {
        ...REVIEWER,
        body: { justification: 'Looks right' },
      });
      expect(alone.statusCode).toBe(409);
      expect(alone.json().type).toMatch(/\/problems\/unapproved-dependencies$/);
      expect(alone.json().detail).toContain(property);
      expect(alone.json().detail).toContain(library);
      expect(await storedCounts(service)).toEqual(before);

      // One item back to its author, with what to change.
      const noComment = await service.call('PUT', `/status/request-changes?${iriQuery(picklist)}`, {
        ...REVIEWER,
        body: { comment: '   ' },
      });
      expect(noComment.statusCode).toBe(400);
      const sentBack = await service.call('PUT', `/status/request-changes?${iriQuery(picklist)}`, {
        ...REVIEWER,
        body: { comment: 'Add the double seal' },
      });
      expect(sentBack.statusCode).toBe(204);
      expect(await statusOf(service, picklist)).toBe('Draft');
      const revisions = (await service.call('GET', `/revisions?${iriQuery(picklist)}`)).json();
      expect(revisions.at(-1)).toMatchObject({
        action: 'request-changes',
        status: 'Draft',
        actor: 'rita',
        justification: 'Add the double seal',
      });
      // The whole package now names a Draft: refused, nothing half-done.
      const whole = await service.call('PUT', `/packages/${pack.id}/approve`, {
        ...REVIEWER,
        body: { justification: 'All good' },
      });
      expect(whole.statusCode).toBe(409);
      expect(whole.json().detail).toContain(picklist);
      expect(await statusOf(service, library)).toBe('Submitted');

      // Fixed by its author and submitted again: back in the same package.
      const current = (await service.call('GET', `/cfihos/picklist?${iriQuery(picklist)}`)).json();
      const fixed = await service.call('PUT', `/cfihos/picklist?${iriQuery(picklist)}`, {
        body: {
          changeJustification: 'Double seal added',
          name: current.name,
          description: current.description,
          ontology: library,
          subClassOf: 'https://example.org/List',
          picklistValues: [
            { id: current.picklistValues[0].id, name: 'Single', description: 'One seal' },
            { name: 'Double', description: 'Two seals' },
          ],
        },
      });
      expect(fixed.statusCode, fixed.body).toBe(204);
      expect((await service.call('PUT', `/status/submit?${iriQuery(picklist)}`)).statusCode).toBe(
        204,
      );
      const again = (await service.call('GET', `/packages/${pack.id}`, REVIEWER)).json();
      expect(again).toMatchObject({ state: 'waiting', counts: { Submitted: 4 } });

      const approved = await service.call('PUT', `/packages/${pack.id}/approve`, {
        ...REVIEWER,
        body: { justification: 'All good' },
      });
      expect(approved.statusCode, approved.body).toBe(200);
      expect(approved.json()).toMatchObject({ state: 'decided', counts: { Approved: 4 } });
      for (const iri of [library, picklist, property, equipment])
        expect(await statusOf(service, iri)).toBe('Approved');
      expect(
        (
          await service.call('PUT', `/packages/${pack.id}/reject`, {
            ...REVIEWER,
            body: { justification: 'Late' },
          })
        ).statusCode,
      ).toBe(409);
    });

    it('lets one of two reviewers deciding a package at once win, and leaves nothing half-done', async () => {
      const { library, picklist, property, equipment } = await chain(service);
      const pack = (
        await service.call('POST', '/packages', {
          body: { resources: [equipment, property, picklist, library] },
        })
      ).json();
      const answers = await Promise.all([
        service.call('PUT', `/packages/${pack.id}/approve`, {
          ...REVIEWER,
          body: { justification: 'Yes' },
        }),
        service.call('PUT', `/packages/${pack.id}/reject`, {
          ...SECOND_REVIEWER,
          body: { justification: 'No' },
        }),
      ]);
      expect(answers.map((answer) => answer.statusCode).sort()).toEqual([200, 409]);
      const statuses = new Set(
        await Promise.all(
          [library, picklist, property, equipment].map((iri) => statusOf(service, iri)),
        ),
      );
      expect(statuses.size).toBe(1);
      expect(['Approved', 'Rejected']).toContain([...statuses][0]);
    });

    it('refuses bad package requests with the documented problems', async () => {
      const { library, equipment } = await chain(service);
      const cases: [string, string, unknown, number][] = [
        ['POST', '/packages', { resources: [] }, 400],
        ['POST', '/packages', { resources: [equipment], extra: 1 }, 400],
        ['POST', '/packages', { resources: ['not an iri at all'.repeat(200)] }, 400],
        ['POST', '/packages', { resources: [`${library}/none`] }, 404],
        ['POST', '/packages', { resources: [equipment], name: 7 }, 400],
      ];
      const before = await storedCounts(service);
      for (const [method, url, body, status] of cases) {
        const answer = await service.call(method as 'POST', url, { body });
        expect(answer.statusCode, `${url} ${JSON.stringify(body)}`).toBe(status);
        expect(answer.headers['content-type']).toMatch(/^application\/problem\+json/);
      }
      expect((await service.call('GET', '/packages/0', REVIEWER)).statusCode).toBe(400);
      expect((await service.call('GET', '/packages/999999', REVIEWER)).statusCode).toBe(404);
      expect((await service.call('GET', '/packages?state=lost', REVIEWER)).statusCode).toBe(400);
      expect(
        (
          await service.call('PUT', '/packages/999999/approve', {
            ...REVIEWER,
            body: { justification: 'x' },
          })
        ).statusCode,
      ).toBe(404);
      expect(
        (
          await service.call('PUT', '/packages/1/request-changes', {
            ...REVIEWER,
            body: { justification: 'wrong field' },
          })
        ).statusCode,
      ).toBe(400);
      expect(await storedCounts(service)).toEqual(before);
    });
  });

  describe('four eyes and authorship', () => {
    it('keeps a Reviewer from approving or rejecting what they submitted or last changed', async () => {
      const library = await createLibrary(service);
      await approve(service, library);
      const own = await create(
        service,
        '/rdl/terms/subclass',
        { name: uniqueName('Mine'), ontology: library, subClassOf: ['https://example.org/A'] },
        'rita',
      );
      expect(
        (
          await service.call('PUT', `/status/submit?${iriQuery(own.iri)}`, {
            roles: ['Creator', 'Reviewer'],
            subject: 'rita',
          })
        ).statusCode,
      ).toBe(204);
      const before = await storedCounts(service);
      for (const decision of ['approve', 'reject']) {
        const refused = await service.call('PUT', `/status/${decision}?${iriQuery(own.iri)}`, {
          ...REVIEWER,
          body: { justification: 'Mine is fine' },
        });
        expect(refused.statusCode).toBe(403);
        expect(refused.json().type).toMatch(/\/problems\/four-eyes$/);
        expect(refused.json().detail).toContain('you submitted it');
      }
      expect(await storedCounts(service)).toEqual(before);
      // Asking for changes to one's own submission is a withdrawal, and allowed.
      expect(
        (
          await service.call('PUT', `/status/request-changes?${iriQuery(own.iri)}`, {
            ...REVIEWER,
            body: { comment: 'Taking it back' },
          })
        ).statusCode,
      ).toBe(204);
      await service.call('PUT', `/status/submit?${iriQuery(own.iri)}`, {
        roles: ['Creator'],
        subject: 'rita',
      });
      expect(
        (
          await service.call('PUT', `/status/approve?${iriQuery(own.iri)}`, {
            ...SECOND_REVIEWER,
            body: { justification: 'Another pair of eyes' },
          })
        ).statusCode,
      ).toBe(204);
    });

    it('lets only its author change or submit a Draft, through the API', async () => {
      const library = await createLibrary(service);
      const draft = await create(service, '/rdl/terms/subclass', {
        name: uniqueName('Hers'),
        ontology: library,
        subClassOf: ['https://example.org/A'],
      });
      const before = await storedCounts(service);
      const changed = await service.call('PUT', `/rdl/terms/subclass?${iriQuery(draft.iri)}`, {
        subject: 'olga',
        body: {
          changeJustification: 'Mine now',
          name: draft.name,
          description: 'Other words',
          ontology: library,
          subClassOf: ['https://example.org/A'],
        },
      });
      expect(changed.statusCode).toBe(403);
      expect(changed.json().type).toMatch(/\/problems\/not-author$/);
      expect(changed.json().detail).toContain('alice');
      const submitted = await service.call('PUT', `/status/submit?${iriQuery(draft.iri)}`, {
        subject: 'olga',
      });
      expect(submitted.statusCode).toBe(403);
      const packaged = await service.call('POST', '/packages', {
        subject: 'olga',
        body: { resources: [draft.iri] },
      });
      expect(packaged.statusCode).toBe(403);
      expect(await storedCounts(service)).toEqual(before);
    });

    it('can be turned off by the operator', async () => {
      const relaxed = await import('./helpers.js').then((helpers) =>
        helpers.startRefdata(kind, { REFDATA_FOUR_EYES: 'false' }),
      );
      try {
        const library = await createLibrary(relaxed);
        expect(
          (await relaxed.call('PUT', `/status/submit?${iriQuery(library)}`, { subject: 'rita' }))
            .statusCode,
        ).toBe(403);
        await relaxed.call('PUT', `/status/submit?${iriQuery(library)}`);
        expect(
          (
            await relaxed.call('PUT', `/status/approve?${iriQuery(library)}`, {
              roles: ['Reviewer'],
              subject: 'alice',
              body: { justification: 'Alone here' },
            })
          ).statusCode,
        ).toBe(204);
      } finally {
        await relaxed.close();
      }
    });
  });

  describe('a Rejected resource', () => {
    it('is copied into a new Draft by its author: its name is free, a symbol needs a new identifier', async () => {
      const identifier = `RJ${Math.floor(Math.random() * 1e9)}`;
      const symbol = await create(service, '/esl/engineeringSymbols', {
        name: uniqueName('Valve'),
        dcIdentifier: identifier,
        width: 96,
        height: 96,
        shape:
          '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 96 96"><path d="M 10 48 L 86 48" stroke="#000" fill="none"/></svg>',
        centerOfRotation: { x: 48, y: 48 },
        connectionPoints: [{ id: 'in', x: 0, y: 48, direction: 180 }],
      });
      await service.call('PUT', `/status/submit?${iriQuery(symbol.iri)}`);
      await service.call('PUT', `/status/reject?${iriQuery(symbol.iri)}`, {
        ...REVIEWER,
        body: { justification: 'The stroke is too thin' },
      });
      const before = await storedCounts(service);
      const notAuthor = await service.call('POST', `/copies?${iriQuery(symbol.iri)}`, {
        subject: 'olga',
        body: {},
      });
      expect(notAuthor.statusCode).toBe(403);
      const sameIdentifier = await service.call('POST', `/copies?${iriQuery(symbol.iri)}`, {
        body: {},
      });
      expect(sameIdentifier.statusCode).toBe(409);
      expect(sameIdentifier.json().detail).toContain('dcIdentifier');
      const wrongType = await service.call('POST', `/copies?${iriQuery(symbol.iri)}`, {
        body: { width: 'wide' },
      });
      expect(wrongType.statusCode).toBe(400);
      expect(await storedCounts(service)).toEqual(before);

      const copy = await service.call('POST', `/copies?${iriQuery(symbol.iri)}`, {
        body: { dcIdentifier: `${identifier}-2` },
      });
      expect(copy.statusCode, copy.body).toBe(201);
      expect(copy.json()).toMatchObject({ status: 'Draft', name: symbol.name });
      expect(copy.json().iri).toMatch(new RegExp(`/esl/symbols/${identifier}-2$`));
      const history = (await service.call('GET', `/revisions?${iriQuery(copy.json().iri)}`)).json();
      expect(history[0].justification).toContain('The stroke is too thin');
      // The Rejected one keeps its IRI and status.
      expect(await statusOf(service, symbol.iri)).toBe('Rejected');
      // Only a Rejected resource is copied.
      expect(
        (await service.call('POST', `/copies?${iriQuery(copy.json().iri)}`, { body: {} }))
          .statusCode,
      ).toBe(409);
    });

    it('no longer holds its name: a new Draft may take it', async () => {
      const library = await createLibrary(service);
      const name = uniqueName('Taken');
      const first = await create(service, '/rdl/terms/subclass', {
        name,
        ontology: library,
        subClassOf: ['https://example.org/A'],
      });
      const duplicate = await service.call('POST', '/rdl/terms/subclass', {
        body: {
          changeJustification: 'x',
          description: 'd',
          name,
          ontology: library,
          subClassOf: ['https://example.org/A'],
        },
      });
      expect(duplicate.statusCode).toBe(409);
      await service.call('PUT', `/status/submit?${iriQuery(first.iri)}`);
      await service.call('PUT', `/status/reject?${iriQuery(first.iri)}`, {
        ...REVIEWER,
        body: { justification: 'Say more' },
      });
      const second = await service.call('POST', '/rdl/terms/subclass', {
        body: {
          changeJustification: 'Again',
          description: 'With more words',
          name,
          ontology: library,
          subClassOf: ['https://example.org/A'],
        },
      });
      expect(second.statusCode, second.body).toBe(201);
    });
  });
});
