/**
 * The published view kept in a real Virtuoso by refdata processes started as
 * a user starts them: what the store holds converges on what the database
 * says is published, after either process is killed mid-way; the command
 * rewrites it from scratch; the store's own graphs and functions stay out of
 * reach. (The query tests run against Virtuoso in sparql.test.ts.)
 */
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { Parser } from 'n3';
import { isomorphic } from 'rdf-isomorphic';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadProgramConfig, runProgram } from '../../src/program.js';
import { loadOrCreateSigningKey } from '../../src/refdata/auth/signing-key.js';
import { mintToken } from '../../src/refdata/auth/tokens.js';
import { ExternalStore } from '../../src/refdata/sparql/external/store-client.js';
import { startedForTests } from '../harness.js';
import { approve as approveIn, create, createLibrary, startRefdata } from './helpers.js';
import { callProcess, type RefdataProcess, startRefdataProcess } from './processes.js';
import { withCanonicalDateTimes } from './rdf-readers.js';
import { startVirtuoso, virtuosoThere } from './virtuoso.js';

const RESULTS_JSON = 'application/sparql-results+json';
const IRI_BASE = 'https://rdl.example.org';

type Instance = RefdataProcess;

describe.skipIf(!virtuosoThere)('the published view in an external Virtuoso', () => {
  const virtuoso = startedForTests(startVirtuoso);
  const dataDir = mkdtempSync(join(tmpdir(), 'chrd-external-'));
  const children: ChildProcess[] = [];
  let env: Record<string, string> = {};
  let token = '';

  beforeAll(async () => {
    env = {
      DATA_DIR: dataDir,
      REFDATA_IRI_BASE: IRI_BASE,
      REFDATA_SPARQL_POLL_MS: '100',
      REFDATA_SPARQL_STORE_LEASE_MS: '3000',
      // One person writes and approves here: the store's sync is what is tested.
      REFDATA_FOUR_EYES: 'false',
      ...virtuoso.env,
    };
    const tokens = loadProgramConfig(env).settings.refdata.tokens;
    const key = await loadOrCreateSigningKey(tokens.signingKeyFile);
    token = await mintToken(key, tokens, {
      subject: 'alice',
      roles: ['Creator', 'Reviewer'],
      lifetimeSeconds: 3600,
    });
  });
  afterAll(() => {
    for (const child of children) child.kill('SIGKILL');
    rmSync(dataDir, { recursive: true, force: true });
  });

  /** Starts refdata as `npm start` would, on this data directory and store. */
  const start = (): Promise<Instance> => startRefdataProcess(env, children);

  const call = (instance: Instance, method: string, path: string, body?: unknown) =>
    callProcess(instance, token, method, path, body) as Promise<{ iri: string }>;

  async function approve(instance: Instance, iri: string) {
    const query = `iri=${encodeURIComponent(iri)}`;
    await call(instance, 'PUT', `/status/submit?${query}`);
    await call(instance, 'PUT', `/status/approve?${query}`, { justification: 'Agreed' });
  }

  let sequence = 0;
  async function approvedClass(instance: Instance, ontology: string) {
    sequence += 1;
    const made = await call(instance, 'POST', '/rdl/terms/subclass', {
      name: `Class ${sequence}`,
      description: 'A class kept in the store',
      changeJustification: 'Needed for tests',
      ontology,
      subClassOf: ['http://x.example/E'],
    });
    await approve(instance, made.iri);
    return made.iri;
  }

  async function sparql(instance: Instance, query: string, accept = RESULTS_JSON) {
    const response = await fetch(`${instance.url}/sparql`, {
      method: 'POST',
      headers: { accept, 'content-type': 'application/sparql-query' },
      body: query,
    });
    return { status: response.status, body: await response.text() };
  }

  /** Whether the store's graph of `library` is exactly the library's published export. */
  async function inStep(instance: Instance, library: string): Promise<boolean> {
    const held = await sparql(
      instance,
      `CONSTRUCT { ?s ?p ?o } WHERE { GRAPH <${library}> { ?s ?p ?o } }`,
      'application/n-triples',
    );
    if (held.status !== 200) return false;
    const exported = await fetch(
      `${instance.url}${new URL(library).pathname}?detailLevel=3&view=published`,
      { headers: { accept: 'application/n-triples', authorization: `Bearer ${token}` } },
    );
    // Virtuoso keeps a time in its canonical form (`…:07Z` for `…:07.000Z`).
    const parse = (text: string) =>
      withCanonicalDateTimes(new Parser({ format: 'N-Triples' }).parse(text));
    const expected = parse(await exported.text());
    const quads = parse(held.body);
    return quads.length === expected.length && isomorphic(quads, expected);
  }

  let first: Instance;
  let library = '';

  it('converges after the refdata process keeping it is killed mid-way', async () => {
    first = await start();
    library = (
      await call(first, 'POST', '/ontologies/domains', {
        name: 'Library kept in Virtuoso',
        description: 'For tests',
        changeJustification: 'Needed for tests',
      })
    ).iri;
    await approve(first, library);
    for (let n = 0; n < 60; n += 1) await approvedClass(first, library);
    // Killed as a crash would: whatever it had not yet sent, it never sends.
    first.child.kill('SIGKILL');
    const second = await start();
    first = second;
    await expect.poll(() => inStep(second, library), { timeout: 30_000, interval: 250 }).toBe(true);
    // It went on from the position kept in the database, not from scratch.
    expect(second.output()).not.toContain('resynchronising from scratch');
  }, 120_000);

  it('converges after the store is killed mid-way, sending again what failed', async () => {
    for (let n = 0; n < 20; n += 1) await approvedClass(first, library);
    virtuoso.kill();
    // Written while the store is away: the turns fail, the position stays.
    for (let n = 0; n < 20; n += 1) await approvedClass(first, library);
    await expect
      .poll(() => first.output(), { timeout: 10_000, interval: 100 })
      .toContain('sparql store: a turn failed');
    const away = await sparql(first, 'ASK { ?s ?p ?o }');
    expect(away.status).toBe(503);
    expect(JSON.parse(away.body).type).toMatch(/\/problems\/sparql-unavailable$/);
    await virtuoso.restart();
    await expect.poll(() => inStep(first, library), { timeout: 30_000, interval: 250 }).toBe(true);
  }, 120_000);

  it('is rewritten from scratch when the command asks', async () => {
    // The store loses a library's graph behind refdata's back.
    const settings = loadProgramConfig(env).settings.refdata.sparql.store;
    if (!settings) throw new Error('the store is configured');
    const client = new ExternalStore(settings);
    await client.update(`DROP SILENT GRAPH <${library}>`);
    expect(await inStep(first, library)).toBe(false);
    const stdout = new PassThrough();
    let said = '';
    stdout.on('data', (chunk: Buffer) => {
      said += chunk.toString();
    });
    const status = await runProgram(['refdata-sparql-store-resync'], {
      env,
      stdout,
      stderr: new PassThrough(),
    });
    expect(status).toBe(0);
    expect(said).toContain('rewrite it from scratch');
    await expect.poll(() => inStep(first, library), { timeout: 30_000, interval: 250 }).toBe(true);
    expect(first.output()).toContain('resynchronising from scratch');
  }, 60_000);

  it('stops waiting for the store at the time limit, and says so', async () => {
    const quick = await startRefdata('sqlite', {
      ...virtuoso.env,
      REFDATA_IRI_BASE: IRI_BASE,
      REFDATA_SPARQL_TIMEOUT_MS: '500',
    });
    try {
      // A library of its own, of some hundreds of triples.
      const own = await createLibrary(quick);
      await approveIn(quick, own);
      for (let n = 0; n < 40; n += 1) {
        const made = await create(quick, '/rdl/terms/subclass', {
          name: `Timed ${n}`,
          ontology: own,
          subClassOf: ['http://x.example/E'],
        });
        await approveIn(quick, made.iri);
      }
      // Every triple of the library against every other, three times over: far past 500 ms.
      const runaway = 'SELECT (COUNT(*) AS ?n) WHERE { ?a ?b ?c . ?d ?e ?f . ?g ?h ?i }';
      const started = Date.now();
      const answer = await quick.call('GET', `/sparql?query=${encodeURIComponent(runaway)}`, {
        roles: [],
        headers: { accept: RESULTS_JSON },
      });
      expect(answer.statusCode, answer.body).toBe(503);
      expect(answer.json().type, answer.body).toMatch(/\/problems\/sparql-timeout$/);
      expect(Date.now() - started).toBeLessThan(10_000);
      // The next query is answered.
      const next = await quick.call('GET', `/sparql?query=${encodeURIComponent('ASK {}')}`, {
        roles: [],
        headers: { accept: RESULTS_JSON },
      });
      expect(next.statusCode).toBe(200);
    } finally {
      await quick.close();
    }
  }, 60_000);

  it("keeps the store's own graphs and functions out of reach", async () => {
    // Virtuoso's own graphs (virtrdf and the rest) are in no query's dataset.
    const own = await sparql(
      first,
      'SELECT (COUNT(*) AS ?n) WHERE { GRAPH ?g { ?s ?p ?o } FILTER(!STRSTARTS(STR(?g), "https://rdl.example.org/")) }',
    );
    expect(own.status, own.body).toBe(200);
    expect(JSON.parse(own.body).results.bindings[0].n.value).toBe('0');
    const virtrdf = await sparql(
      first,
      'ASK { ?s a <http://www.openlinksw.com/schemas/virtrdf#QuadMapFormat> }',
    );
    expect(JSON.parse(virtrdf.body).boolean).toBe(false);
    // Its built-in functions are refused before the store sees them.
    const builtIn = await sparql(
      first,
      'PREFIX bif: <bif:> SELECT (bif:file_to_string("/etc/passwd") AS ?x) WHERE {}',
    );
    expect(builtIn.status).toBe(400);
    expect(JSON.parse(builtIn.body).type).toMatch(/\/problems\/sparql-query-refused$/);
    // Anywhere in the query: as a predicate, Virtuoso's free-text search.
    const magic = await sparql(
      first,
      'PREFIX bif: <bif:> SELECT ?s WHERE { ?s ?p ?o . ?o bif:contains "x" }',
    );
    expect(magic.status).toBe(400);
    // FROM naming a graph of the store's own is taken as an empty graph, as the embedded
    // engine has it: it is sent as the protocol's graphs, never as the store's FROM.
    const from = await sparql(
      first,
      'SELECT (COUNT(*) AS ?n) FROM <http://www.openlinksw.com/schemas/virtrdf#> WHERE { ?s ?p ?o }',
    );
    expect(from.status, from.body).toBe(200);
    expect(JSON.parse(from.body).results.bindings[0].n.value).toBe('0');
    // Beside the protocol's own graphs, the protocol's win (SPARQL 1.1 Protocol §2.1.4).
    const fromBeside = await fetch(
      `${first.url}/sparql?query=${encodeURIComponent('ASK FROM <http://www.openlinksw.com/schemas/virtrdf#> WHERE { ?s ?p ?o }')}&default-graph-uri=${encodeURIComponent(library)}`,
      { headers: { accept: RESULTS_JSON } },
    );
    expect(fromBeside.status).toBe(200);
    expect(((await fromBeside.json()) as { boolean: boolean }).boolean).toBe(true);
    const named = await fetch(
      `${first.url}/sparql?query=${encodeURIComponent('SELECT (COUNT(*) AS ?n) WHERE { ?s ?p ?o }')}&default-graph-uri=${encodeURIComponent('http://www.openlinksw.com/schemas/virtrdf#')}`,
      { headers: { accept: RESULTS_JSON } },
    );
    expect(named.status).toBe(200);
    expect(
      ((await named.json()) as { results: { bindings: { n: { value: string } }[] } }).results
        .bindings[0]?.n.value,
    ).toBe('0');
    // Casts to XML Schema's types are SPARQL's own, and allowed.
    const cast = await sparql(
      first,
      'SELECT (<http://www.w3.org/2001/XMLSchema#integer>("7") AS ?x) WHERE {}',
    );
    expect(cast.status, cast.body).toBe(200);
  });
});
