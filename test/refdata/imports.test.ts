/**
 * Bulk imports through the API, on the whole CFIHOS v2.0 Core set as IOGP
 * publishes it: a job per upload, run in the background, its report line by
 * line, and a second import of the same files that changes nothing.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import JSZip from 'jszip';
import { describe, expect, it } from 'vitest';
import { justificationOf } from '../../src/refdata/imports/jobs.js';
import { DATABASE_KINDS } from '../harness.js';
import {
  anotherInstance,
  approve,
  create,
  createLibrary,
  refdataForTests,
  storedCounts,
} from './helpers.js';
import { finished, multipart, startImport } from './import-client.js';
import { Browser } from './page-client.js';

const CFIHOS = join(import.meta.dirname, '../../datasets/cfihos-v2.0-core');
const CFIHOS_FILES = readdirSync(CFIHOS).filter((name) => name.endsWith('.csv'));

function cfihosFiles() {
  return CFIHOS_FILES.map((name) => ({ name, bytes: readFileSync(join(CFIHOS, name)) }));
}

describe.each(DATABASE_KINDS)('imports on %s', (kind) => {
  const service = refdataForTests(kind);

  it('imports the whole CFIHOS v2.0 Core set, then finds it all unchanged', async () => {
    const library = await createLibrary(service, {
      cfihosPrefix: 'CORE',
      upperOntologies: ['https://posccaesar.org/cfihos/rdl/2.0'],
    });
    const started = await startImport(service, { library, mode: 'valid-only' }, cfihosFiles());
    expect(started.statusCode, started.body).toBe(202);
    const job = await finished(service, started.headers.location as string);
    expect(job.error).toBeNull();
    expect(job.counts).toEqual({ created: 8109, updated: 0, unchanged: 0, refused: 12 });
    // The four Number properties without a dimension, each with the API's own rule.
    const properties = job.refused.filter(
      (entry: { family: string }) => entry.family === 'property',
    );
    expect(properties).toHaveLength(4);
    for (const entry of properties) {
      expect(entry.source).toBe('cfihos-core-property-v2.0.csv');
      expect(entry.messages).toEqual(['Range is required for a number: the UoM dimension']);
      expect(entry.column).toBe(6);
    }
    // The tag-class rows that name them are left out of their classes, which are imported.
    const rows = job.refused.filter(
      (entry: { source: string }) => entry.source === 'cfihos-core-tag-class-property-v2.0.csv',
    );
    expect(rows).toHaveLength(8);
    expect(rows[0].messages[0]).toMatch(
      /^Property references › \d+ › Property URI must be the IRI of an existing property$/,
    );
    const report = await service.call('GET', `${new URL(job.links.report).pathname}`);
    expect(report.headers['content-type']).toMatch(/^text\/csv/);
    const lines = report.body
      .replace(/^\uFEFF/, '')
      .trim()
      .split('\r\n');
    expect(lines[0]).toBe('file,line,column,outcome,family,iri,name,message,not kept');
    // One line per resource made and per row folded into one; blank rows are counted apart.
    expect(lines.length - 1).toBe(8109 + 12 + 4707 + 4018 - 8 + 911);
    const files = job.files as { name: string; records: number; blankRecords: number }[];
    expect(files.find((file) => file.name === 'cfihos-core-tag-class-v2.0.csv')).toMatchObject({
      records: 848,
      blankRecords: 27,
    });

    // An equipment class as the API reads it: parent, flags and property references.
    const iriBase = String(properties[0].iri).split('/cfihos/')[0];
    const pump = await service.call(
      'GET',
      `/cfihos/entity?iri=${encodeURIComponent(`${iriBase}/cfihos/equipmentClass/CFIHOS-30000521`)}`,
    );
    expect(pump.statusCode, pump.body).toBe(200);
    const body = pump.json();
    expect(body.status).toBe('Draft');
    expect(body.entityType).toBe('equipment');
    expect(body.name).toBe('centrifugal pump');
    expect(body.isAbstract).toBe(false);
    expect(body.requiresSparePartInformation).toBe(true);
    // Its CFIHOS code kept as its source, with the attribution CC BY 4.0 asks for.
    expect(body.definitionSources).toEqual([
      {
        sourceName: 'CFIHOS reference data library, © IOGP JIP36, licensed CC BY 4.0',
        sourceId: 'CFIHOS-30000521',
        sourceUrl: 'https://www.jip36-cfihos.org/cfihos-standards/',
      },
    ]);
    expect(body.superEntity).toMatch(/\/cfihos\/equipmentClass\/CFIHOS-\d+$/);
    expect(body.propertyReferences.length).toBeGreaterThan(0);
    expect(body.propertyReferences[0]).toEqual({
      propertyUri: expect.stringMatching(/\/cfihos\/property\/CFIHOS-4\d+$/),
      minCardinality: 0,
      maxCardinality: 1,
    });
    // A picklist with its values, each at the IRI its own code gives it.
    const picklist = await service.call(
      'GET',
      `/cfihos/picklist?iri=${encodeURIComponent(`${iriBase}/cfihos/propertyPicklist/CFIHOS-50000073`)}`,
    );
    expect(picklist.json().name).toBe('material specification');
    expect(picklist.json().picklistValues[0]).toMatchObject({
      id: `${iriBase}/cfihos/propertyPicklistValue/CFIHOS-60000002`,
      name: '.5CR-.5MO',
    });
    const again = await startImport(service, { library, mode: 'valid-only' }, cfihosFiles());
    const second = await finished(service, again.headers.location as string);
    expect(second.counts).toEqual({ created: 0, updated: 0, unchanged: 8109, refused: 12 });
    // Another Creator importing the same files finds the same: unchanged reads as unchanged,
    // the tag classes whose rows name a refused property included.
    const byBob = await startImport(service, { library, mode: 'valid-only' }, cfihosFiles(), 'bob');
    const third = await finished(service, byBob.headers.location as string, 'bob');
    expect(third.counts).toEqual({ created: 0, updated: 0, unchanged: 8109, refused: 12 });

    // Exported as the same tables (CSV in a ZIP archive, and a workbook), it imports back unchanged.
    for (const format of ['zip', 'xlsx']) {
      const exported = await service.call(
        'GET',
        `/exports?library=${encodeURIComponent(library)}&format=${format}`,
        { roles: ['Reader'] },
      );
      expect(exported.statusCode, exported.body).toBe(200);
      expect(exported.headers['content-disposition']).toMatch(new RegExp(`\\.${format}"$`));
      const back = await startImport(service, { library }, [
        { name: `library.${format}`, bytes: exported.rawPayload },
      ]);
      expect(back.statusCode, back.body).toBe(202);
      const roundTrip = await finished(service, back.headers.location as string);
      expect(roundTrip.error).toBeNull();
      expect(roundTrip.counts).toEqual({ created: 0, updated: 0, unchanged: 8109, refused: 0 });
    }
    // The library's RDF, as refdata writes it, imports back unchanged too.
    for (const [accept, extension] of [
      ['text/turtle', 'ttl'],
      ['application/n-triples', 'nt'],
    ]) {
      const rdf = await service.call('GET', `${new URL(library).pathname}?detailLevel=3`, {
        headers: { accept: accept as string },
      });
      expect(rdf.statusCode).toBe(200);
      const back = await startImport(service, { library }, [
        { name: `library.${extension}`, bytes: rdf.rawPayload },
      ]);
      expect(back.statusCode, back.body).toBe(202);
      const roundTrip = await finished(service, back.headers.location as string);
      expect(roundTrip.refused).toEqual([]);
      expect(roundTrip.counts).toEqual({ created: 0, updated: 0, unchanged: 8109, refused: 0 });
    }
    const missing = await service.call(
      'GET',
      `/exports?library=${encodeURIComponent(`${library}-not`)}`,
    );
    expect(missing.statusCode).toBe(404);
    expect(
      (await service.call('GET', `/exports?library=${encodeURIComponent(library)}&format=pdf`))
        .statusCode,
    ).toBe(400);
    expect((await service.call('GET', '/exports')).statusCode).toBe(400);
    const visitor = await service.call('GET', `/exports?library=${encodeURIComponent(library)}`, {
      roles: [],
    });
    expect(visitor.statusCode).toBe(401);
  }, 300_000);

  describe('a first run', () => {
    const empty = refdataForTests(kind);

    it('offers an instance with no library CFIHOS v2.0 Core, and imports it with one button', async () => {
      // A visitor is told what it is and to sign in as a Creator.
      const visitor = (await new Browser(empty).get('/')).body;
      expect(visitor).toContain('Start from CFIHOS v2.0 Core');
      expect(visitor).toContain('creativecommons.org/licenses/by/4.0');
      expect(visitor).not.toContain('action="/start/cfihos"');
      // A Reader may not start it.
      const reader = new Browser(empty);
      await reader.signInWithToken(await empty.token(['Reader'], 'rhea'));
      expect((await reader.get('/')).body).not.toContain('action="/start/cfihos"');
      expect((await reader.post('/start/cfihos', {})).statusCode).toBe(403);
      expect(await storedCounts(empty)).toEqual({ resources: 0, revisions: 0 });
      // A Creator presses the button: the library, and its import under way.
      const creator = new Browser(empty);
      await creator.signInWithToken(await empty.token(['Creator'], 'cleo'));
      const home = (await creator.get('/')).body;
      expect(home).toContain('action="/start/cfihos"');
      expect(home).toMatch(/832 equipment classes, 875 tag classes, 1,388 properties/);
      const started = await creator.post('/start/cfihos', {});
      expect(started.statusCode).toBe(303);
      const id = /^\/account\/imports\/(\d+)$/.exec(String(started.headers.location))?.[1];
      expect(id).toBeDefined();
      const job = await finished(empty, `http://x/imports/${id}`, 'cleo');
      expect(job.error).toBeNull();
      expect(job.counts).toEqual({ created: 8109, updated: 0, unchanged: 0, refused: 12 });
      // The library names its source and licence; the home page now lists it.
      const library = await empty.db
        .selectFrom('resources')
        .select(['iri', 'name', 'body'])
        .where('family', '=', 'library')
        .executeTakeFirstOrThrow();
      expect(new URL(library.iri).pathname).toBe('/ontology/cfihos-v2-0-core');
      expect(library.name).toBe('CFIHOS v2.0 Core');
      expect(JSON.parse(library.body).description).toContain('CC BY 4.0');
      const after = (await creator.get('/')).body;
      expect(after).not.toContain('id="first-run"');
      expect(after).toContain('CFIHOS v2.0 Core');
      // Pressed again (a reload, a second tab): the library made first, nothing more.
      const before = await storedCounts(empty);
      const again = await creator.post('/start/cfihos', {});
      expect(again.statusCode).toBe(303);
      expect(again.headers.location).toBe('/ontology/cfihos-v2-0-core');
      expect(await storedCounts(empty)).toEqual(before);

      // The import's page says what comes next: every Draft submitted as one package
      // (the library and 5,082 resources; a picklist's values go with it).
      const jobPage = (await creator.get(`/account/imports/${id}`)).body;
      expect(jobPage).toContain('Submit your 5,083 Drafts here for review');
      const submitted = await creator.post('/review/submit-library', { library: library.iri });
      expect(submitted.statusCode).toBe(303);
      const packagePath = String(submitted.headers.location);
      expect(packagePath).toMatch(/^\/review\/packages\/\d+$/);
      expect((await creator.get('/ontology/cfihos-v2-0-core')).body).not.toContain(
        'id="submit-library"',
      );
      // Asked again, or badly, the form says what is wrong in a page and submits nothing.
      const afterSubmit = await storedCounts(empty);
      for (const [fields, status] of [
        [{ library: library.iri }, 409],
        [{}, 404],
        [{ library: 'not an iri' }, 404],
        [{ library: `${library.iri}/${'a'.repeat(3000)}` }, 404],
      ] as const) {
        const again = await creator.post('/review/submit-library', fields);
        expect(again.statusCode, JSON.stringify(fields).slice(0, 60)).toBe(status);
        expect(again.headers['content-type']).toMatch(/^text\/html/);
      }
      expect(
        (await reader.post('/review/submit-library', { library: library.iri })).statusCode,
      ).toBe(403);
      expect(await storedCounts(empty)).toEqual(afterSubmit);

      // A Reviewer finds it as one item of the queue, named by what it holds.
      const reviewer = new Browser(empty);
      await reviewer.signInWithToken(await empty.token(['Reviewer'], 'rita'));
      const queue = (await reviewer.get('/review')).body;
      expect(queue).toContain('5,083 waiting in one item');
      expect(queue).toContain('>CFIHOS v2.0 Core: 5,083 resources</a>');
      expect(queue).toContain(
        '<td data-label="What it holds">1,680 CFIHOS equipment or tag classes, 1,472 units of measure, 1,384 properties, 367 picklists, 179 unit-of-measure dimensions, 1 library</td>',
      );
      // The package, family by family, with counts and a sample of each.
      const overview = (await reviewer.get(packagePath)).body;
      const families =
        /<table class="stack" id="families">[\s\S]*?<\/table>/.exec(overview)?.[0] ?? '';
      expect(families).toMatch(
        /CFIHOS equipment or tag class<\/a><\/th><td data-label="How many">1,680<\/td><td data-label="Waiting">1,680<\/td>/,
      );
      expect(families.match(/all 1,384…/g)).toHaveLength(1);
      expect(overview).toContain('id="package-quality"');
      // One family's list, a page at a time.
      const properties = (await reviewer.get(`${packagePath}?family=property&page=2`)).body;
      expect(properties).toContain('property: 201 to 400 of 1,384');
      expect(properties.match(/<tr><th scope="row">/g)).toHaveLength(200);
      expect((await reviewer.get(`${packagePath}?family=property&page=0`)).statusCode).toBe(400);
      // One decision approves them all.
      const items = /name="_items" value="([^"]+)"/.exec(overview)?.[1] ?? '';
      const approved = await reviewer.post(packagePath, {
        _items: items,
        decision: 'approve',
        text: 'CFIHOS v2.0 Core as IOGP publishes it',
      });
      expect(approved.statusCode, approved.body.slice(0, 500)).toBe(303);
      const statuses = await empty.db
        .selectFrom('resources')
        .select(['status'])
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .groupBy('status')
        .execute();
      expect(statuses.map((row) => [row.status, Number(row.n)])).toEqual([['Approved', 8110]]);
      // Published: the library can be released.
      expect((await reviewer.get('/ontology/cfihos-v2-0-core')).body).toContain('Release it…');
      const released = await empty.call(
        'POST',
        `/releases?${new URLSearchParams({ library: library.iri })}`,
        {
          roles: ['Reviewer'],
          subject: 'rita',
          body: { version: '2.0.0', notes: 'CFIHOS v2.0 Core' },
        },
      );
      expect(released.statusCode, released.body.slice(0, 800)).toBe(201);
      expect(released.json().resources).toBe(8110);
    }, 300_000);
  });

  describe('checking first', () => {
    const fresh = refdataForTests(kind);

    it('writes nothing in a dry run, nor when all or nothing meets a refused line', async () => {
      const library = await createLibrary(fresh);
      const before = await storedCounts(fresh);
      const dry = await startImport(fresh, { library, dryRun: 'true' }, cfihosFiles());
      const planned = await finished(fresh, dry.headers.location as string);
      expect(planned.counts).toEqual({ created: 8109, updated: 0, unchanged: 0, refused: 12 });
      expect(planned.written).toBe(false);
      const whole = await startImport(fresh, { library }, cfihosFiles());
      const refused = await finished(fresh, whole.headers.location as string);
      expect(refused.error).toMatch(/^Nothing was written: 12 line\(s\) were refused/);
      expect(await storedCounts(fresh)).toEqual(before);
    }, 300_000);
  });

  describe('one job per library, on any instance', () => {
    // This instance takes no jobs itself: one stays queued until another instance takes it up.
    const serving = refdataForTests(kind, { REFDATA_IMPORT_WORKER: 'false' });

    it('answers one import per library at a time, only to its owner, and another instance runs it', async () => {
      const library = await createLibrary(serving);
      const first = await startImport(serving, { library, mode: 'valid-only' }, cfihosFiles());
      expect(first.statusCode).toBe(202);
      const second = await startImport(serving, { library }, cfihosFiles());
      expect(second.statusCode).toBe(409);
      expect(second.json().title).toBe('An import is under way');
      const path = new URL(first.headers.location as string).pathname;
      const queued = await serving.call('GET', path);
      expect(queued.json()).toMatchObject({ state: 'queued', written: false, counts: null });
      const stranger = await serving.app.inject({
        method: 'GET',
        url: path,
        headers: { authorization: `Bearer ${await serving.token(['Creator'], 'mallory')}` },
      });
      expect(stranger.statusCode).toBe(404);
      expect((await serving.call('GET', path, { roles: [] })).statusCode).toBe(401);
      const worker = await anotherInstance(serving);
      try {
        const job = await finished(serving, first.headers.location as string);
        expect(job.counts).toEqual({ created: 8109, updated: 0, unchanged: 0, refused: 12 });
      } finally {
        await worker.close();
      }
    }, 300_000);
  });

  describe('an instance that stops mid-way', () => {
    const serving = refdataForTests(kind, { REFDATA_WORKERS: 'webhooks,mail' });

    it('has its job taken up again by another, and one taken up three times ended, saying so', async () => {
      const files = cfihosFiles().filter((file) => file.name.includes('unit-of-measure'));
      const started = await Promise.all(
        [1, 2].map(async () =>
          startImport(
            serving,
            { library: await createLibrary(serving), mode: 'valid-only' },
            files,
          ),
        ),
      );
      const [resumed, givenUp] = started.map((response) => Number(response.json().id));
      // As an instance that died leaves them: under way, their leases lapsed.
      await serving.db
        .updateTable('import_jobs')
        .set({ state: 'checking', attempts: 1, lease_until: 0 })
        .where('id', '=', resumed as number)
        .execute();
      await serving.db
        .updateTable('import_jobs')
        .set({ state: 'writing', attempts: 3, lease_until: 0 })
        .where('id', '=', givenUp as number)
        .execute();
      const worker = await anotherInstance(serving);
      try {
        const [first, second] = await Promise.all(
          started.map((response) => finished(serving, response.headers.location as string)),
        );
        expect(first.state).toBe('done');
        expect(first.counts).toEqual({ created: 1651, updated: 0, unchanged: 0, refused: 0 });
        expect(second.state).toBe('failed');
        expect(second.error).toMatch(
          /^The service stopped 3 times while this import ran; it was given up\./,
        );
      } finally {
        await worker.close();
      }
    }, 120_000);
  });

  describe('what the tables do not say', () => {
    const service = refdataForTests(kind);
    const VALUES_HEADER =
      'property picklist CFIHOS unique code,property picklist name,property picklist value CFIHOS unique code,property picklist value code,property picklist value description';
    const EQUIPMENT =
      'equipment class CFIHOS unique code,equipment class name,equipment class definition';
    const csv = (name: string, ...lines: string[]) => ({
      name,
      bytes: Buffer.from(`${lines.join('\r\n')}\r\n`),
    });

    it('refuses what the API refuses, in the same words: a change to another’s Draft, and to a resource that is no Draft', async () => {
      const library = await createLibrary(service);
      const imported = async (line: string, as = 'alice') => {
        const started = await startImport(
          service,
          { library, mode: 'valid-only' },
          [csv('classes.csv', EQUIPMENT, line)],
          as,
        );
        expect(started.statusCode, started.body).toBe(202);
        return finished(service, started.headers.location as string, as);
      };
      const made = await imported('EQ-1,pump,A pump');
      expect(made.counts).toEqual({ created: 1, updated: 0, unchanged: 0, refused: 0 });
      const [iri] = (
        await service.db
          .selectFrom('resources')
          .select('iri')
          .where('library_key', '=', library)
          .where('name', '=', 'pump')
          .execute()
      ).map((row) => row.iri);
      const path = `/cfihos/entity?iri=${encodeURIComponent(iri as string)}`;
      const apiRefusal = async (subject: string) => {
        const row = await service.db
          .selectFrom('resources')
          .select('body')
          .where('iri', '=', iri as string)
          .executeTakeFirstOrThrow();
        const body = JSON.parse(row.body) as Record<string, unknown>;
        const put = await service.call('PUT', path, {
          subject,
          body: { ...body, description: 'A pump that moves water', changeJustification: 'Test' },
        });
        return { status: put.statusCode, detail: put.json().detail as string };
      };
      const importRefusal = async (as: string) => {
        const job = await imported('EQ-1,pump,A pump that moves water', as);
        expect(job.counts.refused).toBe(1);
        return (job.refused as { messages: string[] }[])[0]?.messages.join('; ') ?? '';
      };

      const notAuthor = await apiRefusal('bob');
      expect(notAuthor.status).toBe(403);
      expect(notAuthor.detail).toMatch(/^Only its author changes a Draft; .* was written by alice/);
      expect(await importRefusal('bob')).toContain(notAuthor.detail);

      await approve(service, library);
      await approve(service, iri as string);
      const notDraft = await apiRefusal('alice');
      expect(notDraft.status).toBe(409);
      expect(notDraft.detail).toContain('is Approved; only a Draft can be changed');
      expect(await importRefusal('alice')).toContain(notDraft.detail);
    });

    it('keeps what a stored resource has beyond the tables, and guards CSV cells against formulas', async () => {
      const library = await createLibrary(service);
      const dimension = await create(service, '/cfihos/dimension', {
        name: '=1+1',
        ontology: library,
        dimensionCode: '@SUM(1)',
        packageName: 'Lengths',
        relatedTerms: [
          { relationType: 'closeMatch', targetLibrary: 'Other', targetIdentifier: 'L' },
        ],
      });
      const exported = await service.call('GET', `/exports?library=${encodeURIComponent(library)}`);
      const zip = await JSZip.loadAsync(exported.rawPayload);
      const [name] = Object.keys(zip.files);
      const text = await zip.file(name as string)?.async('string');
      expect(text).toContain(`'=1+1`);
      expect(text).toContain(`'@SUM(1)`);
      const back = await startImport(service, { library }, [
        { name: 'export.zip', bytes: exported.rawPayload },
      ]);
      const job = await finished(service, back.headers.location as string);
      expect(job.counts).toEqual({ created: 0, updated: 0, unchanged: 1, refused: 0 });
      const read = await service.call(
        'GET',
        `/cfihos/dimension?iri=${encodeURIComponent(dimension.iri)}`,
      );
      expect(read.json()).toMatchObject({
        name: '=1+1',
        dimensionCode: '@SUM(1)',
        packageName: 'Lengths',
      });
    });

    it('refuses a new IRI given in a code column, and a value code two picklists give', async () => {
      const library = await createLibrary(service);
      const started = await startImport(service, { library, mode: 'valid-only' }, [
        csv('classes.csv', EQUIPMENT, `${library}/squatted,pump,A pump`),
        csv(
          'values.csv',
          VALUES_HEADER,
          'PL-1,seals,PV-1,lip,A lip seal',
          'PL-2,gaskets,PV-1,flat,A flat gasket',
        ),
      ]);
      expect(started.statusCode, started.body).toBe(202);
      const job = await finished(service, started.headers.location as string);
      expect(job.state).toBe('done');
      // Two picklists (the second without the value it gave) and the first one’s value.
      expect(job.counts).toEqual({ created: 3, updated: 0, unchanged: 0, refused: 2 });
      const messages = job.refused.map((entry: { messages: string[] }) =>
        entry.messages.join('; '),
      );
      expect(messages).toContain(
        `names ${library}/squatted in its code column, which is no resource of this library; a new resource needs a code, from which its IRI is made`,
      );
      expect(
        messages.some((message: string) =>
          /has the code of a value of .*PL-1; a value stays with its picklist/.test(message),
        ),
      ).toBe(true);
    });

    it('answers a damaged archive with 400, and names at most what fits in a justification', async () => {
      const library = await createLibrary(service);
      const zip = new JSZip();
      zip.file('classes.csv', `${EQUIPMENT}\r\nX-1,pump,A pump\r\n`);
      const bytes = await zip.generateAsync({ type: 'nodebuffer', compression: 'DEFLATE' });
      // The compressed data garbled, past the local header.
      for (let index = 60; index < 70; index += 1) bytes[index] = 0xff;
      const damaged = await startImport(service, { library }, [{ name: 'damaged.zip', bytes }]);
      expect(damaged.statusCode, damaged.body).toBe(400);
      expect(
        justificationOf(
          7,
          Array.from({ length: 12 }, (_, index) => ({
            name: `${'x'.repeat(200)}${index}\u0007.csv`,
          })),
        ).length,
      ).toBeLessThan(2000);
    });
  });

  describe('RDF from another refdata', () => {
    // Another service: its IRIs are its own.
    const source = refdataForTests(kind, { REFDATA_IRI_BASE: 'https://rdl.other.example' });
    const target = refdataForTests(kind);

    it('imports a library in every RDF syntax refdata writes, at its IRIs, and again unchanged', async () => {
      const from = await createLibrary(source);
      const dimension = await create(source, '/cfihos/dimension', {
        name: 'length',
        ontology: from,
        dimensionCode: 'LENGTH',
      });
      await create(source, '/cfihos/unitofmeasure', {
        name: 'metre',
        ontology: from,
        dimensionRef: dimension.iri,
        measurementSystem: 'SI',
        symbol: 'm',
      });
      const picklist = await create(source, '/cfihos/picklist', {
        name: 'seal type',
        ontology: from,
        subClassOf: 'http://www.w3.org/2004/02/skos/core#Concept',
        picklistValues: [
          { name: 'lip', description: 'A lip seal' },
          { name: 'mechanical', description: 'A mechanical seal' },
        ],
      });
      const property = await create(source, '/general/property', {
        name: 'seal',
        ontology: from,
        types: ['controlledText'],
        range: picklist.iri,
      });
      const pump = await create(source, '/cfihos/entity', {
        name: 'pump',
        ontology: from,
        entityType: 'equipment',
        propertyReferences: [{ propertyUri: property.iri, minCardinality: 1, maxCardinality: 1 }],
        isAbstract: true,
        packageName: 'Rotating',
      });
      const into = await createLibrary(target);
      const formats = [
        ['application/rdf+xml', 'rdf'],
        ['application/ld+json', 'jsonld'],
        ['text/turtle', 'ttl'],
      ];
      for (const [index, [accept, extension]] of formats.entries()) {
        const rdf = await source.call('GET', `${new URL(from).pathname}?detailLevel=3`, {
          headers: { accept: accept as string },
        });
        const started = await startImport(target, { library: into }, [
          { name: `pumps.${extension}`, bytes: rdf.rawPayload },
        ]);
        expect(started.statusCode, started.body).toBe(202);
        const job = await finished(target, started.headers.location as string);
        expect(job.refused, accept).toEqual([]);
        // Dimension, unit, picklist and its two values, property, class; then all unchanged.
        expect(job.counts, accept).toEqual(
          index === 0
            ? { created: 7, updated: 0, unchanged: 0, refused: 0 }
            : { created: 0, updated: 0, unchanged: 7, refused: 0 },
        );
      }
      const copied = await target.call('GET', `/cfihos/entity?iri=${encodeURIComponent(pump.iri)}`);
      expect(copied.json()).toMatchObject({
        ontology: into,
        isAbstract: true,
        packageName: 'Rotating',
        propertyReferences: [{ propertyUri: property.iri, minCardinality: 1, maxCardinality: 1 }],
      });
      // A file that is no RDF of its kind is refused at once.
      const broken = await startImport(target, { library: into }, [
        { name: 'broken.ttl', bytes: Buffer.from('<a> <b> "unclosed .') },
      ]);
      expect(broken.statusCode).toBe(400);
      expect(broken.json().errors[0].detail).toMatch(
        /^broken\.ttl: is not Turtle that can be read/,
      );
    }, 120_000);
  });

  describe('bad input', () => {
    const service = refdataForTests(kind);

    const EQUIPMENT_HEADER =
      'parent equipment class name,equipment class CFIHOS unique code,equipment class name,equipment class definition,abstract class indicator,spare part information required indicator,equipment class existence reason description,equipment class synonym name';
    const PROPERTY_HEADER =
      'CFIHOS unique code,property name,property definition,property data type,property data type length,unit of measure dimension code CFIHOS unique code,unit of measure dimension code,property picklist name CFIHOS unique code,property picklist name,property existence reason description,property synonym name';
    const csv = (name: string, ...lines: string[]) => ({
      name,
      bytes: Buffer.from(`${lines.join('\r\n')}\r\n`),
    });

    async function refusedAtUpload(files: { name: string; bytes: Buffer }[], detail: RegExp) {
      const library = await createLibrary(service);
      const before = await storedCounts(service);
      const response = await startImport(service, { library }, files);
      expect(response.statusCode, response.body).toBe(400);
      expect(response.json().errors[0].detail).toMatch(detail);
      expect(await storedCounts(service)).toEqual(before);
    }

    it('refuses a file that is not CSV, a wrong header and a truncated one at once', async () => {
      await refusedAtUpload(
        [{ name: 'photo.csv', bytes: Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 0, 0, 13, 0xff]) }],
        /photo\.csv: is not text/,
      );
      await refusedAtUpload(
        [csv('classes.csv', 'code,name,definition', 'X-1,pump,A pump')],
        /classes\.csv: has a header that is none of the CFIHOS tables'/,
      );
      await refusedAtUpload(
        [csv('cut.csv', EQUIPMENT_HEADER, ',X-1,pump,"A pump that')],
        /cut\.csv, line \d+.*never closed/,
      );
    });

    it('writes a report no spreadsheet takes a formula from', async () => {
      const library = await createLibrary(service);
      const started = await startImport(service, { library }, [
        csv(
          'classes.csv',
          EQUIPMENT_HEADER,
          ',X-7,"=HYPERLINK(""http://evil.example"")",A trap,no,no,,',
        ),
      ]);
      const job = await finished(service, started.headers.location as string);
      expect(job.counts.created).toBe(1);
      const report = await service.call('GET', new URL(job.links.report).pathname);
      expect(report.body).toContain(`"'=HYPERLINK(""http://evil.example"")"`);
    });

    it('names each missing, unknown or wrong field of the form', async () => {
      const library = await createLibrary(service);
      const file = csv('classes.csv', EQUIPMENT_HEADER, ',X-9,pump,A pump,no,no,,');
      const cases: [Record<string, string>, { name: string; bytes: Buffer }[], string[]][] = [
        [{}, [file], ['/library']],
        [{ library: 'not an IRI' }, [file], ['/library']],
        [{ library: `${library}/nothing-here` }, [file], ['/library']],
        [
          { library, mode: 'some', dryRun: 'maybe', encoding: 'ebcdic' },
          [file],
          ['/dryRun', '/mode', '/encoding'],
        ],
        [{ library, colour: 'red' }, [file], ['/colour']],
        [{ library }, [], ['/file']],
        [{ library }, [{ name: 'empty.csv', bytes: Buffer.alloc(0) }], ['/file']],
      ];
      for (const [fields, files, pointers] of cases) {
        const response = await startImport(service, fields, files);
        expect(response.statusCode, JSON.stringify(fields)).toBe(400);
        expect(response.json().errors.map((error: { pointer: string }) => error.pointer)).toEqual(
          pointers.map((pointer) => `#${pointer}`),
        );
      }
      expect((await service.call('GET', '/imports/0')).statusCode).toBe(400);
      expect((await service.call('GET', '/imports/99999')).statusCode).toBe(404);
      const reader = await service.call('POST', '/imports', { roles: ['Reader'], body: {} });
      expect(reader.statusCode).toBe(403);
    });

    it('refuses an upload cut short, and one larger than the limit', async () => {
      const library = await createLibrary(service);
      const body = await multipart({ library }, [
        csv('classes.csv', EQUIPMENT_HEADER, ',X-1,pump,A pump,no,no,,'),
      ]);
      const cut = await service.call('POST', '/imports', {
        body: body.payload.subarray(0, body.payload.length - 60),
        headers: { 'content-type': body.contentType },
      });
      expect(cut.statusCode, cut.body).toBe(400);
      expect(cut.json().code ?? cut.json().type).toMatch(/malformed-body/);
      // 200 MB, past the 64 MiB an import takes by default.
      const huge = await startImport(service, { library }, [
        { name: 'huge.csv', bytes: Buffer.alloc(200 * 1024 * 1024, 0x61) },
      ]);
      expect(huge.statusCode).toBe(413);
      const json = await service.call('POST', '/imports', { body: { library } });
      expect(json.statusCode).toBe(415);
    }, 120_000);

    it('refuses rows with a control character, a circular parent chain or an unknown dimension', async () => {
      const library = await createLibrary(service);
      const before = await storedCounts(service);
      const started = await startImport(service, { library, mode: 'valid-only' }, [
        csv(
          'classes.csv',
          EQUIPMENT_HEADER,
          ',X-1,pump,A pump,no,no,,',
          'pump,X-2,bell\u0007 pump,A pump that rings,no,no,,',
          'loop b,X-3,loop a,One end of a loop,no,no,,',
          'loop a,X-4,loop b,The other end,no,no,,',
        ),
        csv('properties.csv', PROPERTY_HEADER, 'P-1,length,How long,Number,,D-404,LENGTH,,,,'),
      ]);
      expect(started.statusCode, started.body).toBe(202);
      const job = await finished(service, started.headers.location as string);
      expect(job.counts).toEqual({ created: 1, updated: 0, unchanged: 0, refused: 4 });
      const why = Object.fromEntries(
        job.refused.map(
          (entry: { name: string; line: number; column: number; messages: string[] }) => [
            entry.name,
            [entry.line, entry.column, entry.messages.join('; ')],
          ],
        ),
      );
      expect(why['bell\u0007 pump'][0]).toBe(3);
      expect(why['bell\u0007 pump'][2]).toMatch(/control character/);
      expect(why['loop a']).toEqual([
        4,
        1,
        'the parent chain is circular: loop a → loop b → loop a',
      ]);
      expect(why['loop b'][2]).toBe('the parent chain is circular: loop b → loop a → loop b');
      expect(why.length).toEqual([
        2,
        6,
        'Range must be the IRI of an existing unit-of-measure dimension',
      ]);
      const after = await storedCounts(service);
      expect(after.resources).toBe(before.resources + 1);
    });
  });
});
