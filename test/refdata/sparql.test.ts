/**
 * `/sparql` through HTTP: the protocol's three ways to send a query, every
 * results format, the graphs and the published view, the service description,
 * what is refused and why, and the limits.
 */
import { Parser, type Quad, Writer } from 'n3';
import oxigraph from 'oxigraph';
import { isomorphic } from 'rdf-isomorphic';
import { describe, expect, it } from 'vitest';
import {
  BLANK_NODE_DEPTH,
  blankNodeDepth,
} from '../../src/refdata/sparql/external/delete-update.js';
import { DATABASE_KINDS, startedForTests } from '../harness.js';
import {
  anotherInstance,
  approve,
  create,
  createLibrary,
  iriQuery,
  type Refdata,
  refdataForTests,
  startRefdata,
  uniqueName,
} from './helpers.js';
import { withCanonicalDateTimes } from './rdf-readers.js';
import { startVirtuoso, virtuosoThere } from './virtuoso.js';

const RESULTS_JSON = 'application/sparql-results+json';
const FORM = 'application/x-www-form-urlencoded';

/** A query as a visitor without a token sends it, by GET (from `remoteAddress`, if given). */
function get(
  service: Refdata,
  query: string,
  accept = RESULTS_JSON,
  extra = '',
  remoteAddress?: string,
) {
  return service.call('GET', `/sparql?query=${encodeURIComponent(query)}${extra}`, {
    roles: [],
    headers: { accept },
    ...(remoteAddress ? { remoteAddress } : {}),
  });
}

async function select(service: Refdata, query: string): Promise<Record<string, string>[]> {
  const response = await get(service, query);
  expect(response.statusCode, response.body).toBe(200);
  const bindings = response.json().results.bindings as Record<string, { value: string }>[];
  return bindings.map((binding) =>
    Object.fromEntries(Object.entries(binding).map(([name, term]) => [name, term.value])),
  );
}

/**
 * Triples as the embedded store holds them: Oxigraph keeps typed literals by
 * value, so a cardinality's xsd:nonNegativeInteger reads back as xsd:integer
 * and a time in its canonical form (docs/sparql.md). Same values, other terms.
 */
function asOxigraphHoldsThem(ntriples: string): Quad[] {
  const store = new oxigraph.Store();
  store.load(ntriples, { format: 'application/n-triples' });
  const dumped = store.dump({
    format: 'application/n-triples',
    from_graph_name: oxigraph.defaultGraph(),
  });
  return new Parser({ format: 'N-Triples' }).parse(dumped);
}

/** The triples as a store holds them: Oxigraph by value (above); Virtuoso with canonical times. */
function asStoreHoldsThem(engine: 'embedded' | 'virtuoso', triples: Quad[]): Quad[] {
  if (engine === 'virtuoso') return withCanonicalDateTimes(triples);
  return asOxigraphHoldsThem(new Writer({ format: 'N-Triples' }).quadsToString(triples));
}

const SKOS = 'http://www.w3.org/2004/02/skos/core#';
const RDL = 'https://w3id.org/refdata/vocab#';

/**
 * The published view's queries answered by the embedded engine, and by a real
 * Virtuoso the instance keeps (docs/sparql.md): the same tests for both.
 */
const ENGINES = virtuosoThere ? (['embedded', 'virtuoso'] as const) : (['embedded'] as const);

