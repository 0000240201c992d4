/**
 * Two SPARQL clients nobody here wrote, unchanged, against a listening refdata:
 * the npm package `fetch-sparql-endpoint` (by POST and by GET), and rdflib's
 * SPARQLStore (Debian's python3-rdflib), as pipelines use them.
 */
import { execFile, spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { promisify } from 'node:util';
import { SparqlEndpointFetcher } from 'fetch-sparql-endpoint';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  approve,
  create,
  createLibrary,
  type Refdata,
  startListeningRefdata,
  uniqueName,
} from './helpers.js';

const PYTHON = '/usr/bin/python3';
const rdflibThere =
  existsSync(PYTHON) &&
  spawnSync(PYTHON, ['-c', 'import rdflib'], { encoding: 'utf8' }).status === 0;

describe('SPARQL clients of other makers', () => {
  let service: Refdata & { url: string };
  let library: string;
  let pump: string;
  beforeAll(async () => {
    service = await startListeningRefdata();
    library = await createLibrary(service);
    await approve(service, library);
    pump = (
      await create(service, '/rdl/terms/subclass', {
        name: uniqueName('Centrifugal pump'),
        ontology: library,
        subClassOf: ['http://x.example/Pump'],
      })
    ).iri;
    await approve(service, pump);
  });
  afterAll(() => service?.close());

  const LABELS = `SELECT ?label WHERE { <PUMP> <http://www.w3.org/2004/02/skos/core#prefLabel> ?label }`;

  it.each(['POST', 'GET'] as const)(
    'fetch-sparql-endpoint reads bindings, booleans and triples (%s)',
    async (method) => {
      const fetcher = new SparqlEndpointFetcher({ method });
      const endpoint = `${service.url}/sparql`;
      const labels: string[] = [];
      const bindings = await fetcher.fetchBindings(endpoint, LABELS.replace('PUMP', pump));
      for await (const binding of bindings as AsyncIterable<Record<string, { value: string }>>)
        labels.push(binding.label?.value ?? '');
      expect(labels).toEqual([expect.stringMatching(/^Centrifugal pump/)]);
      expect(await fetcher.fetchAsk(endpoint, `ASK { <${pump}> ?p ?o }`)).toBe(true);
      const triples: string[] = [];
      const stream = await fetcher.fetchTriples(endpoint, `CONSTRUCT WHERE { <${pump}> ?p ?o }`);
      for await (const quad of stream as AsyncIterable<{ subject: { value: string } }>)
        triples.push(quad.subject.value);
      expect(triples.length).toBeGreaterThan(3);
      expect(new Set(triples)).toEqual(new Set([pump]));
    },
  );

  // CI installs python3-rdflib (.ci/run); a machine without it says so here rather than pass.
  it.skipIf(!rdflibThere && process.env.REQUIRE_CLIENTS !== '1')(
    "rdflib's SPARQLStore queries it as a graph, by GET and by POST",
    async () => {
      const script = `
import json, sys
from rdflib import Graph, URIRef
from rdflib.plugins.stores.sparqlstore import SPARQLStore
out = {}
for method in ("GET", "POST"):
    store = SPARQLStore(sys.argv[1], method=method, returnFormat="json")
    graph = Graph(store=store)
    rows = graph.query(sys.argv[2])
    out[method] = [str(row[0]) for row in rows]
    out[method + " ask"] = bool(graph.query("ASK { <%s> ?p ?o }" % sys.argv[3]).askAnswer)
    out[method + " triples"] = len(list(graph.triples((URIRef(sys.argv[3]), None, None))))
print(json.dumps(out))
`;
      // Asynchronously: the service answering it runs in this process.
      const run = await promisify(execFile)(
        PYTHON,
        ['-c', script, `${service.url}/sparql`, LABELS.replace('PUMP', pump), pump],
        { encoding: 'utf8', timeout: 60_000 },
      );
      const answer = JSON.parse(run.stdout) as Record<string, unknown>;
      for (const method of ['GET', 'POST']) {
        expect(answer[method]).toEqual([expect.stringMatching(/^Centrifugal pump/)]);
        expect(answer[`${method} ask`]).toBe(true);
        expect(answer[`${method} triples`]).toBeGreaterThan(3);
      }
    },
  );
});
