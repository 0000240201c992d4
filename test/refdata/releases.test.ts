/**
 * Library releases through HTTP (docs/releases.md): a release of the published
 * view, fetched in every format with owl:versionIRI, its files and their
 * checksums, its DCAT description, the version rules, who may release, and
 * immutability after later changes.
 */
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { gunzipSync } from 'node:zlib';
import { Parser, type Quad, Store } from 'n3';
import SHACLValidator from 'rdf-validate-shacl';
import { beforeAll, describe, expect, it } from 'vitest';
import { DATABASE_KINDS } from '../harness.js';
import {
  approve,
  create,
  createLibrary,
  iriQuery,
  type Refdata,
  refdataForTests,
  uniqueName,
} from './helpers.js';
import { Browser } from './page-client.js';
import { sameGraphInEveryFormat } from './rdf-readers.js';

const OWL = 'http://www.w3.org/2002/07/owl#';
const DCAT = 'http://www.w3.org/ns/dcat#';
const SPDX = 'http://spdx.org/rdf/terms#';
const RDF_TYPE = 'http://www.w3.org/1999/02/22-rdf-syntax-ns#type';
const PYTHON = '/usr/bin/python3';
const rdflibThere = spawnSync(PYTHON, ['-c', 'import rdflib'], { encoding: 'utf8' }).status === 0;

const turtle = (text: string): Quad[] => new Parser({ format: 'Turtle' }).parse(text);
const objectsOf = (quads: Quad[], subject: string, predicate: string) =>
  quads
    .filter((q) => q.subject.value === subject && q.predicate.value === predicate)
    .map((q) => q.object.value);
const pathOf = (url: string) => new URL(url).pathname;

/** The least DCAT asks of a distribution, as SHACL: a download URL and a media type. */
const DISTRIBUTION_SHAPE = `
@prefix sh: <http://www.w3.org/ns/shacl#> .
@prefix dcat: <http://www.w3.org/ns/dcat#> .
@prefix spdx: <http://spdx.org/rdf/terms#> .
@prefix xsd: <http://www.w3.org/2001/XMLSchema#> .
<urn:shape:distribution> a sh:NodeShape ; sh:targetClass dcat:Distribution ;
  sh:property [ sh:path dcat:downloadURL ; sh:minCount 1 ; sh:nodeKind sh:IRI ] ;
  sh:property [ sh:path dcat:mediaType ; sh:minCount 1 ; sh:maxCount 1 ; sh:nodeKind sh:IRI ] ;
  sh:property [ sh:path dcat:byteSize ; sh:maxCount 1 ; sh:datatype xsd:nonNegativeInteger ] ;
  sh:property [ sh:path ( spdx:checksum spdx:checksumValue ) ; sh:minCount 1 ; sh:datatype xsd:hexBinary ] .
<urn:shape:dataset> a sh:NodeShape ; sh:targetClass dcat:Dataset ;
  sh:property [ sh:path dcat:distribution ; sh:minCount 1 ; sh:class dcat:Distribution ] .
`;

