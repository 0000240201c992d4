/**
 * The change feed at /changes, a Linked Data Event Stream: each version a
 * member with the resource's RDF at that version, pages by time linked by
 * tree:relation, visitors shown the published versions only, and a library's
 * stream replayed by an independent LDES client (the registry's ldes-client)
 * to the library's published view.
 */
import { DataFactory, Parser, type Quad } from 'n3';
import { isomorphic } from 'rdf-isomorphic';
import { describe, expect, it } from 'vitest';
import { DATABASE_KINDS } from '../harness.js';
import {
  approve,
  classChangedOnce,
  create,
  createLibrary,
  type Refdata,
  refdataForTests,
  startListeningRefdata,
  uniqueName,
} from './helpers.js';
import { Browser } from './page-client.js';
import { withCanonicalDateTimes } from './rdf-readers.js';

const LDES = 'https://w3id.org/ldes#';
const TREE = 'https://w3id.org/tree#';
const PROV = 'http://www.w3.org/ns/prov#';
const RDL = 'https://w3id.org/refdata/vocab#';
const IS_VERSION_OF = 'http://purl.org/dc/terms/isVersionOf';
const TURTLE = { accept: 'text/turtle' };

function parse(text: string, baseIRI?: string): Quad[] {
  return new Parser(baseIRI ? { baseIRI } : {}).parse(text);
}

/** The feed's members in a page: member IRI, resource, event and time. */
function members(quads: Quad[]) {
  const of = (subject: string, predicate: string) =>
    quads.find((quad) => quad.subject.value === subject && quad.predicate.value === predicate)
      ?.object.value;
  return quads
    .filter((quad) => quad.predicate.value === `${TREE}member`)
    .map((quad) => ({
      member: quad.object.value,
      resource: of(quad.object.value, IS_VERSION_OF),
      event: of(quad.object.value, `${RDL}changeEvent`)?.replace(RDL, ''),
      at: of(quad.object.value, `${PROV}generatedAtTime`),
    }));
}

function nextPage(quads: Quad[]): string | undefined {
  const relation = quads.find((quad) => quad.predicate.value === `${TREE}relation`);
  if (!relation) return undefined;
  return quads.find(
    (quad) => quad.subject.equals(relation.object) && quad.predicate.value === `${TREE}node`,
  )?.object.value;
}

/** Every member of a window, page by page from its first, following the relations. */
async function walk(service: Refdata, first: string, roles: 'visitor' | 'reader') {
  const seen: ReturnType<typeof members> = [];
  let url: string | undefined = first;
  let pages = 0;
  while (url) {
    const response = await service.call('GET', url, {
      roles: roles === 'visitor' ? [] : ['Reader'],
      headers: TURTLE,
    });
    expect(response.statusCode, response.body).toBe(200);
    const quads = parse(response.body);
    const found = members(quads);
    seen.push(...found);
    pages += 1;
    const next = nextPage(quads);
    url = next && found.length > 0 ? new URL(next).pathname + new URL(next).search : undefined;
    if (pages > 50) throw new Error('the feed does not end');
  }
  return { seen, pages };
}