describe.each(DATABASE_KINDS.flatMap((kind) => ENGINES.map((engine) => [kind, engine] as const)))(
  'the SPARQL endpoint on %s, %s',
  (kind, engine) => {
    const store = engine === 'virtuoso' ? startedForTests(startVirtuoso) : undefined;
    const service = startedForTests(() =>
      startRefdata(kind, {
        REFDATA_IRI_BASE: 'https://rdl.example.org',
        REFDATA_SPARQL_MAX_QUERY_KIB: '4',
        ...(store ? store.env : {}),
      }),
    );

    /** An approved class in `ontology`, with its IRI. */
    async function approvedClass(
      ontology: string,
      name: string,
      superclass = 'http://x.example/E',
    ) {
      const made = await create(service, '/rdl/terms/subclass', {
        name,
        ontology,
        subClassOf: [superclass],
      });
      await approve(service, made.iri);
      return made.iri;
    }

    it('answers a query sent by GET, by a form and as application/sparql-query alike', async () => {
      const ontology = await createLibrary(service);
      await approve(service, ontology);
      const pump = await approvedClass(ontology, uniqueName('Pump'));
      const query = `PREFIX skos: <${SKOS}> SELECT ?label WHERE { <${pump}> skos:prefLabel ?label }`;
      const byGet = await get(service, query);
      const byForm = await service.call('POST', '/sparql', {
        roles: [],
        headers: { 'content-type': FORM, accept: RESULTS_JSON },
        body: `query=${encodeURIComponent(query)}`,
      });
      const byBody = await service.call('POST', '/sparql', {
        roles: [],
        headers: { 'content-type': 'application/sparql-query', accept: RESULTS_JSON },
        body: query,
      });
      for (const response of [byGet, byForm, byBody]) {
        expect(response.statusCode, response.body).toBe(200);
        expect(response.headers['content-type']).toMatch(/^application\/sparql-results\+json/);
        expect(response.headers['access-control-allow-origin']).toBe('*');
        expect(response.json().results.bindings).toEqual([
          {
            label: expect.objectContaining({
              type: 'literal',
              value: expect.stringMatching(/^Pump/),
            }),
          },
        ]);
      }
    });

    it('writes SELECT and ASK in JSON, XML, CSV and TSV, and graphs in every RDF format', async () => {
      const ontology = await createLibrary(service);
      await approve(service, ontology);
      const seal = await approvedClass(ontology, uniqueName('Seal'));
      const query = `SELECT ?type WHERE { <${seal}> a ?type }`;
      const xml = await get(service, query, 'application/sparql-results+xml');
      expect(xml.headers['content-type']).toMatch(/^application\/sparql-results\+xml/);
      expect(xml.body).toContain('<sparql xmlns="http://www.w3.org/2005/sparql-results#">');
      const csv = await get(service, query, 'text/csv');
      expect(csv.headers['content-type']).toBe('text/csv; charset=utf-8');
      expect(csv.body.split('\r\n')[0] ?? csv.body.split('\n')[0]).toBe('type');
      const tsv = await get(service, query, 'text/tab-separated-values');
      expect(tsv.body.split('\n')[0]).toBe('?type');
      const ask = await get(service, `ASK { <${seal}> ?p ?o }`);
      expect(ask.json()).toEqual({ head: {}, boolean: true });
      expect((await get(service, `ASK { <${seal}> ?p ?o }`, 'text/csv')).statusCode).toBe(406);

      const construct = `CONSTRUCT { <${seal}> ?p ?o } WHERE { <${seal}> ?p ?o }`;
      const turtle = await get(service, construct, '*/*');
      expect(turtle.headers['content-type']).toBe('text/turtle; charset=utf-8');
      const triples = new Parser().parse(turtle.body);
      expect(triples.length).toBeGreaterThan(3);
      for (const mediaType of [
        'application/ld+json',
        'application/n-triples',
        'application/rdf+xml',
        'application/trig',
        'application/n-quads',
      ]) {
        const answer = await get(service, construct, mediaType);
        expect(answer.statusCode, mediaType).toBe(200);
        expect(answer.headers['content-type'], mediaType).toMatch(
          new RegExp(`^${mediaType.replace('+', '\\+')}`),
        );
      }
      expect((await get(service, construct, 'application/sparql-results+json')).statusCode).toBe(
        406,
      );
    });

    it('holds exactly the triples each published resource gives as its own RDF', async () => {
      const ontology = await createLibrary(service);
      const dimension = await create(service, '/cfihos/dimension', {
        name: uniqueName('Length'),
        ontology,
        dimensionCode: 'L',
        definitionSources: [{ sourceName: 'ISO', sourceId: '80000', sourceUrl: 'https://iso.org' }],
      });
      const picklist = await create(service, '/cfihos/picklist', {
        name: uniqueName('Colours'),
        ontology,
        subClassOf: 'http://x.example/Colour',
        picklistValues: [
          { name: 'Red', description: 'Red' },
          { name: 'Blue', description: 'Blue' },
        ],
      });
      const attribute = await create(service, '/imf/attributetypes', {
        name: uniqueName('Pressure'),
        ontology,
        predicate: 'http://x.example/pressure',
      });
      const block = await create(service, '/imf/blocktypes', {
        name: uniqueName('Pump block'),
        ontology,
        aspect: 'http://ns.imfid.org/imf#functionAspect',
        referenceTerms: [],
        attributeReferences: [{ entityUri: attribute.iri, minCardinality: 1, maxCardinality: 1 }],
        terminalReferences: [],
        hasPartBlockReferences: [],
      });
      const property = await create(service, '/general/property', {
        name: uniqueName('Flow'),
        ontology,
        types: ['number'],
        range: dimension.iri,
      });
      const entity = await create(service, '/cfihos/entity', {
        name: uniqueName('Pump class'),
        ontology,
        entityType: 'equipment',
        propertyReferences: [{ propertyUri: property.iri, minCardinality: 0, maxCardinality: 1 }],
      });
      const symbol = await create(service, '/esl/engineeringSymbols', {
        name: uniqueName('Valve symbol'),
        ontology,
        dcIdentifier: uniqueName('V').replace(' ', '-'),
        width: 10,
        height: 10,
        shape: 'M 0 0 L 10 10',
        centerOfRotation: { x: 5, y: 2.5 },
      });
      const all = [
        ontology,
        dimension.iri,
        picklist.iri,
        attribute.iri,
        block.iri,
        property.iri,
        entity.iri,
        symbol.iri,
      ];
      for (const iri of all) await approve(service, iri);
      const values = (picklist.picklistValues as { id: string }[]).map((value) => value.id);
      const ownTriples: Quad[] = [];
      for (const iri of all) {
        // A library's own RDF is the library alone at detail level 1 (its terms follow at 2 and 3).
        const level = iri === ontology ? '?detailLevel=1' : '';
        const own = await service.call('GET', `${new URL(iri).pathname}${level}`, {
          headers: { accept: 'application/n-triples' },
        });
        expect(own.statusCode, iri).toBe(200);
        const expected = asOxigraphHoldsThem(own.body);
        ownTriples.push(...new Parser({ format: 'N-Triples' }).parse(own.body));
        // Virtuoso's DESCRIBE gives the triples naming the resource as object too: the
        // library's graph as a whole is compared below, for both engines.
        if (engine !== 'embedded') continue;
        // A picklist's own RDF holds its values; in the dataset each value is a resource.
        const described = iri === picklist.iri ? [iri, ...values] : [iri];
        const quads: Quad[] = [];
        for (const subject of described) {
          const answer = await get(service, `DESCRIBE <${subject}>`, 'application/n-triples');
          expect(answer.statusCode, answer.body).toBe(200);
          quads.push(...new Parser({ format: 'N-Triples' }).parse(answer.body));
        }
        expect(quads.length, iri).toBe(expected.length);
        expect(isomorphic(quads, expected), iri).toBe(true);
      }
      // An external store's deletions reach blank nodes this deep (delete-update.ts).
      expect(blankNodeDepth(ownTriples)).toBeLessThanOrEqual(BLANK_NODE_DEPTH);
      // The library's graph is exactly its resources' own RDF together.
      const graph = await get(
        service,
        `CONSTRUCT { ?s ?p ?o } WHERE { GRAPH <${ontology}> { ?s ?p ?o } }`,
        'application/n-triples',
      );
      expect(graph.statusCode, graph.body).toBe(200);
      const parsed = new Parser({ format: 'N-Triples' }).parse(graph.body);
      const held = engine === 'virtuoso' ? withCanonicalDateTimes(parsed) : parsed;
      const expected = asStoreHoldsThem(engine, ownTriples);
      expect(held.length).toBe(expected.length);
      expect(isomorphic(held, expected)).toBe(true);
    });

    it('puts each library in a graph of its own, the default graph their union', async () => {
      const first = await createLibrary(service);
      const second = await createLibrary(service);
      await approve(service, first);
      await approve(service, second);
      const a = await approvedClass(first, uniqueName('A'));
      const b = await approvedClass(second, uniqueName('B'));
      const graphs = await select(
        service,
        `SELECT ?g ?s WHERE { GRAPH ?g { ?s a <http://www.w3.org/2002/07/owl#Class> } VALUES ?s { <${a}> <${b}> } }`,
      );
      expect(graphs).toEqual(
        expect.arrayContaining([
          { g: first, s: a },
          { g: second, s: b },
        ]),
      );
      const both = `SELECT ?s WHERE { ?s a <http://www.w3.org/2002/07/owl#Class> VALUES ?s { <${a}> <${b}> } }`;
      expect((await select(service, both)).map((row) => row.s).sort()).toEqual([a, b].sort());
      // The query's own FROM: that library alone is the default graph.
      const from = `SELECT ?s FROM <${first}> WHERE { ?s a <http://www.w3.org/2002/07/owl#Class> VALUES ?s { <${a}> <${b}> } }`;
      expect((await select(service, from)).map((row) => row.s)).toEqual([a]);
      // default-graph-uri: that library alone is the default graph.
      const onlyFirst = await get(
        service,
        both,
        RESULTS_JSON,
        `&default-graph-uri=${encodeURIComponent(first)}`,
      );
      expect(
        onlyFirst.json().results.bindings.map((row: { s: { value: string } }) => row.s.value),
      ).toEqual([a]);
      // named-graph-uri alone: an empty default graph, and that named graph.
      const named = await get(
        service,
        `SELECT ?g ?s WHERE { GRAPH ?g { ?s ?p ?o } VALUES ?s { <${a}> <${b}> } }`,
        RESULTS_JSON,
        `&named-graph-uri=${encodeURIComponent(second)}`,
      );
      const rows = named.json().results.bindings as {
        g: { value: string };
        s: { value: string };
      }[];
      expect(new Set(rows.map((row) => `${row.g.value} ${row.s.value}`))).toEqual(
        new Set([`${second} ${b}`]),
      );
      expect(
        (await get(service, both, RESULTS_JSON, `&default-graph-uri=${encodeURIComponent(first)}`))
          .statusCode,
      ).toBe(200);
    });

    it('publishes only what is Approved or Deprecated, from the moment it is, on every instance', async () => {
      const ontology = await createLibrary(service);
      await approve(service, ontology);
      const draft = await create(service, '/rdl/terms/subclass', {
        name: uniqueName('Draft valve'),
        ontology,
        subClassOf: ['http://x.example/E'],
      });
      const seen = async (instance: Refdata | Awaited<ReturnType<typeof anotherInstance>>) => {
        const response =
          'call' in instance
            ? await get(instance, `ASK { <${draft.iri}> ?p ?o }`)
            : await instance.inject({
                method: 'GET',
                url: `/sparql?query=${encodeURIComponent(`ASK { <${draft.iri}> ?p ?o }`)}`,
                headers: { accept: RESULTS_JSON },
              });
        return response.json().boolean as boolean;
      };
      const other = await anotherInstance(service, { REFDATA_SPARQL_POLL_MS: '50' });
      try {
        expect(await seen(service)).toBe(false);
        const submitted = await service.call('PUT', `/status/submit?${iriQuery(draft.iri)}`);
        expect(submitted.statusCode).toBe(204);
        expect(await seen(service)).toBe(false);
        const approved = await service.call('PUT', `/status/approve?${iriQuery(draft.iri)}`, {
          roles: ['Reviewer'],
          body: { justification: 'Agreed' },
        });
        expect(approved.statusCode).toBe(204);
        // The writer's next query sees it at once; another instance within its poll.
        expect(await seen(service)).toBe(true);
        await expect.poll(() => seen(other), { timeout: 5000, interval: 50 }).toBe(true);

        // Replaced: still published, as Deprecated, with its replacement.
        const replacement = await create(service, '/rdl/terms/subclass', {
          name: uniqueName('Valve'),
          ontology,
          subClassOf: ['http://x.example/E'],
          replaces: draft.iri,
        });
        await approve(service, replacement.iri);
        const deprecated = await select(
          service,
          `SELECT ?status ?by WHERE { <${draft.iri}> <${RDL}status> ?status ; <http://purl.org/dc/terms/isReplacedBy> ?by }`,
        );
        expect(deprecated).toEqual([{ status: `${RDL}Deprecated`, by: replacement.iri }]);

        // Rejected: never published.
        const rejected = await create(service, '/rdl/terms/subclass', {
          name: uniqueName('Rejected valve'),
          ontology,
          subClassOf: ['http://x.example/E'],
        });
        await service.call('PUT', `/status/submit?${iriQuery(rejected.iri)}`);
        await service.call('PUT', `/status/reject?${iriQuery(rejected.iri)}`, {
          roles: ['Reviewer'],
          body: { justification: 'No' },
        });
        expect((await get(service, `ASK { <${rejected.iri}> ?p ?o }`)).json().boolean).toBe(false);
      } finally {
        await other.close();
      }
    });

    it('leaves nothing of a resource as it was once it changes, its blank nodes included', async () => {
      const ontology = await createLibrary(service);
      await approve(service, ontology);
      const symbol = (name: string, replaces?: string) =>
        create(service, '/esl/engineeringSymbols', {
          name: uniqueName(name),
          ontology,
          dcIdentifier: uniqueName(name).replace(/ /g, '-'),
          width: 10,
          height: 10,
          shape: 'M 0 0 L 10 10',
          centerOfRotation: { x: 5, y: 2.5 },
          ...(replaces ? { replaces } : {}),
        });
      const old = await symbol('Pump symbol');
      await approve(service, old.iri);
      // Approving its successor makes it Deprecated: each of its triples is written anew.
      const successor = await symbol('Pump symbol v2', old.iri);
      await approve(service, successor.iri);
      const graph = await get(
        service,
        `CONSTRUCT { ?s ?p ?o } WHERE { GRAPH <${ontology}> { ?s ?p ?o } }`,
        'application/n-triples',
      );
      const exported = await service.call(
        'GET',
        `${new URL(ontology).pathname}?detailLevel=3&view=published`,
        { headers: { accept: 'application/n-triples' } },
      );
      const parse = (text: string) => new Parser({ format: 'N-Triples' }).parse(text);
      const held = parse(graph.body);
      const expected = asStoreHoldsThem(engine, parse(exported.body));
      expect(blankNodeDepth(expected)).toBeGreaterThan(0);
      expect(blankNodeDepth(expected)).toBeLessThanOrEqual(BLANK_NODE_DEPTH);
      expect(held.length).toBe(expected.length);
      expect(
        isomorphic(engine === 'virtuoso' ? withCanonicalDateTimes(held) : held, expected),
      ).toBe(true);
      // No blank node is left hanging from nothing.
      const orphans = await select(
        service,
        `SELECT ?b WHERE { GRAPH <${ontology}> { ?b ?p ?o FILTER(isBlank(?b)) FILTER NOT EXISTS { ?x ?y ?b } } }`,
      );
      expect(orphans).toEqual([]);
    });

    it('shows readers who ask for it the working view, Drafts and all, and never visitors', async () => {
      const ontology = await createLibrary(service);
      const draft = await create(service, '/rdl/terms/subclass', {
        name: uniqueName('Draft seal'),
        ontology,
        subClassOf: ['http://x.example/E'],
      });
      const ask = `ASK { GRAPH <${ontology}> { <${draft.iri}> <${RDL}status> <${RDL}Draft> } }`;
      const asReader = await service.call(
        'GET',
        `/sparql?view=working&query=${encodeURIComponent(ask)}`,
        { roles: ['Reader'], headers: { accept: RESULTS_JSON } },
      );
      expect(asReader.statusCode, asReader.body).toBe(200);
      expect(asReader.json().boolean).toBe(true);
      const byForm = await service.call('POST', '/sparql', {
        roles: ['Reader'],
        headers: { 'content-type': FORM, accept: RESULTS_JSON },
        body: `view=working&query=${encodeURIComponent(ask)}`,
      });
      expect(byForm.json().boolean).toBe(true);
      // An editor posting its form to /sparql?view=working names the view in the URL.
      const formToWorkingUrl = await service.call('POST', '/sparql?view=working', {
        roles: ['Reader'],
        headers: { 'content-type': FORM, accept: RESULTS_JSON },
        body: `query=${encodeURIComponent(ask)}`,
      });
      expect(formToWorkingUrl.json().boolean).toBe(true);
      // The published view, the default, holds no Draft, whoever asks.
      const published = await service.call('GET', `/sparql?query=${encodeURIComponent(ask)}`, {
        roles: ['Reader'],
        headers: { accept: RESULTS_JSON },
      });
      expect(published.json().boolean).toBe(false);
      // A visitor asking for the working view, by URL or by form, is asked for a token.
      const visitor = await get(service, ask, RESULTS_JSON, '&view=working');
      expect(visitor.statusCode).toBe(401);
      const visitorForm = await service.call('POST', '/sparql', {
        roles: [],
        headers: { 'content-type': FORM },
        body: `view=working&query=${encodeURIComponent(ask)}`,
      });
      expect(visitorForm.statusCode).toBe(401);
      expect((await get(service, ask, RESULTS_JSON, '&view=everything')).statusCode).toBe(400);
    });

    it('describes itself at /sparql without a query', async () => {
      const ontology = await createLibrary(service);
      await approve(service, ontology);
      const response = await service.call('GET', '/sparql', {
        roles: [],
        headers: { accept: 'text/turtle' },
      });
      expect(response.statusCode).toBe(200);
      const quads = new Parser().parse(response.body);
      const SD = 'http://www.w3.org/ns/sparql-service-description#';
      expect(quads.some((quad) => quad.predicate.value === `${SD}endpoint`)).toBe(true);
      expect(
        quads.some(
          (quad) => quad.predicate.value === `${SD}name` && quad.object.value === ontology,
        ),
      ).toBe(true);
      expect(
        quads.some(
          (quad) =>
            quad.predicate.value === `${SD}resultFormat` &&
            quad.object.value === 'http://www.w3.org/ns/formats/SPARQL_Results_JSON',
        ),
      ).toBe(true);
    });

    it('refuses what it cannot answer, each with its own problem', async () => {
      const syntax = await get(service, 'SELECT * WHERE { ?s ?p ?o ');
      expect(syntax.statusCode).toBe(400);
      expect(syntax.headers['content-type']).toMatch(/^application\/problem\+json/);
      expect(syntax.json()).toMatchObject({
        type: expect.stringMatching(/\/problems\/sparql-syntax$/),
        // In words, where the engine's own message lists the tokens it could have read.
        detail: 'Line 1, column 16: this “{” is never closed.',
      });
      for (const update of [
        service.call('POST', '/sparql', {
          roles: [],
          headers: { 'content-type': FORM },
          body: `update=${encodeURIComponent('INSERT DATA { <http://a> <http://b> <http://c> }')}`,
        }),
        service.call('POST', '/sparql', {
          roles: [],
          headers: { 'content-type': 'application/sparql-update' },
          body: 'DELETE WHERE { ?s ?p ?o }',
        }),
        get(service, 'PREFIX x: <http://x#> # a comment\nINSERT DATA { x:a x:b x:c }'),
      ]) {
        const response = await update;
        expect(response.statusCode).toBe(403);
        expect(response.json().type).toMatch(/\/problems\/sparql-update-refused$/);
      }
      const federated = await get(
        service,
        'SELECT * WHERE { SERVICE <http://dbpedia.org/sparql> { ?s ?p ?o } }',
      );
      expect(federated.statusCode).toBe(400);
      expect(federated.json().type).toMatch(/\/problems\/sparql-query-refused$/);
      expect(
        (await get(service, 'SELECT * WHERE { ?s ?p ?o } LIMIT 1', 'image/png')).statusCode,
      ).toBe(406);
      const long = await get(service, `SELECT * WHERE { ?s ?p "${'x'.repeat(5000)}" }`);
      expect(long.statusCode).toBe(413);
      const plain = await service.call('POST', '/sparql', {
        roles: [],
        headers: { 'content-type': 'text/plain' },
        body: 'SELECT * WHERE { ?s ?p ?o }',
      });
      expect(plain.statusCode).toBe(415);
      const json = await service.call('POST', '/sparql', {
        roles: [],
        headers: { 'content-type': 'application/json' },
        body: { query: 'ASK {}' },
      });
      expect(json.statusCode).toBe(415);
      const notUtf8 = await service.app.inject({
        method: 'POST',
        url: '/sparql',
        headers: { 'content-type': 'application/sparql-query' },
        payload: Buffer.from([0x41, 0x53, 0x4b, 0x20, 0x7b, 0xff, 0x7d]),
      });
      expect(notUtf8.statusCode).toBe(400);
      expect(notUtf8.json().type).toMatch(/\/problems\/malformed-body$/);
      // A text that is no query is a syntax error, whatever Accept asks for.
      const nonsense = await get(service, 'SHOW ME EVERYTHING', 'text/turtle');
      expect(nonsense.statusCode).toBe(400);
      expect(nonsense.json().type).toMatch(/\/problems\/sparql-syntax$/);
      // RDF/XML cannot name this predicate: not writable in that format, 406 rather than a failure.
      const unwritable = await get(
        service,
        'CONSTRUCT { <http://e/a> <http://e/123> "x" } WHERE {}',
        'application/rdf+xml',
      );
      expect(unwritable.statusCode).toBe(406);
      expect(unwritable.json().detail).toMatch(/cannot be written as RDF\/XML/);
      const noQuery = await service.call('POST', '/sparql', {
        roles: [],
        headers: { 'content-type': FORM },
        body: 'default-graph-uri=http%3A%2F%2Fa',
      });
      expect(noQuery.statusCode).toBe(400);
      const unknown = await service.call('GET', '/sparql?query=ASK%7B%7D&graph=x', { roles: [] });
      expect(unknown.statusCode).toBe(400);
      // A token it does not accept is refused even though visitors may read.
      const badToken = await service.call('GET', '/sparql?query=ASK%7B%7D', {
        roles: [],
        headers: { authorization: 'Bearer nonsense' },
      });
      expect(badToken.statusCode).toBe(401);
    });

    it('answers the browser preflight of a cross-origin client', async () => {
      const preflight = await service.call('OPTIONS', '/sparql', {
        roles: [],
        headers: {
          origin: 'https://yasgui.example',
          'access-control-request-method': 'POST',
          'access-control-request-headers': 'content-type, authorization',
        },
      });
      expect(preflight.statusCode).toBe(204);
      expect(preflight.headers['access-control-allow-origin']).toBe('*');
      expect(preflight.headers['access-control-allow-methods']).toContain('POST');
      expect(preflight.headers['access-control-allow-headers']).toContain('Authorization');
    });
  },
);

