/**
 * A refdata server for the load benchmarks: the built program in its own process
 * on a fresh SQLite file or PostgreSQL database, a Creator token from its own key,
 * and the few resources the mixed creates refer to.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadProgramConfig } from '../src/program.js';
import type { Role } from '../src/refdata/auth/roles.js';
import { loadOrCreateSigningKey } from '../src/refdata/auth/signing-key.js';
import { mintToken } from '../src/refdata/auth/tokens.js';
import { freePort } from '../test/codehost/helpers.js';
import type { DatabaseKind } from './codehost-server.js';
import { createPostgresDatabase, startProgram } from './processes.js';

export interface RefdataBenchServer {
  url: string;
  pid: number;
  /** The database the server uses, for seeding in bulk. */
  env: Record<string, string>;
  token: string;
  /** IRIs the generated bodies refer to. */
  refs: {
    library: string;
    dimension: string;
    property: string;
    attribute: string;
    terminal: string;
    picklist: string;
    class: string;
  };
  /**
   * Stops the program and starts it anew on the same database, with `env`
   * added; resolves with the moment (`performance.now()`) the new process was
   * spawned, once it listens.
   */
  restart(env?: Record<string, string>): Promise<number>;
  stop(): Promise<void>;
}

export async function startRefdataBenchServer(options: {
  kind: DatabaseKind;
  postgresAdminUrl: string;
  /** Another build's `main.js` (an A/B run); the current build when unset. */
  program?: string;
  /** Settings beyond the defaults. */
  env?: Record<string, string>;
  /** The roles of the benchmark's token (Creator unless said). */
  roles?: Role[];
}): Promise<RefdataBenchServer> {
  const dataDir = mkdtempSync(join(tmpdir(), 'refdata-bench-'));
  const postgres =
    options.kind === 'postgres'
      ? await createPostgresDatabase(options.postgresAdminUrl, 'refdata')
      : undefined;
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const env: Record<string, string> = {
    DATA_DIR: dataDir,
    REFDATA_PORT: String(port),
    REFDATA_PUBLIC_URL: url,
    LOG_LEVEL: 'info',
    ...(postgres ? { DATABASE_URL: postgres.url } : {}),
    ...options.env,
  };
  let program = await startProgram('refdata', url, dataDir, env, options.program);
  const tokens = loadProgramConfig(env).settings.refdata.tokens;
  const key = await loadOrCreateSigningKey(tokens.signingKeyFile);
  const token = await mintToken(key, tokens, {
    subject: 'bench',
    roles: options.roles ?? ['Creator'],
    lifetimeSeconds: 3600,
  });

  const post = async (route: string, body: Record<string, unknown>): Promise<string> => {
    const response = await fetch(`${url}${route}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({
        changeJustification: 'Benchmark set-up',
        description: 'Set-up',
        ...body,
      }),
    });
    if (response.status !== 201)
      throw new Error(`${route}: ${response.status} ${await response.text()}`);
    return ((await response.json()) as { iri: string }).iri;
  };
  const library = await post('/ontologies/domains', { name: 'Bench library' });
  const dimension = await post('/cfihos/dimension', {
    name: 'Bench length',
    ontology: library,
    dimensionCode: 'L',
  });
  const property = await post('/general/property', {
    name: 'Bench width',
    ontology: library,
    types: ['number'],
    range: dimension,
  });
  const attribute = await post('/imf/attributetypes', {
    name: 'Bench temperature',
    ontology: library,
    predicate: 'http://x.example/t',
  });
  const terminal = await post('/imf/terminaltypes', {
    name: 'Bench terminal',
    ontology: library,
    aspect: 'http://ns.imfid.org/imf#productAspect',
    direction: 'input',
    referenceTerms: [],
    attributeReferences: [{ entityUri: attribute, minCardinality: 0, maxCardinality: 1 }],
  });
  const rdlClass = await post('/rdl/terms/subclass', {
    name: 'Bench pump',
    ontology: library,
    subClassOf: ['http://example.org/Equipment'],
    relatedTerms: [
      { relationType: 'closeMatch', targetLibrary: 'ISO 15926-4', targetIdentifier: 'R1' },
    ],
  });
  const picklist = await post('/cfihos/picklist', {
    name: 'Bench picklist',
    ontology: library,
    subClassOf: 'http://x.example/p',
  });

  const server: RefdataBenchServer = {
    url,
    pid: program.pid,
    env,
    token,
    refs: { library, dimension, property, attribute, terminal, picklist, class: rdlClass },
    async restart(extra = {}) {
      await program.stop();
      const spawned = performance.now();
      program = await startProgram('refdata', url, dataDir, { ...env, ...extra }, options.program);
      server.pid = program.pid;
      return spawned;
    },
    async stop() {
      await program.stop();
      await postgres?.drop();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
  return server;
}

const SVG =
  '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 96 96"><path d="M 10 48 L 86 48 M 48 10 L 48 86" stroke="#000" fill="none"/></svg>';

/** The n-th create of a mix over eleven families (all but standalone picklist values). */
export function mixedCreate(
  n: number,
  refs: RefdataBenchServer['refs'],
): { path: string; body: string } {
  const common = {
    changeJustification: 'Benchmark',
    description: `Resource number ${n}`,
    ontology: refs.library,
  };
  const name = `Bench ${n}`;
  const bodies: [string, Record<string, unknown>][] = [
    ['/rdl/terms/subclass', { ...common, name, subClassOf: ['http://x.example/c'] }],
    ['/general/property', { ...common, name, types: ['number'], range: refs.dimension }],
    [
      '/cfihos/entity',
      {
        ...common,
        name,
        entityType: 'equipment',
        propertyReferences: [{ propertyUri: refs.property, minCardinality: 0, maxCardinality: 1 }],
      },
    ],
    [
      '/cfihos/picklist',
      {
        ...common,
        name,
        subClassOf: 'http://x.example/p',
        picklistValues: [
          { name: 'A', description: 'a' },
          { name: 'B', description: 'b' },
          { name: 'C', description: 'c' },
        ],
      },
    ],
    [
      '/cfihos/unitofmeasure',
      { ...common, name, dimensionRef: refs.dimension, measurementSystem: 'SI', symbol: 'u' },
    ],
    ['/cfihos/dimension', { ...common, name, dimensionCode: 'X' }],
    [
      '/imf/attributetypes',
      {
        ...common,
        name,
        predicate: 'http://x.example/p',
        rangeQualifier: 'http://ns.imfid.org/imf#maximumQualifier',
      },
    ],
    [
      '/imf/terminaltypes',
      {
        ...common,
        name,
        aspect: 'http://ns.imfid.org/imf#productAspect',
        direction: 'output',
        referenceTerms: [],
        attributeReferences: [{ entityUri: refs.attribute, minCardinality: 1 }],
      },
    ],
    [
      '/imf/blocktypes',
      {
        ...common,
        name,
        aspect: 'http://ns.imfid.org/imf#functionAspect',
        referenceTerms: [],
        attributeReferences: [],
        terminalReferences: [{ entityUri: refs.terminal, minCardinality: 1, maxCardinality: 2 }],
        hasPartBlockReferences: [],
      },
    ],
    [
      '/esl/engineeringSymbols',
      {
        ...common,
        name,
        dcIdentifier: `BENCH${n}`,
        width: 96,
        height: 96,
        shape: SVG,
        centerOfRotation: { x: 48, y: 48 },
        connectionPoints: [{ id: 'a', x: 0, y: 48, direction: 180 }],
      },
    ],
    [
      '/ontologies/domains',
      { changeJustification: 'Benchmark', description: 'A library', name: `Bench library ${n}` },
    ],
  ];
  const [path, body] = bodies[n % bodies.length] as [string, Record<string, unknown>];
  return { path, body: JSON.stringify(body) };
}
