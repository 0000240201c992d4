/**
 * A view's snapshot file: records read back as written, in order, a record
 * still being written read as the end, and the directories of instances that
 * were killed removed by the next on the same host; the saved dataset that
 * names them for the next start.
 */
import {
  appendFileSync,
  closeSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  readdirSync,
  readFileSync,
  readSync,
  rmSync,
  statSync,
  truncateSync,
  writeFileSync,
} from 'node:fs';
import { appendFile } from 'node:fs/promises';
import { hostname, tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { SavedDataset, type SnapshotState } from '../../src/refdata/sparql/saved-dataset.js';
import {
  readSnapshotRecord,
  removeStaleSnapshots,
  SnapshotFile,
  snapshotDirectory,
} from '../../src/refdata/sparql/snapshot-file.js';

const roots: string[] = [];
function root(): string {
  const made = mkdtempSync(join(tmpdir(), 'chrd-snapshot-'));
  roots.push(made);
  return made;
}
afterEach(() => {
  for (const made of roots.splice(0)) rmSync(made, { recursive: true, force: true });
});

function readAll(path: string) {
  const file = openSync(path, 'r');
  try {
    const records = [];
    let position = 0;
    for (;;) {
      const record = readSnapshotRecord(file, position, readSync);
      if (!record) return records;
      records.push({ iris: record.iris, nquads: record.nquads });
      position = record.next;
    }
  } finally {
    closeSync(file);
  }
}

describe('a snapshot file', () => {
  it('gives back its records in order, blank nodes and all text as written', async () => {
    const path = join(snapshotDirectory(root(), 'a'), 'published.nq');
    const snapshot = new SnapshotFile(path);
    const build =
      '<http://a> <http://p> _:b0 <http://g> .\n_:b0 <http://q> "Pumpe \\u00e9"@de <http://g> .\n';
    const change = '<http://a> <http://p> "tab\\there, line\\nbreak" <http://g> .\n';
    snapshot.append([], build);
    snapshot.append(['http://a', 'http://b'], change);
    snapshot.append(['http://c'], '');
    // Nothing to say: no record.
    snapshot.append([], '');
    await snapshot.flushed();
    expect(readAll(path)).toEqual([
      { iris: [], nquads: build },
      { iris: ['http://a', 'http://b'], nquads: change },
      { iris: ['http://c'], nquads: '' },
    ]);
    expect(snapshot.changeBytes).toBeGreaterThan(change.length);
    expect(snapshot.bytes).toBeGreaterThan(snapshot.changeBytes + build.length);
    // A record cut short (still being written) ends the reading there.
    await appendFile(path, '["http://d"]\t100\n<http://d> <http://p>');
    expect(readAll(path)).toHaveLength(3);
    await snapshot.close();
    expect(existsSync(path)).toBe(false);
  });

  it('reads a record whose header is longer than the first read', async () => {
    const path = join(root(), 'working.nq');
    const snapshot = new SnapshotFile(path);
    const iris = Array.from({ length: 3000 }, (_, n) => `http://example.org/resource/${n}`);
    snapshot.append(iris, '<http://a> <http://p> <http://o> <http://g> .\n');
    await snapshot.flushed();
    expect(readAll(path)).toEqual([
      { iris, nquads: '<http://a> <http://p> <http://o> <http://g> .\n' },
    ]);
  });

  it("removes the directories of this host's processes that no longer run, and no other", async () => {
    const snapshots = root();
    const mine = snapshotDirectory(snapshots, 'mine');
    // A process id no process has (beyond Linux's pid_max).
    const dead = join(snapshots, `${hostname()}-4194999-gone`);
    const elsewhere = join(snapshots, 'another-host-1-theirs');
    for (const directory of [mine, dead, elsewhere]) mkdirSync(directory, { recursive: true });
    await removeStaleSnapshots(snapshots);
    expect([existsSync(mine), existsSync(dead), existsSync(elsewhere)]).toEqual([
      true,
      false,
      true,
    ]);
    // A root that does not exist yet is no error.
    await removeStaleSnapshots(join(snapshots, 'not-there'));
  });
});

/** This process's threads at `niceness`, as Linux tells them. */
function threadsAtNiceness(niceness: number): number {
  return readdirSync('/proc/self/task').filter((task) => {
    const stat = readFileSync(`/proc/self/task/${task}/stat`, 'utf8');
    // Fields after the command's closing parenthesis; the 19th field (niceness) is the 17th of them.
    return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[16]) === niceness;
  }).length;
}

