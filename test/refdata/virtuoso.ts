/**
 * A real Virtuoso (Debian's virtuoso-opensource-7) for the external-store
 * tests: each test file starts its own on loopback, with its own data
 * directory and ports, so that one test may kill it and start it again while
 * the others run. `.ci/run` installs the package and sets REQUIRE_VIRTUOSO, so
 * that CI fails rather than skips when it cannot start.
 */
import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';

export const VIRTUOSO_PATH = process.env.VIRTUOSO_PATH ?? '/usr/bin/virtuoso-t';
const ISQL_PATH = process.env.VIRTUOSO_ISQL_PATH ?? '/usr/bin/isql-vt';

/** Whether the tests can run: Virtuoso is installed, or CI says it must be. */
export const virtuosoThere = existsSync(VIRTUOSO_PATH) || process.env.REQUIRE_VIRTUOSO === '1';

/** The account refdata writes with: granted SPARQL_UPDATE, as docs/sparql.md says to. */
const WRITER = { user: 'refdata', password: 'refdata-writes' };

export interface Virtuoso {
  /** The HTTP server's address (`http://127.0.0.1:<port>`). */
  httpUrl: string;
  /** REFDATA_SPARQL_STORE_* for an instance writing to it. */
  env: Record<string, string>;
  /** Runs SQL (and `SPARQL …` statements) through isql as dba; answers what it printed. */
  isql(script: string): Promise<string>;
  /** Ends the process at once, as a crash would (its data directory stays). */
  kill(): void;
  /** Starts it again on the same data directory and ports. */
  restart(): Promise<void>;
  /** Stops it and removes its data directory. */
  close(): Promise<void>;
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() =>
        typeof address === 'object' && address
          ? resolve(address.port)
          : reject(new Error('no port')),
      );
    });
  });
}

/** `buffers`: Virtuoso's NumberOfBuffers, 8 KiB each (the tests' 20,000; a benchmark's more). */
export async function startVirtuoso(options: { buffers?: number } = {}): Promise<Virtuoso> {
  const buffers = options.buffers ?? 20_000;
  const directory = mkdtempSync(join(tmpdir(), 'chrd-virtuoso-'));
  const sqlPort = await freePort();
  const httpPort = await freePort();
  const ini = join(directory, 'virtuoso.ini');
  writeFileSync(
    ini,
    `[Database]
DatabaseFile = ${directory}/virtuoso.db
ErrorLogFile = ${directory}/virtuoso.log
LockFile = ${directory}/virtuoso.lck
TransactionFile = ${directory}/virtuoso.trx
xa_persistent_file = ${directory}/virtuoso.pxa
MaxCheckpointRemap = 2000
Striping = 0
TempStorage = TempDatabase
[TempDatabase]
DatabaseFile = ${directory}/virtuoso-temp.db
TransactionFile = ${directory}/virtuoso-temp.trx
MaxCheckpointRemap = 2000
Striping = 0
[Parameters]
ServerPort = 127.0.0.1:${sqlPort}
DisableUnixSocket = 1
CheckpointInterval = 60
CaseMode = 2
DirsAllowed = .
MaxSortedTopRows = 1000000
NumberOfBuffers = ${buffers}
MaxDirtyBuffers = ${Math.round(buffers * 0.75)}
[HTTPServer]
ServerPort = 127.0.0.1:${httpPort}
ServerRoot = ${directory}
ServerThreads = 10
Charset = UTF-8
[SPARQL]
ResultSetMaxRows = 1000000
MaxQueryExecutionTime = ${options.buffers ? 600 : 10}
MaxQueryCostEstimationTime = 400
`,
  );
  const httpUrl = `http://127.0.0.1:${httpPort}`;
  let process_: ChildProcess | undefined;

  const start = async () => {
    const child = spawn(VIRTUOSO_PATH, ['-f', '-c', ini], { cwd: directory, stdio: 'ignore' });
    process_ = child;
    const deadline = Date.now() + 60_000;
    for (;;) {
      if (child.exitCode !== null)
        throw new Error(`Virtuoso exited (${child.exitCode}); see ${directory}/virtuoso.log`);
      try {
        const answer = await fetch(`${httpUrl}/sparql?query=${encodeURIComponent('ASK {}')}`);
        if (answer.ok) return;
      } catch {
        // Not listening yet.
      }
      if (Date.now() > deadline) throw new Error('Virtuoso did not answer within 60 s');
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
  };
  await start();
  const script = join(directory, 'setup.sql');
  writeFileSync(
    script,
    `DB.DBA.USER_CREATE ('${WRITER.user}', '${WRITER.password}');
GRANT SPARQL_UPDATE TO "${WRITER.user}";
DB.DBA.RDF_DEFAULT_USER_PERMS_SET ('nobody', 1);
DB.DBA.RDF_DEFAULT_USER_PERMS_SET ('${WRITER.user}', 3);
`,
  );
  await promisify(execFile)(ISQL_PATH, [`127.0.0.1:${sqlPort}`, 'dba', 'dba', script]);

  const stopped = (child: ChildProcess | undefined) =>
    new Promise<void>((resolve) => {
      if (!child || child.exitCode !== null || child.signalCode !== null) return resolve();
      child.once('exit', () => resolve());
    });
  return {
    httpUrl,
    env: {
      REFDATA_SPARQL_STORE_QUERY_URL: `${httpUrl}/sparql`,
      REFDATA_SPARQL_STORE_UPDATE_URL: `${httpUrl}/sparql-auth`,
      REFDATA_SPARQL_STORE_GRAPH_STORE_URL: `${httpUrl}/sparql-graph-crud-auth`,
      REFDATA_SPARQL_STORE_USER: WRITER.user,
      REFDATA_SPARQL_STORE_PASSWORD: WRITER.password,
      REFDATA_SPARQL_STORE_AUTH: 'digest',
    },
    async isql(sql: string) {
      const file = join(directory, `script-${Date.now()}.sql`);
      writeFileSync(file, sql);
      const { stdout } = await promisify(execFile)(ISQL_PATH, [
        `127.0.0.1:${sqlPort}`,
        'dba',
        'dba',
        file,
      ]);
      return stdout;
    },
    kill() {
      process_?.kill('SIGKILL');
    },
    async restart() {
      await stopped(process_);
      await start();
    },
    async close() {
      const child = process_;
      child?.kill('SIGTERM');
      await stopped(child);
      rmSync(directory, { recursive: true, force: true });
    },
  };
}