describe.each(DATABASE_KINDS)('the change feed on %s', (kind) => {
  // Pages link on as soon as they are full here; the next describe keeps the settling time.
  const service = refdataForTests(kind, {
    REFDATA_CHANGES_PAGE_SIZE: '3',
    REFDATA_CHANGES_SETTLE_MS: '0',
  });

  it('tells each version of a story in order, to readers all of it and to visitors what is published', async () => {
    const library = await createLibrary(service);
    await approve(service, library);
    // The window starts after the library's approval, in a later millisecond.
    await new Promise((resolve) => setTimeout(resolve, 5));
    const since = new Date().toISOString();
    const pump = await classChangedOnce(service, library, uniqueName('Pump'));
    await approve(service, pump.iri);
    const draft = await create(service, '/rdl/terms/subclass', {
      name: uniqueName('Draft valve'),
      ontology: library,
      subClassOf: ['http://x.example/Equipment'],
    });
    const window = `/changes?${new URLSearchParams({ library, since })}`;

    const reader = await walk(service, window, 'reader');
    const story = reader.seen.filter((member) => member.resource === pump.iri);
    expect(story.map((member) => member.event)).toEqual([
      'Creation',
      'Update',
      'Submission',
      'Approval',
    ]);
    expect(reader.seen.some((member) => member.resource === draft.iri)).toBe(true);
    // Three to a page: five members take two pages, and the second has no relation yet.
    expect(reader.seen).toHaveLength(5);
    expect(reader.pages).toBe(2);
    const times = reader.seen.map((member) => Date.parse(member.at ?? ''));
    expect([...times].sort((a, b) => a - b)).toEqual(times);

    const visitor = await walk(service, window, 'visitor');
    expect(visitor.seen.map((member) => [member.resource, member.event])).toEqual([
      [pump.iri, 'Approval'],
    ]);

    // A member is the resource's RDF at that version: the update's description, not the create's.
    const [, update] = story;
    const member = await service.call('GET', new URL(update?.member ?? '').pathname, {
      roles: ['Reader'],
      headers: TURTLE,
    });
    expect(member.statusCode).toBe(200);
    expect(member.headers['cache-control']).toMatch(/immutable/);
    const triples = parse(member.body);
    const definition = triples.find(
      (quad) =>
        quad.subject.value === update?.member &&
        quad.predicate.value === 'http://www.w3.org/2004/02/skos/core#definition',
    );
    expect(definition?.object.value).toBe('Moves liquids');
    // Visitors do not see a version that was never published.
    const hidden = await service.call('GET', new URL(update?.member ?? '').pathname, {
      roles: [],
      headers: TURTLE,
    });
    expect(hidden.statusCode).toBe(404);
  });

  it('answers a browser with a page that explains the feed and lists the latest changes in words', async () => {
    const library = await createLibrary(service, { name: uniqueName('Feed page library') });
    await approve(service, library);
    const published = await create(service, '/rdl/terms/subclass', {
      name: uniqueName('Published pump'),
      ontology: library,
      subClassOf: ['http://x.example/Equipment'],
    });
    await approve(service, published.iri);
    const draft = await create(service, '/rdl/terms/subclass', {
      name: uniqueName('Draft pump'),
      ontology: library,
      subClassOf: ['http://x.example/Equipment'],
    });
    const visitor = new Browser(service);
    const page = await visitor.get(`/changes?${new URLSearchParams({ library })}`);
    expect(page.statusCode).toBe(200);
    expect(page.headers['content-type']).toMatch(/^text\/html/);
    expect(page.body).toContain('Linked Data Event Stream');
    expect(page.body).toMatch(/<h1[^>]*>Changes to Feed page library/);
    const latest = /<ul id="latest-changes">[\s\S]*?<\/ul>/.exec(page.body)?.[0] ?? '';
    expect(latest).toMatch(
      new RegExp(
        `>${published.name}</a> <span class="hint">reference-data class</span> approved <time`,
      ),
    );
    // A visitor sees the published versions only: no Draft, not even its name.
    expect(page.body).not.toContain(draft.name);
    // A program asking for RDF at the same address gets the stream.
    const rdf = await service.call('GET', `/changes?${new URLSearchParams({ library })}`, {
      roles: [],
      headers: TURTLE,
    });
    expect(rdf.headers['content-type']).toMatch(/^text\/turtle/);
    expect(members(parse(rdf.body)).map((member) => member.resource)).toContain(published.iri);
    // A reader signed in sees the Draft's creation too.
    const reader = new Browser(service);
    await reader.signInWithToken(await service.token(['Reader'], 'rhea'));
    const signedIn = (await reader.get(`/changes?${new URLSearchParams({ library })}`)).body;
    expect(signedIn).toContain(
      `>${draft.name}</a> <span class="hint">reference-data class</span> created`,
    );
    // Bad input gets a page saying what is wrong.
    expect((await visitor.get('/changes?colour=red')).statusCode).toBe(400);
    const unknown = await visitor.get(
      `/changes?${new URLSearchParams({ library: `${library}-none` })}`,
    );
    expect(unknown.statusCode).toBe(404);
    expect(unknown.headers['content-type']).toMatch(/^text\/html/);
  });

  it('answers bad parameters with a problem and unknown formats with 406', async () => {
    const cases: [string, number][] = [
      ['/changes?since=yesterday', 400],
      ['/changes?since=2026-01-02T00:00:00Z&until=2026-01-01T00:00:00Z', 400],
      ['/changes?after=12', 400],
      ['/changes?after=1.2.3', 400],
      ['/changes?after=1.2147483648', 400],
      ['/changes/events/2147483648', 400],
      ['/changes?page=2', 400],
      [`/changes?library=${encodeURIComponent('https://nowhere.example/lib')}`, 404],
      ['/changes/events/0', 400],
      ['/changes/events/abc', 400],
      ['/changes/events/999999999', 404],
    ];
    for (const [url, status] of cases) {
      const response = await service.call('GET', url, { roles: ['Reader'] });
      expect(response.statusCode, url).toBe(status);
      expect(response.headers['content-type'], url).toMatch(/^application\/problem\+json/);
    }
    const html = await service.call('GET', '/changes', {
      roles: ['Reader'],
      headers: { accept: 'image/png' },
    });
    expect(html.statusCode).toBe(406);
    // A browser (which takes anything at a lower weight) following the library page's link
    // gets the page that explains the feed; a program with a token, the feed itself.
    const browser = await service.call('GET', '/changes', {
      roles: [],
      headers: { accept: 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8' },
    });
    expect(browser.statusCode).toBe(200);
    expect(browser.headers['content-type']).toMatch(/^text\/html/);
    const program = await service.call('GET', '/changes', {
      roles: ['Reader'],
      headers: { accept: 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8' },
    });
    expect(program.headers['content-type']).toMatch(/^application\/ld\+json/);
    // A Draft library is not there for visitors.
    const draft = await createLibrary(service);
    const hidden = await service.call(
      'GET',
      `/changes?${new URLSearchParams({ library: draft })}`,
      {
        roles: [],
      },
    );
    expect(hidden.statusCode).toBe(404);
  });
});

describe.each(DATABASE_KINDS)('the change feed settling on %s', (kind) => {
  const service = refdataForTests(kind, { REFDATA_CHANGES_PAGE_SIZE: '3' });

  it('describes the stream, pages by time, and marks only settled full pages immutable', async () => {
    const library = await createLibrary(service);
    for (let i = 0; i < 3; i += 1)
      await create(service, '/rdl/terms/subclass', {
        name: uniqueName('Tank'),
        ontology: library,
        subClassOf: ['http://x.example/Equipment'],
      });
    const response = await service.call('GET', `/changes?${new URLSearchParams({ library })}`, {
      roles: ['Reader'],
    });
    expect(response.statusCode).toBe(200);
    // JSON-LD unless asked otherwise.
    expect(response.headers['content-type']).toMatch(/^application\/ld\+json/);
    expect(response.headers.vary).toMatch(/Authorization/);
    const document = response.json();
    expect(JSON.stringify(document)).toContain('EventStream');

    const turtle = await service.call('GET', `/changes?${new URLSearchParams({ library })}`, {
      roles: ['Reader'],
      headers: TURTLE,
    });
    const quads = parse(turtle.body);
    const stream = quads.find(
      (quad) => quad.object.value === `${LDES}EventStream` && quad.predicate.value.endsWith('type'),
    )?.subject;
    expect(stream).toBeDefined();
    const about = (predicate: string) =>
      quads.find(
        (quad) => quad.subject.value === stream?.value && quad.predicate.value === predicate,
      )?.object.value;
    expect(about(`${LDES}timestampPath`)).toBe(`${PROV}generatedAtTime`);
    expect(about(`${LDES}versionOfPath`)).toBe(IS_VERSION_OF);
    expect(about(`${LDES}versionDeleteObject`)).toBe(`${RDL}Removal`);
    expect(about(`${TREE}view`)).toMatch(/\/changes\?library=/);
    // Full (the library and three tanks) but new: a change that took its time earlier may
    // still commit into it, so it neither links on nor is final yet; a client polls it.
    expect(members(quads)).toHaveLength(3);
    expect(turtle.headers['cache-control']).toBe('private, no-cache');
    expect(quads.some((quad) => quad.predicate.value === `${LDES}immutable`)).toBe(false);
    expect(nextPage(quads)).toBeUndefined();

    // The same page asked again with its tag is 304.
    const again = await service.call('GET', `/changes?${new URLSearchParams({ library })}`, {
      roles: ['Reader'],
      headers: { ...TURTLE, 'if-none-match': turtle.headers.etag as string },
    });
    expect(again.statusCode).toBe(304);

    // Pages whose members are older than a minute are settled: immutable, cached for a year.
    await service.db
      .updateTable('change_events')
      .set((eb) => ({ at: eb('at', '-', 3_600_000) }))
      .where('library_key', '=', library)
      .execute();
    const settled = await service.call('GET', `/changes?${new URLSearchParams({ library })}`, {
      roles: ['Reader'],
      headers: TURTLE,
    });
    expect(settled.headers['cache-control']).toBe('private, max-age=31536000, immutable');
    const final = parse(settled.body);
    expect(final.some((quad) => quad.predicate.value === `${LDES}immutable`)).toBe(true);
    const relationType = final.find(
      (quad) =>
        quad.predicate.value === 'http://www.w3.org/1999/02/22-rdf-syntax-ns#type' &&
        quad.object.value === `${TREE}GreaterThanOrEqualToRelation`,
    );
    expect(relationType).toBeDefined();
    expect(nextPage(final)).toMatch(/after=\d+\.\d+/);
    // A settled page is the same bytes whenever it is asked, as its strong ETag and immutable
    // promise: blank nodes (its relation's, members' nodes) are labelled in document order,
    // not by a counter that writes made move on meanwhile.
    await create(service, '/rdl/terms/subclass', {
      name: uniqueName('Mapped tank'),
      ontology: library,
      subClassOf: ['http://x.example/Equipment'],
      relatedTerms: [{ relationType: 'closeMatch', targetLibrary: 'ISO', targetIdentifier: 'T1' }],
    });
    for (const headers of [
      TURTLE,
      { accept: 'application/ld+json' },
      { accept: 'application/n-quads' },
    ]) {
      const read = () =>
        service.call('GET', `/changes?${new URLSearchParams({ library })}`, {
          roles: ['Reader'],
          headers,
        });
      const first = await read();
      await create(service, '/rdl/terms/subclass', {
        name: uniqueName('Another mapped tank'),
        ontology: library,
        subClassOf: ['http://x.example/Equipment'],
        relatedTerms: [
          { relationType: 'closeMatch', targetLibrary: 'ISO', targetIdentifier: 'T2' },
        ],
      });
      const second = await read();
      expect(second.headers.etag).toBe(first.headers.etag);
      expect(second.body, headers.accept).toBe(first.body);
    }
    const visitors = await service.call('GET', '/changes', { roles: [], headers: TURTLE });
    expect(visitors.headers['cache-control']).toMatch(/^public, /);
  });
});

describe('an independent LDES client replaying a library', () => {
  it("ends with the library's published view", async () => {
    const service = await startListeningRefdata({
      REFDATA_CHANGES_PAGE_SIZE: '4',
      REFDATA_CHANGES_SETTLE_MS: '0',
    });
    try {
      const library = await createLibrary(service);
      await approve(service, library);
      const ontology = library;
      const classes: string[] = [];
      for (const name of ['Pump', 'Valve', 'Tank']) {
        const made = await create(service, '/rdl/terms/subclass', {
          name: uniqueName(name),
          ontology,
          subClassOf: ['http://x.example/Equipment'],
          definitionSources: [
            { sourceName: 'ISO 15926-4', sourceId: 'R123', sourceUrl: 'https://example.org/iso' },
          ],
        });
        await approve(service, made.iri);
        classes.push(made.iri);
      }
      const picklist = await create(service, '/cfihos/picklist', {
        name: uniqueName('Colours'),
        ontology,
        subClassOf: 'https://example.org/Colour',
        picklistValues: [
          { name: 'Red', description: 'Like blood' },
          { name: 'Blue', description: 'Like the sky' },
        ],
      });
      await approve(service, picklist.iri);
      // A replacement deprecates the first pump: both stay in the published view.
      const replacement = await create(service, '/rdl/terms/subclass', {
        name: uniqueName('Centrifugal pump'),
        ontology,
        subClassOf: ['http://x.example/Equipment'],
        replaces: classes[0],
      });
      await approve(service, replacement.iri);
      // Drafts and rejected terms are not in it.
      await create(service, '/rdl/terms/subclass', {
        name: uniqueName('Draft compressor'),
        ontology,
        subClassOf: ['http://x.example/Equipment'],
      });

      const { replicateLDES } = await import('ldes-client');
      const url = `${service.url}/changes?${new URLSearchParams({ library })}`;
      const client = replicateLDES({ url, polling: false, noShape: true }, 'ascending');
      const latest = new Map<string, { at: number; quads: Quad[] }>();
      for await (const member of client.stream() as AsyncIterable<{
        id: { value: string };
        quads: Quad[];
      }>) {
        const quads = member.quads;
        const resource = quads.find(
          (quad) =>
            quad.subject.value === member.id.value && quad.predicate.value === IS_VERSION_OF,
        )?.object.value;
        const at = quads.find(
          (quad) =>
            quad.subject.value === member.id.value &&
            quad.predicate.value === `${PROV}generatedAtTime`,
        )?.object.value;
        if (!resource || !at) throw new Error(`member ${member.id.value} lacks its version facts`);
        const known = latest.get(resource);
        if (!known || Date.parse(at) >= known.at)
          latest.set(resource, { at: Date.parse(at), quads });
      }
      // Each resource as its latest version says, the member's own facts left out.
      const feedOnly = new Set([IS_VERSION_OF, `${PROV}generatedAtTime`, `${RDL}changeEvent`]);
      const replayed: Quad[] = [];
      for (const [resource, { quads }] of latest) {
        for (const quad of quads) {
          if (feedOnly.has(quad.predicate.value)) continue;
          if (quad.predicate.value === `${TREE}member`) continue;
          const member = quads.find((candidate) => candidate.predicate.value === IS_VERSION_OF)
            ?.subject.value;
          const subject =
            quad.subject.value === member ? DataFactory.namedNode(resource) : quad.subject;
          replayed.push(DataFactory.quad(subject, quad.predicate, quad.object));
        }
      }
      const published = await service.call(
        'GET',
        `${new URL(library).pathname}?view=published&detailLevel=3`,
        { roles: ['Reader'], headers: { accept: 'application/n-triples' } },
      );
      expect(published.statusCode).toBe(200);
      const view = parse(published.body);
      expect(latest.size).toBe(1 + classes.length + 1 + 2 + 1);
      expect(
        isomorphic(withCanonicalDateTimes(replayed), withCanonicalDateTimes(view)),
        'the replayed stream differs from the published view',
      ).toBe(true);
      // And it was the view, not two empty graphs: every class is in it.
      for (const iri of classes)
        expect(replayed.some((quad) => quad.subject.value === iri)).toBe(true);
    } finally {
      await service.close();
    }
  });
});