describe('the SPARQL endpoint with a cap on rows', () => {
  const service = refdataForTests('sqlite', { REFDATA_SPARQL_MAX_ROWS: '3' });

  it('cuts an answer at the cap, says so, and leaves a query within it as asked', async () => {
    const ontology = await createLibrary(service);
    await approve(service, ontology);
    const root = `http://x.example/${encodeURIComponent(uniqueName('Root'))}`;
    const classes: string[] = [];
    for (let n = 0; n < 5; n += 1) {
      const made = await create(service, '/rdl/terms/subclass', {
        name: uniqueName(`Capped${n}`),
        ontology,
        subClassOf: [root],
      });
      await approve(service, made.iri);
      classes.push(made.iri);
    }
    const under = `SELECT ?c WHERE { ?c <http://www.w3.org/2000/01/rdf-schema#subClassOf> <${root}> } ORDER BY ?c`;
    const rows = async (query: string, accept = RESULTS_JSON) => {
      const response = await get(service, query, accept);
      expect(response.statusCode, response.body).toBe(200);
      return response;
    };
    const sorted = [...classes].sort();

    const unbounded = await rows(under);
    expect(unbounded.headers['x-sparql-maxrows']).toBe('3');
    expect(
      unbounded.json().results.bindings.map((b: { c: { value: string } }) => b.c.value),
    ).toEqual(sorted.slice(0, 3));
    // A larger limit is lowered, the offset kept.
    const paged = await rows(`${under} LIMIT 50 OFFSET 1`);
    expect(paged.headers['x-sparql-maxrows']).toBe('3');
    expect(paged.json().results.bindings.map((b: { c: { value: string } }) => b.c.value)).toEqual(
      sorted.slice(1, 4),
    );
    // A query within the cap is answered as asked, without the header.
    const within = await rows(`${under} LIMIT 2`);
    expect(within.headers['x-sparql-maxrows']).toBeUndefined();
    expect(within.json().results.bindings).toHaveLength(2);
    // A trailing VALUES block: the limit goes before it.
    const valued = await rows(
      `SELECT ?c ?root WHERE { ?c <http://www.w3.org/2000/01/rdf-schema#subClassOf> ?root } VALUES ?root { <${root}> }`,
    );
    expect(valued.json().results.bindings).toHaveLength(3);
    const csv = await rows(under, 'text/csv');
    expect(csv.body.trim().split('\r\n')).toHaveLength(1 + 3);
    // A graph's solutions are cut alike: three classes, one triple each.
    const graph = await rows(
      `CONSTRUCT { ?c <http://x.example/under> <${root}> } WHERE { ?c <http://www.w3.org/2000/01/rdf-schema#subClassOf> <${root}> }`,
      'application/n-triples',
    );
    expect(graph.headers['x-sparql-maxrows']).toBe('3');
    expect(graph.body.trim().split('\n')).toHaveLength(3);
    const ask = await rows(
      `ASK { ?c <http://www.w3.org/2000/01/rdf-schema#subClassOf> <${root}> }`,
    );
    expect(ask.headers['x-sparql-maxrows']).toBeUndefined();
  });

  it('refuses a query the cap cannot be put into, and still says where a broken one breaks', async () => {
    const broken = await get(service, 'SELECT ?x WHERE {\n  ?x ?p \n');
    expect(broken.statusCode).toBe(400);
    expect(broken.json().type).toMatch(/\/problems\/sparql-syntax$/);
    // Triple terms are the engine's SPARQL 1.2, not the 1.1 the cap is read in.
    const beyond = await get(service, 'SELECT * WHERE { <<( <a:b> <a:c> <a:d> )>> ?p ?o }');
    expect(beyond.statusCode).toBe(400);
    expect(beyond.json().type).toMatch(/\/problems\/sparql-query-refused$/);
  });
});