type Copies = import('../../src/refdata/sparql/store-thread.js').StoreThread;

/**
 * The published view's copies in threads, its snapshot in a new directory,
 * or, with `resume`, the file a copy before it wrote.
 */
async function publishedCopies(
  copies: number,
  options: {
    onLeftOut?: (iris: string[]) => void;
    onFailure?: (error: Error) => void;
    resume?: SnapshotState;
  } = {},
): Promise<Copies> {
  const { StoreThread } = await import('../../src/refdata/sparql/store-thread.js');
  const { resume } = options;
  return new StoreThread(
    ['published'],
    {
      copies,
      places: {
        published: resume ? { path: resume.path, resume } : { path: join(root(), 'published.nq') },
        working: { path: join(root(), 'working.nq') },
      },
      waitMilliseconds: 10_000,
      onLeftOut: (_view, iris) => options.onLeftOut?.(iris),
    },
    options.onFailure ?? (() => undefined),
  );
}

/** A query's SPARQL JSON results from a copy of the published view; a refusal is thrown. */
async function answerOf(
  thread: Copies,
  text: string,
): Promise<{ boolean?: boolean; results?: { bindings: Record<string, { value: string }>[] } }> {
  const outcome = await thread.query(
    'published',
    { text, maxRows: 100, format: 'application/sparql-results+json', dataset: undefined },
    20,
  ).answer;
  if (!outcome.ok) throw new Error(JSON.stringify(outcome.refusal));
  return JSON.parse(outcome.body);
}

