/**
 * The SPARQL dataset across a restart: an instance keeps its snapshot files
 * and their change-log position when it stops, and the next start on the same
 * database loads them and replays what changed meanwhile, to the same
 * triples a build from the database gives (docs/sparql.md, "Kept between runs").
 */
import { existsSync, mkdtempSync, readFileSync, rmSync, truncateSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Parser } from 'n3';
import { isomorphic } from 'rdf-isomorphic';
import { afterAll, describe, expect, it } from 'vitest';
import { CHANGE_RETENTION_MS, logCovers } from '../../src/refdata/replicas/change-log.js';
import { DATABASE_KINDS } from '../harness.js';
import {
  anotherInstance,
  approve,
  create,
  createLibrary,
  refdataForTests,
  startRefdata,
  uniqueName,
} from './helpers.js';

type Instance = Awaited<ReturnType<typeof anotherInstance>>;

const directories: string[] = [];
afterAll(() => {
  for (const directory of directories) rmSync(directory, { recursive: true, force: true });
});

/** A directory of snapshot files for one instance at a time, as `DATA_DIR` gives one. */
function snapshotDirectory(): string {
  const made = mkdtempSync(join(tmpdir(), 'chrd-kept-'));
  directories.push(made);
  return made;
}

async function sparql(instance: Instance, query: string, accept: string) {
  return instance.inject({
    method: 'GET',
    url: `/sparql?query=${encodeURIComponent(query)}`,
    headers: { accept },
  });
}