/** Every triple against every triple, ten times over: hours, not a test's time limit. */
const RUNAWAY = `SELECT (COUNT(*) AS ?n) WHERE { ${Array.from(
  { length: 10 },
  (_, n) => `?s${n} ?p${n} ?o${n} .`,
).join(' ')} }`;

describe('the SPARQL endpoint stopping a runaway query', () => {
  const service = refdataForTests('sqlite', {
    REFDATA_SPARQL_TIMEOUT_MS: '1500',
    REFDATA_SPARQL_COPIES: '2',
  });

  it('answers other queries while one runs past its time, and loses no write when it is stopped', async () => {
    const ontology = await createLibrary(service);
    await approve(service, ontology);
    // Another client's runaway query: this one's go on meanwhile.
    const runaway = get(service, RUNAWAY, RESULTS_JSON, '', '192.0.2.7');
    await new Promise((resolve) => setTimeout(resolve, 100));
    // The other copy answers, and sees a write made while the runaway query runs.
    const written = await create(service, '/rdl/terms/subclass', {
      name: uniqueName('WrittenMeanwhile'),
      ontology,
      subClassOf: ['http://x.example/E'],
    });
    await approve(service, written.iri);
    const meanwhile = await get(service, `ASK { <${written.iri}> ?p ?o }`);
    expect(meanwhile.statusCode, meanwhile.body).toBe(200);
    expect(meanwhile.json().boolean).toBe(true);
    const stopped = await runaway;
    expect(stopped.statusCode).toBe(503);
    expect(stopped.json().type).toMatch(/\/problems\/sparql-timeout$/);
    // Never a 503 after it: a query waits for the copy left, and then the new copy
    // (filled from the snapshot) answers too. Two clients at once take both copies.
    for (let round = 0; round < 5; round += 1) {
      const both = await Promise.all([
        get(service, `ASK { <${written.iri}> ?p ?o }`),
        get(service, `ASK { <${written.iri}> ?p ?o }`, RESULTS_JSON, '', '192.0.2.8'),
      ]);
      for (const answer of both) {
        expect(answer.statusCode, answer.body).toBe(200);
        expect(answer.json().boolean).toBe(true);
      }
    }
    // A write after the stop reaches the new copy as well.
    const later = await create(service, '/rdl/terms/subclass', {
      name: uniqueName('WrittenAfter'),
      ontology,
      subClassOf: ['http://x.example/E'],
    });
    await approve(service, later.iri);
    const after = await Promise.all([
      get(service, `ASK { <${later.iri}> ?p ?o }`),
      get(service, `ASK { <${later.iri}> ?p ?o }`, RESULTS_JSON, '', '192.0.2.8'),
    ]);
    expect(after.map((answer) => answer.json().boolean)).toEqual([true, true]);
  });
});