describe("a view's copies", () => {
  it('keep count of their quads through changes without walking the store each time', async () => {
    const { RESOURCE_MARK } = await import('../../src/refdata/sparql/engine-calls.js');
    const thread = await publishedCopies(1);
    const resource = (iri: string, labels: number) =>
      `${RESOURCE_MARK}${iri}\n${Array.from(
        { length: labels },
        (_, n) => `<${iri}> <http://p> "label ${n}" <http://g> .\n`,
      ).join(
        '',
      )}<${iri}> <http://q> _:${iri.slice(-1)} <http://g> .\n_:${iri.slice(-1)} <http://r> "held" <http://g> .\n`;
    const counted = async () =>
      Number(
        (await answerOf(thread, 'SELECT (COUNT(*) AS ?n) WHERE { GRAPH ?g { ?s ?p ?o } }')).results
          ?.bindings[0]?.n?.value,
      );
    try {
      await thread.load({
        published: resource('http://a', 3) + resource('http://b', 1),
        working: '',
      });
      expect(thread.size).toBe(await counted());
      // Replaced with fewer triples, its blank node too; another removed; one added.
      await thread.replace(['http://a', 'http://b'], {
        published: resource('http://a', 1) + resource('http://c', 2),
        working: '',
      });
      expect(await counted()).toBe(7);
      expect(thread.size).toBe(7);
    } finally {
      await thread.close();
    }
  });

  it.runIf(process.platform === 'linux')(
    'fill the first at full priority, then every copy gives way to requests',
    async () => {
      const failures: Error[] = [];
      const thread = await publishedCopies(2, { onFailure: (error) => failures.push(error) });
      try {
        // Linux gives each thread its own niceness: the copies' threads are this process's.
        const before = threadsAtNiceness(10);
        await thread.load({
          published: '<http://a> <http://p> "x" <http://g> .\n',
          working: '',
        });
        // The first copy loads the build alone, at the priority of requests.
        expect(threadsAtNiceness(10)).toBe(before);
        thread.fillOthers();
        await expect.poll(() => threadsAtNiceness(10)).toBe(before + 2);
        // The other copy, filled from the snapshot, answers as the first does.
        const answers = await Promise.all(
          [0, 1].map(
            async () => (await answerOf(thread, 'ASK { <http://a> <http://p> "x" }')).boolean,
          ),
        );
        expect(answers).toEqual([true, true]);
        expect(failures).toEqual([]);
      } finally {
        await thread.close();
      }
    },
  );

  it('load every resource they can read, leave out and name one they cannot, and refill alike', async () => {
    const { RESOURCE_MARK } = await import('../../src/refdata/sparql/engine-calls.js');
    const leftOut: string[][] = [];
    const failures: Error[] = [];
    const thread = await publishedCopies(2, {
      onLeftOut: (iris) => leftOut.push(iris),
      onFailure: (error) => failures.push(error),
    });
    const block = (iri: string, object: string) =>
      `${RESOURCE_MARK}${iri}\n<${iri}> <http://p> ${object} <http://g> .\n<${iri}> <http://q> _:b <http://g> .\n_:b <http://r> "held" <http://g> .\n`;
    const nquads = [
      block('http://a', '"Pumpe"@nb'),
      // A tag no reader takes, as data from before the rules holds it.
      block('http://bad', '"Pumpe"@nb NO!'),
      block('http://c', '<http://o>'),
      // An IRI with a space: refused by Oxigraph's checked reading (a lenient one would
      // take it, and could then never match it to remove it).
      block('http://spaced', '<http://o p>'),
    ].join('');
    const ask = (text: string) => answerOf(thread, text);
    try {
      await thread.replace([], { published: nquads, working: '' });
      expect(leftOut).toEqual([['http://bad', 'http://spaced']]);
      expect(
        (await ask('ASK { <http://a> <http://p> "Pumpe"@nb ; <http://q>/<http://r> "held" }'))
          .boolean,
      ).toBe(true);
      expect((await ask('ASK { <http://c> <http://p> <http://o> }')).boolean).toBe(true);
      expect((await ask('ASK { <http://bad> ?p ?o }')).boolean).toBe(false);
      // Each resource once, with its blank node: nothing of the first attempt is left twice.
      const counted = await ask('SELECT ?s WHERE { ?s <http://r> "held" }');
      expect(counted.results?.bindings).toHaveLength(2);
      // A copy stopped under a query is filled again from the snapshot, to the same effect.
      const asked = thread.query(
        'published',
        {
          text: 'ASK {}',
          maxRows: 1,
          format: 'application/sparql-results+json',
          dataset: undefined,
        },
        20,
      );
      await asked.started;
      asked.stop();
      await asked.answer.catch(() => undefined);
      for (let round = 0; round < 4; round += 1) {
        const answers = await Promise.all([
          ask('SELECT ?s WHERE { ?s <http://r> "held" }'),
          ask('SELECT ?s WHERE { ?s <http://r> "held" }'),
        ]);
        for (const answer of answers) expect(answer.results?.bindings).toHaveLength(2);
      }
      // A copy filled from the snapshot alone (as at the next start) leaves out what was
      // left out.
      await thread.flushed();
      const place = thread.places.published;
      if (!place) throw new Error('no snapshot of the published view');
      const again = await publishedCopies(1, {
        resume: place,
        onFailure: (error) => failures.push(error),
      });
      again.keepFiles = true;
      try {
        await again.restore();
        const asked = async (text: string) => (await answerOf(again, text)).boolean;
        expect(await asked('ASK { <http://spaced> ?p ?o }')).toBe(false);
        expect(await asked('ASK { <http://bad> ?p ?o }')).toBe(false);
        expect(await asked('ASK { <http://c> <http://p> <http://o> }')).toBe(true);
      } finally {
        await again.close();
      }
      expect(failures).toEqual([]);
    } finally {
      await thread.close();
    }
  });
});

