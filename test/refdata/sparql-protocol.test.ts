/**
 * The same answers from both engines: the W3C SPARQL 1.1 Protocol tests for
 * queries (the query-operation entries of the Working Group's protocol
 * manifest, on refdata's own library graphs where those load data1.rdf and
 * its siblings from the web, which this endpoint never does), the dataset
 * questions (`FROM`, `FROM NAMED`, `GRAPH ?g`, the protocol's graphs over
 * the query's), and clients of other makers unchanged: SPARQLWrapper with
 * its defaults, and rdflib's SPARQLStore with `contexts()`; embedded and
 * Virtuoso alike.
 */
import { execFile, spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { startedForTests } from '../harness.js';
import {
  approve,
  create,
  createLibrary,
  type Refdata,
  startListeningRefdata,
  uniqueName,
} from './helpers.js';
import { startVirtuoso, virtuosoThere } from './virtuoso.js';

const ENGINES = virtuosoThere ? (['embedded', 'virtuoso'] as const) : (['embedded'] as const);
const RESULTS_JSON = 'application/sparql-results+json';
const FORM = 'application/x-www-form-urlencoded';
const PYTHON = '/usr/bin/python3';
const pythonHas = (module: string) =>
  existsSync(PYTHON) && spawnSync(PYTHON, ['-c', `import ${module}`]).status === 0;
// CI installs both (.ci/run); a machine without them says so here rather than pass.
const clientsThere =
  (pythonHas('rdflib') && pythonHas('SPARQLWrapper')) || process.env.REQUIRE_CLIENTS === '1';

const OWL_CLASS = 'http://www.w3.org/2002/07/owl#Class';
const RDFS = 'http://www.w3.org/2000/01/rdf-schema#';

describe.each(ENGINES)('the SPARQL protocol and its datasets, %s', (engine) => {
  const store = engine === 'virtuoso' ? startedForTests(startVirtuoso) : undefined;
  /** A Virtuoso as a client (its SERVICE): the store itself, or one of its own. */
  const virtuosoClient = store ?? (virtuosoThere ? startedForTests(startVirtuoso) : undefined);
  const service = startedForTests(() =>
    startListeningRefdata({
      REFDATA_IRI_BASE: 'https://rdl.example.org',
      ...(store ? store.env : {}),
    }),
  );
  /** Two libraries, each a graph, each with a class; a subtree under a root in the first. */
  let fixture: Promise<{
    first: string;
    second: string;
    a: string;
    b: string;
    root: string;
    subtree: string[];
  }>;
  const data = () => {
    fixture ??= (async () => {
      const first = await createLibrary(service);
      await approve(service, first);
      const second = await createLibrary(service);
      await approve(service, second);
      const made = async (ontology: string, name: string, superclass: string) => {
        const iri = (
          await create(service, '/rdl/terms/subclass', {
            name: uniqueName(name),
            ontology,
            subClassOf: [superclass],
          })
        ).iri;
        await approve(service, iri);
        return iri;
      };
      const root = await made(first, 'Rotating equipment', 'http://x.example/Equipment');
      const a = await made(first, 'Pump', root);
      const subtree = [a, await made(first, 'Centrifugal pump', a)];
      const b = await made(second, 'Valve', 'http://x.example/Equipment');
      return { first, second, a, b, root, subtree };
    })();
    return fixture;
  };

  const endpoint = () => `${(service as Refdata & { url: string }).url}/sparql`;
  const get = (query: string, extra = '', accept = RESULTS_JSON) =>
    fetch(`${endpoint()}?query=${encodeURIComponent(query)}${extra}`, { headers: { accept } });
  const values = async (response: Response, name: string) => {
    expect(response.status, await response.clone().text()).toBe(200);
    const json = (await response.json()) as {
      results: { bindings: Record<string, { value: string }>[] };
    };
    return json.results.bindings.map((row) => row[name]?.value ?? '').sort();
  };
  const graphs = (parameter: string, iris: string[]) =>
    iris.map((iri) => `&${parameter}=${encodeURIComponent(iri)}`).join('');

  describe('the W3C protocol tests for queries', () => {
    it('query_get, query_post_form, and a direct POST', async () => {
      const { a } = await data();
      const query = `ASK { <${a}> ?p ?o }`;
      const byGet = await get(query);
      const byForm = await fetch(endpoint(), {
        method: 'POST',
        headers: { 'content-type': FORM, accept: RESULTS_JSON },
        body: `query=${encodeURIComponent(query)}`,
      });
      const direct = await fetch(endpoint(), {
        method: 'POST',
        headers: { 'content-type': 'application/sparql-query', accept: RESULTS_JSON },
        body: query,
      });
      for (const response of [byGet, byForm, direct]) {
        expect(response.status).toBe(200);
        expect(((await response.json()) as { boolean: boolean }).boolean).toBe(true);
      }
    });

    it('query_dataset_default_graphs_get and _post: the graphs given are the default graph', async () => {
      const { first, second, a, b } = await data();
      const query = `SELECT ?s WHERE { ?s a <${OWL_CLASS}> VALUES ?s { <${a}> <${b}> } }`;
      expect(await values(await get(query, graphs('default-graph-uri', [first])), 's')).toEqual([
        a,
      ]);
      const byForm = await fetch(endpoint(), {
        method: 'POST',
        headers: { 'content-type': FORM, accept: RESULTS_JSON },
        body: `query=${encodeURIComponent(query)}${graphs('default-graph-uri', [first, second])}`,
      });
      expect(await values(byForm, 's')).toEqual([a, b].sort());
    });

    it('query_dataset_named_graphs_get and _post: an empty default graph, the graphs given named', async () => {
      const { first, second, a, b } = await data();
      const query = `SELECT ?g WHERE { { GRAPH ?g { ?s ?p ?o } VALUES ?s { <${a}> <${b}> } } UNION { ?s ?p ?o VALUES ?s { <${a}> <${b}> } BIND("default" AS ?g) } }`;
      const named = [
        ...new Set(await values(await get(query, graphs('named-graph-uri', [second])), 'g')),
      ];
      expect(named).toEqual([second]);
      const byForm = await fetch(endpoint(), {
        method: 'POST',
        headers: { 'content-type': FORM, accept: RESULTS_JSON },
        body: `query=${encodeURIComponent(query)}${graphs('named-graph-uri', [first, second])}`,
      });
      expect([...new Set(await values(byForm, 'g'))]).toEqual([first, second].sort());
    });

    it('query_dataset_full: default and named graphs given together', async () => {
      const { first, second, a, b } = await data();
      const query = `SELECT ?s ?g WHERE { { ?s a <${OWL_CLASS}> } UNION { GRAPH ?g { ?s a <${OWL_CLASS}> } } VALUES ?s { <${a}> <${b}> } }`;
      const response = await get(
        query,
        `${graphs('default-graph-uri', [first])}${graphs('named-graph-uri', [second])}`,
      );
      expect(response.status).toBe(200);
      const rows = (
        (await response.json()) as {
          results: { bindings: Record<string, { value: string }>[] };
        }
      ).results.bindings.map((row) => `${row.s?.value} ${row.g?.value ?? '-'}`);
      expect(rows.sort()).toEqual([`${a} -`, `${b} ${second}`].sort());
    });

    it("query_multiple_dataset: the protocol's graphs take the place of the query's FROM", async () => {
      const { first, second, a, b } = await data();
      const query = `SELECT ?s FROM <${first}> WHERE { ?s a <${OWL_CLASS}> VALUES ?s { <${a}> <${b}> } }`;
      expect(await values(await get(query), 's')).toEqual([a]);
      expect(await values(await get(query, graphs('default-graph-uri', [second])), 's')).toEqual([
        b,
      ]);
    });

    it('query_content_type_select, _ask, _construct and _describe', async () => {
      const { a } = await data();
      const cases = [
        [`SELECT ?p WHERE { <${a}> ?p ?o }`, 'application/sparql-results+xml'],
        [`ASK { <${a}> ?p ?o }`, 'application/sparql-results+xml'],
        [`CONSTRUCT WHERE { <${a}> ?p ?o }`, 'application/rdf+xml'],
        [`DESCRIBE <${a}>`, 'application/rdf+xml'],
      ] as const;
      for (const [query, type] of cases) {
        const response = await get(query, '', `${type}, */*;q=0.1`);
        expect(response.status, query).toBe(200);
        expect(response.headers.get('content-type')).toMatch(
          new RegExp(`^${type.replace('+', '\\+')}`),
        );
      }
    });

    it('bad_query_method, bad_multiple_queries, bad_query_wrong_media_type, bad_query_missing_form_type, bad_query_missing_direct_type, bad_query_non_utf8, bad_query_syntax', async () => {
      const put = await fetch(`${endpoint()}?query=${encodeURIComponent('ASK {}')}`, {
        method: 'PUT',
      });
      expect(put.status).toBe(405);
      const twice = await fetch(
        `${endpoint()}?query=${encodeURIComponent('ASK {}')}&query=${encodeURIComponent('SELECT * {}')}`,
      );
      expect(twice.status).toBe(400);
      const wrongType = await fetch(endpoint(), {
        method: 'POST',
        headers: { 'content-type': 'text/plain' },
        body: 'ASK {}',
      });
      expect(wrongType.status).toBe(415);
      for (const body of ['query=ASK%20%7B%7D', 'ASK {}']) {
        // Without a Content-Type: fetch sends text/plain for a string, so send bytes.
        const missing = await fetch(endpoint(), {
          method: 'POST',
          body: new TextEncoder().encode(body),
        });
        expect([400, 415], body).toContain(missing.status);
      }
      const utf16 = await fetch(endpoint(), {
        method: 'POST',
        headers: { 'content-type': 'application/sparql-query' },
        body: Buffer.from('\ufeffASK {}', 'utf16le'),
      });
      expect(utf16.status).toBe(400);
      const syntax = await get('ASK {');
      expect(syntax.status).toBe(400);
      expect(((await syntax.json()) as { detail: string }).detail).toMatch(/^Line 1, column 5: /);
    });
  });

  it('lists its graphs with GRAPH ?g {}, as rdflib lists contexts', async () => {
    const { first, second } = await data();
    const listed = await values(await get('SELECT ?g WHERE { GRAPH ?g {} }'), 'g');
    expect(listed).toEqual(expect.arrayContaining([first, second]));
    expect(listed.every((graph) => graph.startsWith('https://rdl.example.org/'))).toBe(true);
    // Over the protocol's named graphs, those alone: a graph that is not ours is an empty
    // one, named all the same (and with Virtuoso, never the store's graph of that name).
    const foreign = 'http://www.openlinksw.com/schemas/virtrdf#';
    const given = await values(
      await get('SELECT ?g WHERE { GRAPH ?g {} }', graphs('named-graph-uri', [second, foreign])),
      'g',
    );
    expect(given).toEqual([second, foreign].sort());
    const inForeign = await values(
      await get('SELECT ?s WHERE { GRAPH ?g { ?s ?p ?o } }', graphs('named-graph-uri', [foreign])),
      's',
    );
    expect(inForeign).toEqual([]);
  });

  it("answers the IMF type library's nightly query unchanged: a subtree by rdfs:label", async () => {
    const { root, subtree } = await data();
    const query = `PREFIX rdfs: <${RDFS}>
SELECT ?x ?label WHERE { ?x rdfs:subClassOf+ <${root}> . ?x rdfs:label ?label } ORDER BY ?label`;
    const response = await get(query);
    expect(response.status).toBe(200);
    const rows = (
      (await response.json()) as { results: { bindings: Record<string, { value: string }>[] } }
    ).results.bindings;
    expect(rows.map((row) => row.x?.value).sort()).toEqual([...subtree].sort());
    expect(rows.every((row) => (row.label?.value ?? '').length > 0)).toBe(true);
  });

  it("takes Virtuoso's maxrows as a cap on rows, the endpoint's own when that is lower", async () => {
    const { a } = await data();
    const response = await get(`SELECT ?p ?o WHERE { <${a}> ?p ?o }`, '&maxrows=2');
    expect(await values(response.clone(), 'p')).toHaveLength(2);
    expect(response.headers.get('x-sparql-maxrows')).toBe('2');
    expect((await get('ASK {}', '&maxrows=0')).status).toBe(400);
    expect((await get('ASK {}', '&maxrows=many')).status).toBe(400);
    // A format name longer than any is refused; one named twice, the first that names one wins.
    expect((await get('ASK {}', `&format=${'j'.repeat(201)}`)).status).toBe(400);
    const twice = await get('ASK {}', '&format=nonsense&format=xml');
    expect(twice.headers.get('content-type')).toMatch(/^application\/sparql-results\+xml/);
    const byForm = await fetch(endpoint(), {
      method: 'POST',
      headers: { 'content-type': FORM, accept: RESULTS_JSON },
      body: `query=${encodeURIComponent(`SELECT ?p ?o WHERE { <${a}> ?p ?o }`)}&maxrows=3`,
    });
    expect(await values(byForm, 'p')).toHaveLength(3);
  });

  it.skipIf(!virtuosoClient)("answers Virtuoso's SERVICE, as Virtuoso asks it", async () => {
    const { a } = await data();
    const printed = await virtuosoClient?.isql(
      `SPARQL SELECT ?p ?o WHERE { SERVICE <${endpoint()}> { <${a}> ?p ?o } };`,
    );
    expect(printed).toContain(`${RDFS}label`);
    expect(printed).toContain('http://www.w3.org/2004/02/skos/core#prefLabel');
    expect(printed).toMatch(/\n(\d+) Rows\./);
    expect(Number(/\n(\d+) Rows\./.exec(printed ?? '')?.[1])).toBeGreaterThan(5);
  });

  it.skipIf(!clientsThere)(
    "SPARQLWrapper with its defaults, and with each format it asks for; rdflib's contexts()",
    async () => {
      const { first, second, a } = await data();
      const script = `
import json, sys
from SPARQLWrapper import SPARQLWrapper, JSON, CSV, TSV, TURTLE, RDFXML
from rdflib import Graph, ConjunctiveGraph, URIRef
from rdflib.plugins.stores.sparqlstore import SPARQLStore
endpoint, subject = sys.argv[1], sys.argv[2]
out = {}
# Its defaults: GET, XML, format=xml&output=xml&results=xml beside Accept.
wrapper = SPARQLWrapper(endpoint)
wrapper.setQuery("SELECT ?p WHERE { <%s> ?p ?o }" % subject)
out["default"] = len(wrapper.query().convert().getElementsByTagName("result"))
for name, fmt in (("json", JSON), ("csv", CSV), ("tsv", TSV)):
    wrapper = SPARQLWrapper(endpoint)
    wrapper.setQuery("SELECT ?p WHERE { <%s> ?p ?o }" % subject)
    wrapper.setReturnFormat(fmt)
    converted = wrapper.query().convert()
    out[name] = len(converted["results"]["bindings"]) if name == "json" else len(converted.decode().strip().splitlines()) - 1
for method in ("GET", "POST"):
    wrapper = SPARQLWrapper(endpoint)
    wrapper.setMethod(method)
    wrapper.setQuery("ASK { <%s> ?p ?o }" % subject)
    wrapper.setReturnFormat(JSON)
    out["ask " + method] = wrapper.query().convert()["boolean"]
# (Its JSONLD asks for the rdflib-jsonld package, which Debian's rdflib does without.)
for name, fmt in (("turtle", TURTLE), ("rdfxml", RDFXML), ("default graph", None)):
    wrapper = SPARQLWrapper(endpoint)
    wrapper.setQuery("CONSTRUCT WHERE { <%s> ?p ?o }" % subject)
    if fmt is not None:
        wrapper.setReturnFormat(fmt)
    converted = wrapper.query().convert()
    if not isinstance(converted, Graph):
        converted = Graph().parse(data=converted, format="turtle" if name == "turtle" else "xml")
    out[name] = len(converted)
store = SPARQLStore(endpoint, returnFormat="json")
out["contexts"] = sorted(str(context.identifier) for context in ConjunctiveGraph(store=store).contexts())
print(json.dumps(out))
`;
      const run = await promisify(execFile)(PYTHON, ['-c', script, endpoint(), a], {
        encoding: 'utf8',
        timeout: 60_000,
      });
      const answer = JSON.parse(run.stdout) as Record<string, unknown>;
      const predicates = answer.json as number;
      expect(predicates).toBeGreaterThan(5);
      expect(answer).toMatchObject({
        default: predicates,
        csv: predicates,
        tsv: predicates,
        'ask GET': true,
        'ask POST': true,
      });
      for (const name of ['turtle', 'rdfxml', 'default graph'])
        expect(answer[name], name).toBeGreaterThan(5);
      expect(answer.contexts).toEqual(expect.arrayContaining([first, second]));
    },
  );
});