describe('the SPARQL endpoint within its limits', () => {
  // One copy: a query past its time costs the copy, and the dataset is built anew.
  const service = refdataForTests('sqlite', {
    REFDATA_SPARQL_TIMEOUT_MS: '300',
    REFDATA_SPARQL_MAX_CONCURRENT: '1',
    REFDATA_SPARQL_COPIES: '1',
    REFDATA_ANONYMOUS_READ: 'false',
  });

  it('needs a reader when visitors may not read', async () => {
    expect((await get(service, 'ASK {}')).statusCode).toBe(401);
    const reader = await service.call('GET', `/sparql?query=${encodeURIComponent('ASK {}')}`, {
      roles: ['Reader'],
      headers: { accept: RESULTS_JSON },
    });
    expect(reader.statusCode).toBe(200);
  });

  it('stops a query past its time, says so, and answers again once its copy is refilled', async () => {
    const ontology = await createLibrary(service);
    await approve(service, ontology);
    const ask = (query: string) =>
      service.call('GET', `/sparql?query=${encodeURIComponent(query)}`, {
        roles: ['Reader'],
        headers: { accept: RESULTS_JSON },
      });
    const slow = ask(RUNAWAY);
    // Meanwhile the one place there is taken.
    await new Promise((resolve) => setTimeout(resolve, 50));
    const busy = await ask('ASK {}');
    expect(busy.statusCode).toBe(503);
    expect(busy.json().type).toMatch(/\/problems\/sparql-busy$/);
    expect(busy.headers['retry-after']).toBe('1');
    const stopped = await slow;
    expect(stopped.statusCode).toBe(503);
    expect(stopped.json().type).toMatch(/\/problems\/sparql-timeout$/);
    await expect
      .poll(async () => (await ask(`ASK { <${ontology}> ?p ?o }`)).statusCode, {
        timeout: 10_000,
        interval: 100,
      })
      .toBe(200);
    expect((await ask(`ASK { <${ontology}> ?p ?o }`)).json().boolean).toBe(true);
  });
});
