import { createHash, randomUUID } from 'node:crypto';
import { mkdir, open, readdir, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { View } from '../lifecycle/views.js';
import { isRunning, removeStaleSnapshots, snapshotDirectory } from './snapshot-file.js';

/** Bumped when the files' layout changes: a manifest of another layout is not read. */
const LAYOUT = 1;
const MANIFEST = 'manifest.json';
const OWNER = 'owner.json';

/** One view's file as a manifest names it: how much of it the position covers. */
export interface SavedView {
  file: string;
  bytes: number;
  /** Of `bytes`, those of changes after the build (what decides a new build). */
  changeBytes: number;
}

/** What a saved dataset is, and which changes it holds: every one up to `position`. */
export interface Manifest {
  layout: number;
  /** The code and settings that wrote it (`datasetFingerprint`): another build writes other triples. */
  fingerprint: string;
  /** The database it was read from (`database_identity`). */
  database: string;
  /** Every change in `search_changes` up to this sequence number is in the files. */
  position: number;
  savedAt: number;
  views: Partial<Record<View, SavedView>>;
}

/** A view's snapshot file as written so far: where, its bytes, and those of changes among them. */
export interface SnapshotState {
  path: string;
  bytes: number;
  changeBytes: number;
}

/** Where a view's snapshot is: its path, and where to go on from when it is resumed. */
export interface SnapshotPlace {
  path: string;
  resume?: Omit<SnapshotState, 'path'>;
}

/**
 * The directory an instance keeps its SPARQL dataset's snapshot files in, so
 * that the next start loads them and reads the change log from their position
 * rather than build the dataset from the database (docs/sparql.md).
 *
 * One instance owns the directory (`owner.json`, taken atomically; an owner of
 * this host that no longer runs is taken over): its files outlive it, named by
 * `manifest.json`. Another instance on the same directory at once (a second
 * process on one PostgreSQL database, or a test's) keeps its files in a private
 * directory of its own, removed when it closes, as every instance did before.
 */
export class SavedDataset {
  private constructor(
    /** Where this instance's snapshot files go. */
    readonly directory: string,
    /** Whether the files outlive the instance (it owns `root`). */
    readonly owned: boolean,
    private manifest: Manifest | undefined,
  ) {}

  static async open(root: string): Promise<SavedDataset> {
    await mkdir(root, { recursive: true });
    await removeStaleSnapshots(root);
    if (await takeOwnership(root)) {
      const manifest = await readManifest(root);
      // A build that did not finish (the process was killed) left files nobody names.
      const named = new Set(Object.values(manifest?.views ?? {}).map((view) => view.file));
      for (const name of await readdir(root))
        if (name.endsWith('.nq') && !named.has(name)) await rm(join(root, name), { force: true });
      return new SavedDataset(root, true, manifest);
    }
    const directory = snapshotDirectory(root, randomUUID());
    await mkdir(directory, { recursive: true });
    return new SavedDataset(directory, false, undefined);
  }

  /** New files for a build of `views`, named apart from every other build's. */
  newPlaces(views: readonly View[]): Record<View, SnapshotPlace> {
    const build = randomUUID().slice(0, 8);
    return Object.fromEntries(
      views.map((view) => [view, { path: join(this.directory, `${view}-${build}.nq`) }]),
    ) as Record<View, SnapshotPlace>;
  }

  /**
   * The saved dataset a start may load, if it is of the same code, settings
   * and database and whole on disk; otherwise undefined. Whether the change
   * log still reaches back to its position is for the caller to ask.
   */
  async resumable(expected: {
    fingerprint: string;
    database: string;
    views: readonly View[];
  }): Promise<
    { position: number; savedAt: number; places: Record<View, SnapshotPlace> } | undefined
  > {
    const manifest = this.manifest;
    if (!this.owned || !manifest) return undefined;
    if (manifest.fingerprint !== expected.fingerprint || manifest.database !== expected.database)
      return undefined;
    const places: Partial<Record<View, SnapshotPlace>> = {};
    for (const view of expected.views) {
      const saved = manifest.views[view];
      if (!saved) return undefined;
      const path = join(this.directory, saved.file);
      const size = await stat(path).then(
        (found) => found.size,
        () => -1,
      );
      if (size < saved.bytes) return undefined;
      places[view] = { path, resume: { bytes: saved.bytes, changeBytes: saved.changeBytes } };
    }
    return {
      position: manifest.position,
      savedAt: manifest.savedAt,
      places: places as Record<View, SnapshotPlace>,
    };
  }

  /**
   * Names these files as the saved dataset, holding every change up to
   * `position` (written whole, then renamed: a crash leaves the old manifest
   * or the new), and removes the files the manifest named before and no
   * longer does. An instance that does not own the directory keeps nothing.
   */
  async save(
    saved: Omit<Manifest, 'layout' | 'savedAt' | 'views'> & {
      views: Partial<Record<View, SnapshotState>>;
    },
    now = Date.now(),
  ): Promise<boolean> {
    if (!this.owned) return false;
    const views: Partial<Record<View, SavedView>> = {};
    for (const [view, place] of Object.entries(saved.views) as [View, SnapshotState][])
      views[view] = {
        file: place.path.slice(this.directory.length + 1),
        bytes: place.bytes,
        changeBytes: place.changeBytes,
      };
    const manifest: Manifest = { ...saved, layout: LAYOUT, savedAt: now, views };
    const written = join(this.directory, `${MANIFEST}.${process.pid}.tmp`);
    await writeFile(written, JSON.stringify(manifest));
    await rename(written, join(this.directory, MANIFEST));
    const kept = new Set(Object.values(views).map((view) => view.file));
    for (const view of Object.values(this.manifest?.views ?? {}))
      if (!kept.has(view.file)) await rm(join(this.directory, view.file), { force: true });
    this.manifest = manifest;
    return true;
  }

  /** Lets the directory go: the owner's files stay for the next start; a private directory is removed. */
  async close(): Promise<void> {
    if (this.owned) await rm(join(this.directory, OWNER), { force: true });
    else await rm(this.directory, { recursive: true, force: true });
  }
}

/** Takes `root` for this process, unless a process that runs holds it. */
async function takeOwnership(root: string): Promise<boolean> {
  const path = join(root, OWNER);
  const me = JSON.stringify({ host: hostname(), pid: process.pid });
  for (let attempt = 0; attempt < 2; attempt += 1) {
    try {
      const file = await open(path, 'wx');
      await file.writeFile(me);
      await file.close();
      return true;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
    const holder = await readFile(path, 'utf8')
      .then((text) => JSON.parse(text) as { host?: unknown; pid?: unknown })
      .catch(() => undefined);
    // Another host's process cannot be asked whether it runs: its directory stays its own.
    if (holder && holder.host !== hostname()) return false;
    const pid = Number(holder?.pid);
    if (holder && Number.isSafeInteger(pid) && (pid === process.pid || isRunning(pid)))
      return false;
    // Its owner was killed (or wrote half a file): taken over.
    await rm(path, { force: true });
  }
  return false;
}

async function readManifest(root: string): Promise<Manifest | undefined> {
  const text = await readFile(join(root, MANIFEST), 'utf8').catch(() => undefined);
  if (text === undefined) return undefined;
  try {
    const manifest = JSON.parse(text) as Manifest;
    return manifest.layout === LAYOUT &&
      typeof manifest.position === 'number' &&
      typeof manifest.savedAt === 'number' &&
      typeof manifest.views === 'object'
      ? manifest
      : undefined;
  } catch {
    return undefined;
  }
}

/**
 * What decides the triples a saved dataset holds besides the database: the
 * service's code (every module of it, so that any other build, an upgrade or a
 * developer's change, builds afresh rather than serve what older code wrote)
 * and the settings given here.
 */
export async function datasetFingerprint(settings: Record<string, unknown>): Promise<string> {
  const hash = createHash('sha256');
  hash.update(JSON.stringify(settings));
  const root = fileURLToPath(new URL('..', import.meta.url));
  const files = (await readdir(root, { recursive: true }))
    .filter((name) => /\.(js|ts)$/.test(name))
    .sort();
  for (const name of files) {
    hash.update(name);
    hash.update(await readFile(join(root, name)));
  }
  return hash.digest('hex');
}
