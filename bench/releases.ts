/**
 * Releasing a large library, measured on the built program: N Approved classes
 * seeded into one library (straight into the database, as the export benchmark
 * does), then, in the same run on the same server:
 *
 * 1. the anchor: the library's level-3 export in Turtle (time to the last byte);
 * 2. `POST /releases` (the quality report, the snapshot, the four files);
 * 3. after M more classes, a second release, and the differences between the two.
 *
 * Each step's peak memory is the server process's VmHWM, reset before the step
 * (/proc/<pid>/clear_refs), next to its resident memory before it.
 *
 *   npm run bench:releases -- [--terms 100000] [--added 1000] [--databases sqlite,postgres]
 */
import { execFileSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { type SeedResource, seedResources } from './bulk.js';
import type { DatabaseKind } from './codehost-server.js';
import { commonOptions, databaseKinds, positive } from './options.js';
import { peakMemoryMib, residentMemoryMib, settled } from './processes.js';
import { waitForIndex } from './refdata-search.js';
import { type RefdataBenchServer, startRefdataBenchServer } from './refdata-server.js';

const { values } = parseArgs({
  options: {
    ...commonOptions,
    terms: { type: 'string', default: '100000' },
    added: { type: 'string', default: '1000' },
  },
});
const databases = databaseKinds(values.databases);
const terms = positive('terms', values.terms);
const added = positive('added', values.added);
if (!values['skip-build']) execFileSync('npm', ['run', '-s', 'build'], { stdio: 'inherit' });

function* approvedClasses(library: string, count: number, from: number): Generator<SeedResource> {
  for (let n = from; n < from + count; n += 1) {
    const name = `Released class ${n}`;
    yield {
      iri: `${library}/${randomUUID()}`,
      family: 'class',
      name,
      libraryKey: library,
      status: 'Approved',
      body: {
        name,
        description: `Class number ${n} of the release benchmark`,
        ontology: library,
        subClassOf: ['http://example.org/Equipment'],
      },
    };
  }
}

/** Lets the next VmHWM reading say the peak of what follows alone (Linux 4.0 and later). */
function resetPeak(pid: number): boolean {
  try {
    writeFileSync(`/proc/${pid}/clear_refs`, '5');
    return true;
  } catch {
    return false;
  }
}

interface Step {
  what: string;
  seconds: number;
  beforeMib: number | undefined;
  peakMib: number | undefined;
  note: string;
}

async function step(
  server: RefdataBenchServer,
  what: string,
  work: () => Promise<string>,
): Promise<Step> {
  const beforeMib = await residentMemoryMib(server.pid);
  const reset = resetPeak(server.pid);
  const started = performance.now();
  const { result: note, others } = await meanwhile(server, work);
  const seconds = (performance.now() - started) / 1000;
  const peakMib = await peakMemoryMib(server.pid);
  return {
    what,
    seconds,
    beforeMib,
    peakMib,
    note: `${reset ? note : `${note} (peak since start)`}; ${others}`,
  };
}

/**
 * What the step costs another client: the bare route (`/-/health`) asked one
 * request after another, 10 ms apart, while the step runs; its latencies'
 * median, 99th percentile and longest.
 */
async function meanwhile<T>(
  server: RefdataBenchServer,
  work: () => Promise<T>,
): Promise<{ result: T; others: string }> {
  let done = false;
  const latencies: number[] = [];
  const asking = (async () => {
    while (!done) {
      const started = performance.now();
      const response = await fetch(`${server.url}/-/health`);
      await response.arrayBuffer();
      latencies.push(performance.now() - started);
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
  })();
  let result: T;
  try {
    result = await work();
  } finally {
    done = true;
    await asking;
  }
  const sorted = [...latencies].sort((a, b) => a - b);
  const at = (fraction: number) =>
    (sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * fraction))] ?? 0).toFixed(1);
  return {
    result,
    others: `another client's /-/health: p50 ${at(0.5)} ms, p99 ${at(0.99)} ms, longest ${at(1)} ms (${sorted.length} asked)`,
  };
}

