/**
 * refdata dereferencing on its own: one class as JSON, Turtle and JSON-LD next
 * to the same server's bare route, in rounds of short runs that take turns
 * (see `refdata-dereference.ts`). Prints Markdown for docs/performance.md.
 * `npm run bench -- --services refdata` runs the same measurement among the rest.
 *
 *   npm run bench:dereference -- [--databases sqlite,postgres] [--rounds 7]
 *                                [--seconds 2] [--connections 10]
 *                                [--postgres-url URL] [--skip-build]
 */
import { execFileSync } from 'node:child_process';
import { cpus } from 'node:os';
import { parseArgs } from 'node:util';
import { commonOptions, databaseKinds, positive } from './options.js';
import {
  type DereferenceFigures,
  dereferenceTable,
  measureDereference,
} from './refdata-dereference.js';
import { startRefdataBenchServer } from './refdata-server.js';

const { values } = parseArgs({
  options: {
    ...commonOptions,
    rounds: { type: 'string', default: '7' },
    seconds: { type: 'string', default: '2' },
    connections: { type: 'string', default: '10' },
  },
});
const databases = databaseKinds(values.databases);
const rounds = positive('rounds', values.rounds);
const secondsPerRun = positive('seconds', values.seconds);
const connections = positive('connections', values.connections);
const out = (text: string) => process.stdout.write(`${text}\n`);

if (!values['skip-build']) execFileSync('npm', ['run', '-s', 'build'], { stdio: 'inherit' });
out(
  `Node ${process.version}, ${cpus().length} cores; ${connections} connections; ${rounds} rounds of ${secondsPerRun} s per route; load generator on the same machine.`,
);
out('');
const rows: (DereferenceFigures & { database: string })[] = [];
for (const kind of databases) {
  process.stderr.write(`${kind}: the bare route and one class in three formats, in turns\n`);
  const server = await startRefdataBenchServer({ kind, postgresAdminUrl: values['postgres-url'] });
  try {
    for (const figures of await measureDereference(server, { connections, rounds, secondsPerRun }))
      rows.push({ ...figures, database: kind });
  } finally {
    await server.stop();
  }
}
for (const line of dereferenceTable(rows)) out(line);
if (rows.some((row) => row.failures > 0)) {
  process.stderr.write('Some requests failed; the figures above are not valid.\n');
  process.exitCode = 1;
}
