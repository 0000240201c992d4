import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { closeSync, mkdtempSync, openSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import pg from 'pg';
import { loadProgramConfig } from '../src/program.js';
import { freePort } from '../test/codehost/helpers.js';
import type { AnchorPlan } from './pg-anchor-server.js';

/** The built program; `BENCH_PROGRAM` points at another build, to compare two versions in turn. */
const PROGRAM = process.env.BENCH_PROGRAM ?? resolve(import.meta.dirname, '../dist/main.js');

/** A new, empty PostgreSQL database on the server that `adminUrl` reaches. */
export async function createPostgresDatabase(adminUrl: string, label: string) {
  const name = `${label}_bench_${randomBytes(4).toString('hex')}`;
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  await admin.query(`create database ${name}`);
  await admin.end();
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    async drop() {
      const client = new pg.Client({ connectionString: adminUrl });
      await client.connect();
      await client.query(`drop database if exists ${name} with (force)`);
      await client.end();
    },
  };
}

async function waitUntilReady(url: string, child: ChildProcess, service: string): Promise<void> {
  const deadline = Date.now() + 30_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`${service} exited with ${child.exitCode}`);
    try {
      const response = await fetch(`${url}/-/ready`);
      if (response.ok) return;
    } catch {
      // Not listening yet.
    }
    await new Promise((done) => setTimeout(done, 100));
  }
  throw new Error(`${service} did not become ready within 30 s`);
}

/**
 * The built program (what `npm start` runs) serving one service in its own
 * process, in `directory` so that no .env file of the project's is read.
 */
export function startProgram(
  service: 'codehost' | 'refdata',
  url: string,
  directory: string,
  env: Record<string, string>,
  /** Another build's `main.js`, to compare two versions in one run. */
  program = PROGRAM,
): Promise<{ pid: number; stop(): Promise<void> }> {
  return startProcess([program, 'start', service], url, directory, env, service);
}

/**
 * The bare Fastify and `pg` anchor (pg-anchor-server.ts) serving `plan` in its
 * own process, as the service runs, on the service's database and schema with
 * a pool as large as the service's.
 */
export async function startAnchorServer(
  plan: AnchorPlan,
  service: 'codehost' | 'refdata',
  databaseUrl: string,
): Promise<{ url: string; stop(): Promise<void> }> {
  const directory = mkdtempSync(join(tmpdir(), 'pg-anchor-'));
  const removeDirectory = () => rmSync(directory, { recursive: true, force: true });
  try {
    const planFile = join(directory, 'plan.json');
    writeFileSync(planFile, JSON.stringify(plan));
    const port = await freePort();
    const url = `http://127.0.0.1:${port}`;
    const database = loadProgramConfig({ DATABASE_URL: databaseUrl }).services[service]?.database;
    const server = resolve(import.meta.dirname, 'pg-anchor-server.ts');
    // From the project's root, where `tsx` resolves; the anchor reads no .env file.
    const root = resolve(import.meta.dirname, '..');
    const child = await startProcess(
      ['--import', 'tsx', server, planFile],
      url,
      root,
      {
        DATABASE_URL: databaseUrl,
        ANCHOR_PORT: String(port),
        ANCHOR_SCHEMA: service,
        ANCHOR_POOL_MAX: String(database?.kind === 'postgres' ? database.poolMax : 10),
      },
      'anchor',
    );
    return {
      url,
      async stop() {
        await child.stop();
        removeDirectory();
      },
    };
  } catch (error) {
    removeDirectory();
    throw error;
  }
}

async function startProcess(
  args: string[],
  url: string,
  directory: string,
  env: Record<string, string>,
  label: string,
): Promise<{ pid: number; stop(): Promise<void> }> {
  // BENCH_NODE_ARGS="--cpu-prof --cpu-prof-dir=DIR" profiles the servers under load.
  const nodeArgs = (process.env.BENCH_NODE_ARGS ?? '').split(' ').filter(Boolean);
  // The request log is part of the cost, so it is written, but to nowhere; or, with
  // BENCH_LOG_DIR, to a file per process there (to read what a start did, and when).
  const logDirectory = process.env.BENCH_LOG_DIR;
  const log = logDirectory
    ? openSync(join(logDirectory, `${label}-${Date.now()}.log`), 'a')
    : 'ignore';
  const child = spawn(process.execPath, [...nodeArgs, ...args], {
    cwd: directory,
    env: { PATH: process.env.PATH ?? '', ...env },
    stdio: ['ignore', log, 'inherit'],
  });
  if (typeof log === 'number') closeSync(log);
  try {
    await waitUntilReady(url, child, label);
  } catch (error) {
    child.kill('SIGKILL');
    throw error;
  }
  return {
    pid: child.pid as number,
    async stop() {
      const exited = new Promise((done) => child.once('exit', done));
      child.kill('SIGTERM');
      await exited;
    },
  };
}

/** The peak resident memory of a process so far, in MiB (Linux: VmHWM). */
export function peakMemoryMib(pid: number): Promise<number | undefined> {
  return statusMib(pid, 'VmHWM');
}

/** The resident memory of a process now, in MiB (Linux: VmRSS). */
export function residentMemoryMib(pid: number): Promise<number | undefined> {
  return statusMib(pid, 'VmRSS');
}

async function statusMib(pid: number, field: string): Promise<number | undefined> {
  try {
    const { readFile } = await import('node:fs/promises');
    const status = await readFile(`/proc/${pid}/status`, 'utf8');
    const kib = new RegExp(`${field}:\\s+(\\d+) kB`).exec(status)?.[1];
    return kib ? Number(kib) / 1024 : undefined;
  } catch {
    return undefined;
  }
}

/** CPU time a process has used so far (user and system), in microseconds (Linux: /proc/PID/stat). */
export async function cpuMicroseconds(pid: number): Promise<number | undefined> {
  try {
    const { readFile } = await import('node:fs/promises');
    const stat = await readFile(`/proc/${pid}/stat`, 'utf8');
    // The command name (field 2) may hold spaces; utime and stime are fields 14 and 15.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const ticks = Number(fields[11]) + Number(fields[12]);
    return (ticks / CLOCK_TICKS_PER_SECOND) * 1e6;
  } catch {
    return undefined;
  }
}

/**
 * Waits until a process has settled, using under 5 % of a core over half a
 * second: work a run left behind (a search index taking in what a run of
 * creates wrote) would otherwise share the cores with the next run. Gives up
 * after `limitMs`.
 */
export async function settled(pid: number, limitMs = 60_000): Promise<void> {
  const deadline = Date.now() + limitMs;
  let before = await cpuMicroseconds(pid);
  while (before !== undefined && Date.now() < deadline) {
    await new Promise((done) => setTimeout(done, 500));
    const now = await cpuMicroseconds(pid);
    if (now === undefined || now - before < 25_000) return;
    before = now;
  }
}

/** Linux reports CPU times in clock ticks of 1/100 s (`getconf CLK_TCK`) on every common platform. */
const CLOCK_TICKS_PER_SECOND = 100;