async function call(server: RefdataBenchServer, path: string, init: RequestInit = {}) {
  const response = await fetch(`${server.url}${path}`, {
    ...init,
    headers: { authorization: `Bearer ${server.token}`, ...(init.headers ?? {}) },
  });
  return response;
}

async function approveLibrary(server: RefdataBenchServer): Promise<void> {
  const query = `iri=${encodeURIComponent(server.refs.library)}`;
  for (const [path, body] of [
    [`/status/submit?${query}`, undefined],
    [`/status/approve?${query}`, { justification: 'Benchmark' }],
  ] as const) {
    const response = await call(server, path, {
      method: 'PUT',
      ...(body
        ? { headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) }
        : {}),
    });
    if (response.status !== 204)
      throw new Error(`${path}: ${response.status} ${await response.text()}`);
  }
}

async function release(server: RefdataBenchServer, version: string): Promise<string> {
  const response = await call(
    server,
    `/releases?library=${encodeURIComponent(server.refs.library)}`,
    {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ version, notes: `Benchmark release ${version}` }),
    },
  );
  if (response.status !== 201)
    throw new Error(`release: ${response.status} ${await response.text()}`);
  const json = (await response.json()) as { resources: number; files: { byteSize: number }[] };
  const megabytes = json.files.reduce((sum, file) => sum + file.byteSize, 0) / 1024 / 1024;
  return `${json.resources} resources, files ${megabytes.toFixed(0)} MiB`;
}

async function measure(kind: DatabaseKind): Promise<Step[]> {
  const server = await startRefdataBenchServer({
    kind,
    postgresAdminUrl: values['postgres-url'],
    roles: ['Creator', 'Reviewer'],
    // One benchmark token submits and approves the library: what is measured is releasing.
    env: { REFDATA_FOUR_EYES: 'false' },
  });
  try {
    await approveLibrary(server);
    await seedResources(server, approvedClasses(server.refs.library, terms, 0));
    // The instance takes the seeded terms into its search index and SPARQL dataset
    // through the change log; that is waited for (the index, then the process quiet:
    // the SPARQL copies), so each step is measured on its own.
    await waitForIndex(server, [server.refs.library], terms, { atLeast: true });
    await settled(server.pid, 600_000);
    const steps: Step[] = [];
    steps.push(
      await step(server, 'level-3 export, Turtle', async () => {
        const response = await call(
          server,
          `${new URL(server.refs.library).pathname}?detailLevel=3&view=published`,
          { headers: { accept: 'text/turtle' } },
        );
        let bytes = 0;
        for await (const chunk of response.body ?? []) bytes += (chunk as Uint8Array).byteLength;
        return `${(bytes / 1024 / 1024).toFixed(0)} MiB`;
      }),
    );
    steps.push(await step(server, 'release 1.0.0', () => release(server, '1.0.0')));
    await seedResources(server, approvedClasses(server.refs.library, added, terms));
    await waitForIndex(server, [server.refs.library], terms + added, { atLeast: true });
    await settled(server.pid, 600_000);
    steps.push(await step(server, 'release 1.1.0', () => release(server, '1.1.0')));
    steps.push(
      await step(server, 'changes 1.0.0 → 1.1.0', async () => {
        const response = await call(
          server,
          `/releases/changes?${new URLSearchParams({ library: server.refs.library, from: '1.0.0', to: '1.1.0' })}`,
        );
        const json = (await response.json()) as { counts: Record<string, number> };
        return JSON.stringify(json.counts);
      }),
    );
    return steps;
  } finally {
    await server.stop();
  }
}

for (const kind of databases) {
  const steps = await measure(kind);
  const mib = (value: number | undefined) =>
    value === undefined ? '?' : `${value.toFixed(0)} MiB`;
  process.stdout.write(
    `\n${kind}, ${terms.toLocaleString('en')} Approved classes\n${steps
      .map(
        (item) =>
          `  ${item.what.padEnd(24)} ${item.seconds.toFixed(1).padStart(6)} s  peak ${mib(item.peakMib).padStart(9)} (before ${mib(item.beforeMib)})  ${item.note}`,
      )
      .join('\n')}\n`,
  );
}