describe('a saved dataset', () => {
  const expected = { fingerprint: 'code-1', database: 'db-1', views: ['published'] as const };

  async function savedWith(directory: string, nquads: string) {
    const saved = await SavedDataset.open(directory);
    const places = saved.newPlaces(['published']);
    const snapshot = new SnapshotFile(places.published.path);
    snapshot.append([], nquads);
    await snapshot.flushed();
    await saved.save({
      fingerprint: expected.fingerprint,
      database: expected.database,
      position: 42,
      views: { published: { path: snapshot.path, bytes: snapshot.bytes, changeBytes: 0 } },
    });
    await snapshot.close(true);
    return { saved, path: snapshot.path, bytes: snapshot.bytes };
  }

  it('belongs to one running instance at a time; another keeps a private directory it removes', async () => {
    const directory = root();
    const owner = await SavedDataset.open(directory);
    const other = await SavedDataset.open(directory);
    expect([owner.owned, other.owned]).toEqual([true, false]);
    expect(other.directory.startsWith(directory)).toBe(true);
    expect(other.directory).not.toBe(directory);
    expect(await other.save({ fingerprint: 'x', database: 'y', position: 1, views: {} })).toBe(
      false,
    );
    await other.close();
    expect(existsSync(other.directory)).toBe(false);
    await owner.close();
    // Let go: the next takes it. An owner that was killed is taken over too.
    const next = await SavedDataset.open(directory);
    expect(next.owned).toBe(true);
    writeFileSync(
      join(directory, 'owner.json'),
      JSON.stringify({ host: hostname(), pid: 4194999 }),
    );
    expect((await SavedDataset.open(directory)).owned).toBe(true);
    // Another host's owner is never taken over: nobody here can tell whether it runs.
    writeFileSync(join(directory, 'owner.json'), JSON.stringify({ host: 'elsewhere', pid: 1 }));
    expect((await SavedDataset.open(directory)).owned).toBe(false);
  });

  it('is resumed only by the same code and database, whole, cut back to its position', async () => {
    const directory = root();
    const build = '<http://a> <http://p> "x" <http://g> .\n';
    const { saved, path, bytes } = await savedWith(directory, build);
    await saved.close();
    // What was appended after the position (a change the log still has) is cut away on resume.
    appendFileSync(path, '["http://a"]\t0\n');
    const again = await SavedDataset.open(directory);
    const found = await again.resumable(expected);
    expect(found?.position).toBe(42);
    expect(found?.places.published).toEqual({ path, resume: { bytes, changeBytes: 0 } });
    const resumed = new SnapshotFile(path, found?.places.published.resume);
    await resumed.flushed();
    expect(statSync(path).size).toBe(bytes);
    expect(readAll(path)).toEqual([{ iris: [], nquads: build }]);
    await resumed.close(true);
    expect(await again.resumable({ ...expected, fingerprint: 'code-2' })).toBeUndefined();
    expect(await again.resumable({ ...expected, database: 'db-2' })).toBeUndefined();
    expect(await again.resumable({ ...expected, views: ['published', 'working'] })).toBeUndefined();
    // A file shorter than the manifest says (cut, or lost) is not resumed.
    truncateSync(path, bytes - 1);
    expect(await again.resumable(expected)).toBeUndefined();
  });

  it('removes the files a new save no longer names, and at start the files nobody names', async () => {
    const directory = root();
    const { saved, path } = await savedWith(directory, '<http://a> <http://p> "x" <http://g> .\n');
    const places = saved.newPlaces(['published']);
    writeFileSync(places.published.path, '');
    await saved.save({
      ...expected,
      position: 50,
      views: { published: { path: places.published.path, bytes: 0, changeBytes: 0 } },
    });
    const manifest = JSON.parse(readFileSync(join(directory, 'manifest.json'), 'utf8'));
    expect([existsSync(path), manifest.views.published.file]).toEqual([
      false,
      basename(places.published.path),
    ]);
    await saved.close();
    // A build killed before it finished left a file of its own.
    const orphan = join(directory, 'published-deadbeef.nq');
    writeFileSync(orphan, 'half');
    await SavedDataset.open(directory);
    expect([existsSync(orphan), existsSync(places.published.path)]).toEqual([false, true]);
  });
});