/** Asks until the dataset answers (a start answers 503 until it is loaded or built). */
async function ask(instance: Instance, query: string): Promise<boolean> {
  for (;;) {
    const answer = await sparql(instance, query, 'application/sparql-results+json');
    if (answer.statusCode === 200) return answer.json().boolean as boolean;
    expect(answer.statusCode, answer.body).toBe(503);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** Every triple of the published view, in whatever graph: what two instances must agree on. */
async function everything(instance: Instance) {
  const answer = await sparql(
    instance,
    'CONSTRUCT { ?s ?p ?o } WHERE { GRAPH ?g { ?s ?p ?o } }',
    'application/n-triples',
  );
  expect(answer.statusCode, answer.body).toBe(200);
  return new Parser({ format: 'N-Triples' }).parse(answer.body);
}

function said(lines: string[], message: string): boolean {
  return lines.some((line) => line.includes(message));
}

describe.each(DATABASE_KINDS)('the SPARQL dataset across a restart, on %s', (kind) => {
  const service = refdataForTests(kind);

  async function approvedClass(ontology: string, name: string) {
    const made = await create(service, '/rdl/terms/subclass', {
      name,
      ontology,
      subClassOf: ['http://x.example/E'],
    });
    await approve(service, made.iri);
    return made.iri;
  }

  it('loads what it kept at its last run, and the changes made while it was stopped', async () => {
    const directory = snapshotDirectory();
    const env = { REFDATA_SPARQL_SNAPSHOT_DIR: directory };
    const ontology = await createLibrary(service);
    await approve(service, ontology);
    const before = await approvedClass(ontology, uniqueName('Kept pump'));

    const firstLog: string[] = [];
    const first = await anotherInstance(service, env, (line) => firstLog.push(line));
    expect(await ask(first, `ASK { <${before}> ?p ?o }`)).toBe(true);
    expect(said(firstLog, 'sparql dataset: built')).toBe(true);
    await first.close();
    // Its files stay, named with the position they hold.
    const manifest = JSON.parse(readFileSync(join(directory, 'manifest.json'), 'utf8'));
    expect(manifest.position).toBeGreaterThan(0);
    for (const view of ['published', 'working'])
      expect(existsSync(join(directory, manifest.views[view].file))).toBe(true);

    // While it is stopped, another instance writes: a class approved, and a Draft.
    const during = await approvedClass(ontology, uniqueName('Written while stopped'));
    const draft = await create(service, '/rdl/terms/subclass', {
      name: uniqueName('Draft while stopped'),
      ontology,
      subClassOf: ['http://x.example/E'],
    });

    const secondLog: string[] = [];
    const second = await anotherInstance(service, env, (line) => secondLog.push(line));
    try {
      expect(await ask(second, `ASK { <${during}> ?p ?o }`)).toBe(true);
      expect(await ask(second, `ASK { <${before}> ?p ?o }`)).toBe(true);
      expect(said(secondLog, 'sparql dataset: loaded what it kept at its last run')).toBe(true);
      expect(said(secondLog, 'sparql dataset: built')).toBe(false);
      // The working view (filled after the published one, its queries waiting meanwhile)
      // holds the Draft, for a reader who asks for it.
      const working = await second.inject({
        method: 'GET',
        url: `/sparql?view=working&query=${encodeURIComponent(`ASK { <${draft.iri}> ?p ?o }`)}`,
        headers: {
          accept: 'application/sparql-results+json',
          authorization: `Bearer ${await service.token(['Reader'], 'monitor')}`,
        },
      });
      expect(working.statusCode, working.body).toBe(200);
      expect(working.json().boolean).toBe(true);
      expect(await ask(second, `ASK { <${draft.iri}> ?p ?o }`)).toBe(false);
      // The same triples as an instance that built its dataset from the database.
      const built = await anotherInstance(service, {
        REFDATA_SPARQL_SNAPSHOT_DIR: snapshotDirectory(),
      });
      try {
        await ask(built, 'ASK {}');
        expect(isomorphic(await everything(second), await everything(built))).toBe(true);
      } finally {
        await built.close();
      }
      // A change after the load reaches it, and what it keeps next.
      const after = await approvedClass(ontology, uniqueName('Written after'));
      await expect.poll(() => ask(second, `ASK { <${after}> ?p ?o }`)).toBe(true);
    } finally {
      await second.close();
    }
    const third = await anotherInstance(service, env);
    try {
      const kept = JSON.parse(readFileSync(join(directory, 'manifest.json'), 'utf8'));
      expect(kept.position).toBeGreaterThan(manifest.position);
      expect(await ask(third, 'ASK { ?s ?p ?o }')).toBe(true);
    } finally {
      await third.close();
    }
  }, 60_000);

  it('asks the change log whether it still reaches back to a kept position', async () => {
    await createLibrary(service);
    const highest = Number(
      (
        await service.db
          .selectFrom('search_changes')
          .select((eb) => eb.fn.max('seq').as('seq'))
          .executeTakeFirstOrThrow()
      ).seq,
    );
    const longAgo = Date.now() - 2 * CHANGE_RETENTION_MS;
    // Kept recently: whatever the log holds, nothing after it can have been pruned.
    expect(await logCovers(service.db, 0, Date.now())).toBe(true);
    // Kept past the last change this database ever numbered (a database restored from an
    // older backup): never, however recent.
    expect(await logCovers(service.db, highest + 5, Date.now())).toBe(false);
    // Kept long ago: the log must still hold the changes after it.
    expect(await logCovers(service.db, highest - 1, longAgo)).toBe(true);
    // Pruned empty (an hour with nothing written): a position at the last number ever
    // handed out has missed nothing; one before it has.
    await service.db.deleteFrom('search_changes').execute();
    expect(await logCovers(service.db, highest, longAgo)).toBe(true);
    expect(await logCovers(service.db, highest - 1, longAgo)).toBe(false);
  });

  it('builds anew from files cut short, or from another database', async () => {
    const directory = snapshotDirectory();
    const env = { REFDATA_SPARQL_SNAPSHOT_DIR: directory };
    const ontology = await createLibrary(service);
    await approve(service, ontology);
    const pump = await approvedClass(ontology, uniqueName('Pump'));
    const first = await anotherInstance(service, env);
    await ask(first, 'ASK {}');
    await first.close();

    // A file shorter than its manifest says (cut, or a disk that lost it): built anew, whole.
    const manifest = JSON.parse(readFileSync(join(directory, 'manifest.json'), 'utf8'));
    truncateSync(join(directory, manifest.views.published.file), 10);
    const log: string[] = [];
    const again = await anotherInstance(service, env, (line) => log.push(line));
    try {
      expect(await ask(again, `ASK { <${pump}> ?p ?o }`)).toBe(true);
      expect(said(log, 'sparql dataset: built')).toBe(true);
      expect(said(log, 'loaded what it kept')).toBe(false);
    } finally {
      await again.close();
    }

    // Another database (a fresh one) with the same directory: nothing of the first is served.
    const elsewhere = await startRefdata(kind);
    try {
      const elsewhereLog: string[] = [];
      const instance = await anotherInstance(elsewhere, env, (line) => elsewhereLog.push(line));
      try {
        expect(await ask(instance, `ASK { <${pump}> ?p ?o }`)).toBe(false);
        expect(said(elsewhereLog, 'sparql dataset: built')).toBe(true);
      } finally {
        await instance.close();
      }
    } finally {
      await elsewhere.close();
    }
  }, 60_000);
});