describe.each(DATABASE_KINDS)('library releases (%s)', (kind) => {
  const service: Refdata = refdataForTests(kind);
  let library: string;
  let pump: string;
  let picklist: { iri: string; picklistValues: { id: string }[] };
  let draft: string;

  beforeAll(async () => {
    library = await createLibrary(service, { name: uniqueName('Released library') });
    await approve(service, library);
    pump = (
      await create(service, '/rdl/terms/subclass', {
        name: 'Pump',
        ontology: library,
        subClassOf: ['http://x.example/Equipment'],
      })
    ).iri;
    await approve(service, pump);
    picklist = (await create(service, '/cfihos/picklist', {
      name: 'Colours',
      ontology: library,
      subClassOf: 'https://example.org/Colour',
      picklistValues: [
        { name: 'Red', description: 'The colour of blood' },
        { name: 'Blue', description: 'The colour of the sky' },
      ],
    })) as never;
    await approve(service, picklist.iri);
    draft = (
      await create(service, '/rdl/terms/subclass', {
        name: 'Draft valve',
        ontology: library,
        subClassOf: ['http://x.example/Equipment'],
      })
    ).iri;
  });

  const release = (version: string, options: { roles?: never[] | string[]; notes?: string } = {}) =>
    service.call('POST', `/releases?library=${encodeURIComponent(library)}`, {
      roles: (options.roles ?? ['Creator']) as never,
      body: { version, notes: options.notes ?? `Release ${version}` },
    });

  it('releases the published view: 201 with its address, members, files and checksums', async () => {
    const made = await release('1.0.0');
    expect(made.statusCode, made.body).toBe(201);
    const json = made.json();
    expect(json.iri).toBe(`${library}/releases/1.0.0`);
    expect(made.headers.location).toBe(json.links.self);
    expect(json.version).toBe('1.0.0');
    // The library, the class, the picklist and its two values; not the Draft.
    expect(json.resources).toBe(5);
    expect(json.links.previous).toBeNull();
    expect(json.files.map((file: { mediaType: string }) => file.mediaType).sort()).toEqual(
      ['application/ld+json', 'application/n-triples', 'application/rdf+xml', 'text/turtle'].sort(),
    );
    for (const file of json.files as { url: string; sha256: string; byteSize: number }[]) {
      const plain = await service.call('GET', pathOf(file.url));
      expect(plain.statusCode).toBe(200);
      expect(plain.headers['content-disposition']).toContain('attachment');
      expect(plain.rawPayload.length).toBe(file.byteSize);
      expect(createHash('sha256').update(plain.rawPayload).digest('hex')).toBe(file.sha256);
      const gzipped = await service.call('GET', pathOf(file.url), {
        headers: { 'accept-encoding': 'gzip' },
      });
      expect(gzipped.headers['content-encoding']).toBe('gzip');
      expect(gunzipSync(gzipped.rawPayload).equals(plain.rawPayload)).toBe(true);
      const again = await service.call('GET', pathOf(file.url), {
        headers: { 'if-none-match': `"${file.sha256}"` },
      });
      expect(again.statusCode).toBe(304);
    }
    const listed = await service.call('GET', `/releases?library=${encodeURIComponent(library)}`);
    expect(listed.json().map((item: { version: string }) => item.version)).toEqual(['1.0.0']);
  });

  it('writes files lost between the release and its files again, the same bytes', async () => {
    const path = pathOf(`${library}/releases/1.0.0`);
    const before = (await service.call('GET', path)).json();
    const release = await service.db
      .selectFrom('releases')
      .select('id')
      .where('iri', '=', before.iri)
      .executeTakeFirstOrThrow();
    await service.db.deleteFrom('release_files').where('release_id', '=', release.id).execute();
    const after = (await service.call('GET', path)).json();
    expect(after.files).toEqual(before.files);
  });

  it('serves the release in every RDF format, the same graph, with owl:versionIRI', async () => {
    const path = pathOf(`${library}/releases/1.0.0`);
    const graph = await sameGraphInEveryFormat(
      async (accept) => service.call('GET', path, { headers: { accept } }),
      'release',
    );
    expect(objectsOf(graph, library, `${OWL}versionIRI`)).toEqual([`${library}/releases/1.0.0`]);
    expect(objectsOf(graph, library, `${OWL}versionInfo`)).toEqual(['1.0.0']);
    const subjects = new Set(graph.map((q) => q.subject.value));
    expect(subjects.has(pump)).toBe(true);
    expect(subjects.has(picklist.iri)).toBe(true);
    for (const value of picklist.picklistValues) expect(subjects.has(value.id)).toBe(true);
    expect(subjects.has(draft)).toBe(false);
    // The library names its latest release in its own RDF.
    const own = await service.call('GET', pathOf(library), { headers: { accept: 'text/turtle' } });
    expect(objectsOf(turtle(own.body), library, `${OWL}versionIRI`)).toEqual([
      `${library}/releases/1.0.0`,
    ]);
  });

  it('describes the release with DCAT: every distribution downloadable, typed, with its checksum', async () => {
    const path = pathOf(`${library}/releases/1.0.0/dcat`);
    const answer = await service.call('GET', path, { headers: { accept: 'text/turtle' } });
    expect(answer.statusCode).toBe(200);
    const quads = turtle(answer.body);
    const distributions = quads
      .filter((q) => q.predicate.value === RDF_TYPE && q.object.value === `${DCAT}Distribution`)
      .map((q) => q.subject.value);
    expect(distributions).toHaveLength(4);
    const report = await new SHACLValidator(new Store(turtle(DISTRIBUTION_SHAPE))).validate(
      new Store(quads),
    );
    expect(report.results.map((result) => result.message.map((m) => m.value))).toEqual([]);
    expect(report.conforms).toBe(true);
    for (const distribution of distributions) {
      const [download] = objectsOf(quads, distribution, `${DCAT}downloadURL`);
      const bytes = (await service.call('GET', pathOf(download as string))).rawPayload;
      const [checksum] = objectsOf(quads, distribution, `${SPDX}checksum`);
      const [value] = objectsOf(quads, checksum as string, `${SPDX}checksumValue`);
      expect(createHash('sha256').update(bytes).digest('hex')).toBe(value);
      expect(objectsOf(quads, distribution, `${DCAT}byteSize`)).toEqual([String(bytes.length)]);
    }
    // A browser is given a page that says what DCAT is for, lists the
    // distributions and links the description in each RDF format.
    const browser = new Browser(service);
    const page = await browser.get(path);
    expect(page.statusCode).toBe(200);
    expect(page.headers['content-type']).toMatch(/^text\/html/);
    expect(page.body).toContain('Data Catalog Vocabulary');
    expect(page.body.match(/<td data-label="SHA-256">/g)).toHaveLength(4);
    for (const format of ['ttl', 'jsonld', 'rdf', 'nt']) {
      expect(page.body).toContain(`href="${path}?format=${format}" download`);
      const saved = await browser.get(`${path}?format=${format}`);
      expect(saved.statusCode, format).toBe(200);
      expect(saved.headers['content-type']).not.toMatch(/^text\/html/);
    }
    expect((await browser.get(`${path}?format=ttl`)).body).toBe(answer.body);
    expect((await browser.get(`${path}?format=docx`)).statusCode).toBe(400);
  });

  // CI installs python3-rdflib (.ci/run); a machine without it says so here rather than pass.
  it.skipIf(!rdflibThere && process.env.REQUIRE_CLIENTS !== '1')(
    'rdflib reads the released Turtle file and the DCAT description (an independent parser)',
    async () => {
      const json = (await service.call('GET', pathOf(`${library}/releases/1.0.0`))).json();
      const file = json.files.find(
        (item: { mediaType: string }) => item.mediaType === 'text/turtle',
      );
      const ttl = (await service.call('GET', pathOf(file.url))).body;
      const dcat = (
        await service.call('GET', pathOf(json.links.dcat), { headers: { accept: 'text/turtle' } })
      ).body;
      const script = `
import sys, json
from rdflib import Graph, URIRef, Namespace
OWL = Namespace("http://www.w3.org/2002/07/owl#")
DCAT = Namespace("http://www.w3.org/ns/dcat#")
data = json.load(sys.stdin)
release = Graph().parse(data=data["ttl"], format="turtle")
dcat = Graph().parse(data=data["dcat"], format="turtle")
lib = URIRef(data["library"])
dists = list(dcat.subjects(predicate=URIRef("http://www.w3.org/1999/02/22-rdf-syntax-ns#type"), object=DCAT.Distribution))
print(json.dumps({
  "triples": len(release),
  "versionIRI": [str(o) for o in release.objects(lib, OWL.versionIRI)],
  "distributions": len(dists),
  "complete": all((d, DCAT.downloadURL, None) in dcat and (d, DCAT.mediaType, None) in dcat for d in dists),
}))`;
      const run = spawnSync(PYTHON, ['-c', script], {
        input: JSON.stringify({ ttl, dcat, library }),
        encoding: 'utf8',
      });
      expect(run.status, run.stderr).toBe(0);
      const read = JSON.parse(run.stdout);
      expect(read.triples).toBeGreaterThan(20);
      expect(read.versionIRI).toEqual([`${library}/releases/1.0.0`]);
      expect(read.distributions).toBe(4);
      expect(read.complete).toBe(true);
    },
  );

  it('refuses a version that is not semantic or does not come after the latest, and changes nothing', async () => {
    const count = async () =>
      Number(
        (
          await service.db
            .selectFrom('releases')
            .select((eb) => eb.fn.countAll<number>().as('n'))
            .executeTakeFirstOrThrow()
        ).n,
      );
    const before = await count();
    for (const version of ['1.0', 'v1.1.0', '1.0.0', '0.9.0', '1.1.0+build', '01.2.0', ' ']) {
      const refused = await release(version);
      expect(refused.statusCode, version).toBe(400);
      expect(refused.json().errors[0].pointer, version).toBe('#/version');
    }
    const bodies = [
      { version: '2.0.0' },
      { version: '2.0.0', notes: '' },
      { version: '2.0.0', notes: 'x', extra: true },
      { version: 2, notes: 'x' },
    ];
    for (const body of bodies) {
      const refused = await service.call(
        'POST',
        `/releases?library=${encodeURIComponent(library)}`,
        { body },
      );
      expect(refused.statusCode, JSON.stringify(body)).toBe(400);
    }
    const unknown = await service.call(
      'POST',
      `/releases?library=${encodeURIComponent(`${library}-none`)}`,
      { body: { version: '9.0.0', notes: 'x' } },
    );
    expect(unknown.statusCode).toBe(400);
    const notALibrary = await service.call(
      'POST',
      `/releases?${iriQuery(pump).replace('iri', 'library')}`,
      {
        body: { version: '9.0.0', notes: 'x' },
      },
    );
    expect(notALibrary.statusCode).toBe(400);
    expect(await count()).toBe(before);
  });

  it('lets a Reviewer or the Creator who made the library release it, nobody else', async () => {
    const reader = await release('1.0.1', { roles: ['Reader'] });
    expect(reader.statusCode).toBe(403);
    const stranger = await service.app.inject({
      method: 'POST',
      url: `/releases?library=${encodeURIComponent(library)}`,
      headers: { authorization: `Bearer ${await service.token(['Creator'], 'mallory')}` },
      payload: { version: '1.0.1', notes: 'Mine' },
    });
    expect(stranger.statusCode).toBe(403);
    expect(stranger.json().detail).toContain('Reviewer or by the Creator who made it');
    const long = await release('1.0.1', { notes: 'x'.repeat(20001) });
    expect(long.statusCode).toBe(400);
    const anonymous = await release('1.0.1', { roles: [] });
    expect(anonymous.statusCode).toBe(401);
    expect(
      (await service.call('GET', `/releases?library=${encodeURIComponent(library)}`)).json(),
    ).toHaveLength(1);
  });

  it('keeps a release as it was after later changes; the next release has them; latest moves', async () => {
    const path = pathOf(`${library}/releases/1.0.0`);
    const before = await service.call('GET', path, {
      headers: { accept: 'application/n-triples' },
    });
    const valve = await create(service, '/rdl/terms/subclass', {
      name: 'Valve',
      ontology: library,
      subClassOf: ['http://x.example/Equipment'],
    });
    await approve(service, valve.iri);
    const next = await release('1.1.0', { roles: ['Reviewer'] });
    expect(next.statusCode, next.body).toBe(201);
    expect(next.json().resources).toBe(6);
    expect(new URL(next.json().links.previous).pathname).toBe(path);
    const after = await service.call('GET', path, { headers: { accept: 'application/n-triples' } });
    expect(after.body).toBe(before.body);
    expect(after.body).not.toContain(valve.iri);
    const newer = await service.call('GET', pathOf(`${library}/releases/1.1.0`), {
      headers: { accept: 'application/n-triples' },
    });
    expect(newer.body).toContain(valve.iri);
    const latest = await service.call('GET', pathOf(`${library}/releases/latest`));
    expect(latest.statusCode).toBe(302);
    expect(latest.headers.location).toBe(pathOf(`${library}/releases/1.1.0`));
    // Deleting is refused: a release is never taken back.
    const deleted = await service.call('DELETE', path, { roles: ['Reviewer'] });
    expect(deleted.statusCode).toBe(405);
    expect((await service.call('GET', path)).statusCode).toBe(200);
    const missing = await service.call('GET', pathOf(`${library}/releases/7.0.0`));
    expect(missing.statusCode).toBe(404);
  });

  it('lists exactly what changed between two releases, and since the latest, as JSON and RDF', async () => {
    const changes = (query: Record<string, string>, accept = 'application/json') =>
      service.call('GET', `/releases/changes?${new URLSearchParams({ library, ...query })}`, {
        headers: { accept },
      });
    const first = (await changes({ from: '1.0.0', to: '1.1.0' })).json();
    expect(first.counts).toEqual({ added: 1, changed: 0, deprecated: 0, removed: 0 });
    expect(first.added[0]).toMatchObject({ name: 'Valve', family: 'class' });
    const replacement = await create(service, '/rdl/terms/subclass', {
      name: 'Centrifugal pump',
      description: 'Moves liquids by a spinning impeller',
      ontology: library,
      subClassOf: ['http://x.example/Equipment'],
      replaces: pump,
    });
    await approve(service, replacement.iri);
    const since = (await changes({ from: '1.1.0' })).json();
    expect(since.to).toEqual({ version: null, iri: null });
    expect(since.counts).toEqual({ added: 1, changed: 0, deprecated: 1, removed: 0 });
    expect(since.added[0].iri).toBe(replacement.iri);
    expect(since.deprecated[0]).toMatchObject({ iri: pump, replacedBy: replacement.iri });
    const fields = since.deprecated[0].fields as {
      pointer: string;
      before?: string;
      after?: string;
    }[];
    expect(fields).toContainEqual({ pointer: '/name', before: 'Pump', after: 'Centrifugal pump' });
    // Released, the same differences hold between the two releases.
    expect((await release('1.2.0')).statusCode).toBe(201);
    const released = (await changes({ from: '1.1.0', to: '1.2.0' })).json();
    expect(released.counts).toEqual(since.counts);
    expect((await changes({ from: '1.2.0' })).json().counts).toEqual({
      added: 0,
      changed: 0,
      deprecated: 0,
      removed: 0,
    });
    const rdf = await changes({ from: '1.0.0', to: '1.1.0' }, 'text/turtle');
    expect(rdf.statusCode).toBe(200);
    const quads = turtle(rdf.body);
    expect(
      quads
        .filter((q) => q.predicate.value === 'https://w3id.org/refdata/vocab#added')
        .map((q) => q.object.value),
    ).toEqual([first.added[0].iri]);
    // The release page's JSON links the difference from the release before.
    const json = (await service.call('GET', pathOf(`${library}/releases/1.2.0`))).json();
    const linked = await service.call(
      'GET',
      new URL(json.links.changesFromPrevious).pathname +
        new URL(json.links.changesFromPrevious).search,
    );
    expect(linked.json().counts).toEqual(since.counts);
    const refusedQueries: Record<string, string>[] = [
      { from: '1.2.0', to: '1.1.0' },
      { from: '1.1.0', to: '1.1.0' },
      { from: '9.9.9' },
      { from: '1.0.0', to: 'nope' },
    ];
    for (const query of refusedQueries) {
      const refused = await changes(query);
      expect(refused.statusCode, JSON.stringify(query)).toBe(400);
    }
    expect((await changes({})).statusCode).toBe(400);
  });

  it('answers addresses that name nothing with 404, never a 500', async () => {
    const base = pathOf(library);
    for (const path of [
      `${base}/releases/9.9.9`,
      `${base}/releases/9.9.9/dcat`,
      `${base}/releases/1.0.0/files/other.ttl`,
      `${base}/releases/1.0.0/files/${'x'.repeat(300)}`,
      `${base}/releases/..%2F1.0.0`,
      '/ontology/no-such-library/releases/1.0.0',
      '/ontology/no-such-library/releases/latest',
    ]) {
      const answer = await service.call('GET', path);
      expect(answer.statusCode, path).toBe(404);
      expect(answer.headers['content-type'], path).toMatch(/^application\/problem\+json/);
    }
    const unreleased = await createLibrary(service, { name: uniqueName('Unreleased') });
    expect((await service.call('GET', `${pathOf(unreleased)}/releases/latest`)).statusCode).toBe(
      404,
    );
    expect(
      (await service.call('GET', `${base}/releases/1.0.0`, { headers: { accept: 'image/png' } }))
        .statusCode,
    ).toBe(406);
    const tooLong = await service.call('GET', `${base}/releases/${'1'.repeat(65)}`);
    expect(tooLong.statusCode).toBe(400);
    for (const query of ['', '?library=', `?library=${encodeURIComponent(library)}&page=2`]) {
      const listed = await service.call('GET', `/releases${query}`);
      expect(listed.statusCode, query).toBe(400);
    }
    // The pages answer the same with a page that says what is wrong.
    const browser = new Browser(service);
    await browser.signInWithToken(await service.token(['Reader'], 'rob'));
    for (const [path, status] of [
      [`/releases/changes?${new URLSearchParams({ library, from: '9.9.9' })}`, 400],
      [`/releases/changes?${new URLSearchParams({ library, from: '1.1.0', to: '1.0.0' })}`, 400],
      [
        `/releases/changes?${new URLSearchParams({ library: `${library}-none`, from: '1.0.0' })}`,
        404,
      ],
      ['/releases/changes?from=1.0.0', 400],
      ['/quality', 400],
      [`/quality?${new URLSearchParams({ library, view: 'all' })}`, 400],
      [`/quality?${new URLSearchParams({ library: `${library}-none` })}`, 404],
      [`${base}/releases/9.9.9`, 404],
    ] as const) {
      const page = await browser.get(path);
      expect(page.statusCode, path).toBe(status);
      expect(page.headers['content-type'], path).toMatch(/^text\/html/);
    }
  });

  it('says where each published resource stands with the releases, and offers a release once something is published', async () => {
    const own = await createLibrary(service, { name: uniqueName('Standing library') });
    await approve(service, own);
    const reviewer = new Browser(service);
    await reviewer.signInWithToken(await service.token(['Reviewer'], 'rita'));
    const libraryPage = async () => (await reviewer.get(pathOf(own))).body;
    const status = (body: string) =>
      /<span id="status"[^>]*>[^<]*<\/span>(?:<span id="release-standing">[\s\S]*?<\/span>)?/
        .exec(body)?.[0]
        .replace(/<[^>]+>/g, '');
    // Only Drafts: nothing to release, and the way there said instead.
    const valve = await create(service, '/rdl/terms/subclass', {
      name: 'Standing valve',
      ontology: own,
      subClassOf: ['http://x.example/Equipment'],
    });
    const empty = await libraryPage();
    expect(empty).not.toContain('Release it…');
    expect(empty).toContain('id="nothing-to-release"');
    expect(status((await reviewer.get(pathOf(valve.iri))).body)).toBe('Draft');
    // Approved: not yet released, on its page, the library's and the home page.
    await approve(service, valve.iri);
    expect(await libraryPage()).toContain('Release it…');
    expect(status((await reviewer.get(pathOf(valve.iri))).body)).toBe('Approved not yet released');
    expect(status(await libraryPage())).toBe('Approved not yet released');
    const card = async () =>
      new RegExp(`<li><a href="${pathOf(own)}">[\\s\\S]*?</li>`).exec(
        (await reviewer.get('/')).body,
      )?.[0] ?? '';
    expect(await card()).toContain('not yet released');
    // Released: in the release, linked.
    const made = await service.call('POST', `/releases?library=${encodeURIComponent(own)}`, {
      roles: ['Reviewer'] as never,
      body: { version: '1.0.0', notes: 'First' },
    });
    expect(made.statusCode, made.body).toBe(201);
    const released = (await reviewer.get(pathOf(valve.iri))).body;
    expect(status(released)).toBe('Approved in release 1.0.0');
    expect(released).toContain(
      ` in <a href="${pathOf(`${own}/releases/1.0.0`)}">release 1.0.0</a>`,
    );
    expect(await card()).toContain(
      `latest release <a href="${pathOf(`${own}/releases/1.0.0`)}">1.0.0</a>`,
    );
    // Replaced after the release: deprecated since, which the release does not say.
    const replacement = await create(service, '/rdl/terms/subclass', {
      name: 'Standing valve, better',
      ontology: own,
      subClassOf: ['http://x.example/Equipment'],
      replaces: valve.iri,
    });
    await approve(service, replacement.iri);
    expect(status((await reviewer.get(pathOf(valve.iri))).body)).toBe(
      'Deprecated changed since release 1.0.0',
    );
    expect(status((await reviewer.get(pathOf(replacement.iri))).body)).toBe(
      'Approved not yet released',
    );
  });

  it('takes a release from the form, and says on the form what is wrong', async () => {
    const browser = new Browser(service);
    await browser.signInWithToken(await service.token(['Reviewer'], 'rita'));
    const form = await browser.get(`/releases/new?library=${encodeURIComponent(library)}`);
    expect(form.statusCode).toBe(200);
    expect(form.body).toContain('id="version"');
    const count = async () =>
      (
        await service.db
          .selectFrom('releases')
          .select('id')
          .where('library_iri', '=', library)
          .execute()
      ).length;
    const before = await count();
    for (const [fields, status, text] of [
      [{ version: '', notes: 'Notes' }, 400, 'Give the version'],
      [{ version: '2.0.0', notes: '' }, 400, 'Say what the release brings'],
      [{ version: 'two', notes: 'Notes' }, 400, 'must be a semantic version'],
      [{ version: '0.1.0', notes: 'Notes' }, 400, 'must come after the latest release'],
      [{ version: '2.0.0', notes: 'x'.repeat(20001) }, 400, 'at most 20000 characters'],
    ] as const) {
      const refused = await browser.post('/releases/new', { library, ...fields });
      expect(refused.statusCode, JSON.stringify(fields).slice(0, 60)).toBe(status);
      expect(refused.body).toContain(text);
    }
    const unknown = await browser.post('/releases/new', {
      library: `${library}-none`,
      version: '2.0.0',
      notes: 'Notes',
    });
    expect(unknown.statusCode).toBe(404);
    expect(await count()).toBe(before);
    const made = await browser.post('/releases/new', {
      library,
      version: '2.0.0',
      notes: 'From the form',
    });
    expect(made.statusCode).toBe(303);
    expect(made.headers.location).toBe(`${pathOf(library)}/releases/2.0.0`);
    // Its page shows the changes from the release before, worked out once and kept.
    const shown = await browser.get(String(made.headers.location));
    expect(shown.statusCode).toBe(200);
    expect(shown.body).toContain('Changes from 1.2.0');
    expect(shown.body).toContain('Nothing changed.');
    const kept = await service.db
      .selectFrom('release_changes')
      .innerJoin('releases', 'releases.id', 'release_changes.release_id')
      .select('release_changes.summary')
      .where('releases.iri', '=', `${library}/releases/2.0.0`)
      .executeTakeFirstOrThrow();
    expect(JSON.parse(kept.summary).counts).toEqual({
      added: 0,
      deprecated: 0,
      changed: 0,
      removed: 0,
    });
    expect((await browser.get(String(made.headers.location))).body).toBe(shown.body);
    // A Creator who did not make the library is told so, on the form's own address.
    const other = new Browser(service);
    await other.signInWithToken(await service.token(['Creator'], 'mallory'));
    expect(
      (await other.get(`/releases/new?library=${encodeURIComponent(library)}`)).statusCode,
    ).toBe(403);
  });
});
