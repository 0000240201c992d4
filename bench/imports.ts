/**
 * Bulk import, measured on the built program: the whole CFIHOS v2.0 Core set
 * (8,109 resources: classes, properties, picklists with their values, units
 * and dimensions) imported by one job (`POST /imports`, valid-only), timed
 * from the upload to the job's end, and imported again (everything
 * unchanged). Anchor, in the same run on a fresh database of the same kind:
 * the same resources created one request at a time through the API (each
 * family's write route, in the order their references need, one client).
 *
 *   npm run bench:imports -- [--databases sqlite,postgres] [--postgres-url URL] [--skip-build]
 */
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import type { FamilyKey } from '../src/refdata/families/family.js';
import { FAMILIES } from '../src/refdata/families/registry.js';
import { cfihosItems } from '../src/refdata/imports/cfihos-mapping.js';
import { identify } from '../src/refdata/imports/cfihos-tables.js';
import { ordered } from '../src/refdata/imports/plan.js';
import { readUploadedFile } from '../src/refdata/imports/sources.js';
import type { DatabaseKind } from './codehost-server.js';
import { commonOptions, databaseKinds } from './options.js';
import { startRefdataBenchServer } from './refdata-server.js';

const { values } = parseArgs({ options: { ...commonOptions } });
const databases = databaseKinds(values.databases);
if (!values['skip-build']) execFileSync('npm', ['run', '-s', 'build'], { stdio: 'inherit' });

const CFIHOS = join(import.meta.dirname, '../datasets/cfihos-v2.0-core');
const files = readdirSync(CFIHOS)
  .filter((name) => name.endsWith('.csv'))
  .map((name) => ({ name, bytes: readFileSync(join(CFIHOS, name)) }));
const ROUTES = new Map<FamilyKey, string>(FAMILIES.map((family) => [family.key, family.route]));

async function newLibrary(url: string, token: string): Promise<string> {
  const response = await fetch(`${url}/ontologies/domains`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify({
      changeJustification: 'Bench',
      name: 'CFIHOS core',
      description: 'CFIHOS v2.0 Core',
    }),
  });
  return ((await response.json()) as { iri: string }).iri;
}

/** One import job of the CFIHOS files, from the upload to its end: seconds and counts. */
async function importJob(url: string, token: string, library: string) {
  const form = new FormData();
  form.append('library', library);
  form.append('mode', 'valid-only');
  for (const file of files) form.append('file', new Blob([file.bytes]), file.name);
  const started = performance.now();
  const response = await fetch(`${url}/imports`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}` },
    body: form,
  });
  if (response.status !== 202)
    throw new Error(`POST /imports: ${response.status} ${await response.text()}`);
  const location = response.headers.get('location') as string;
  for (;;) {
    const job = (await (
      await fetch(location, { headers: { authorization: `Bearer ${token}` } })
    ).json()) as { state: string; counts: Record<string, number> | null; error: string | null };
    if (job.state === 'done' || job.state === 'failed') {
      if (job.state === 'failed') throw new Error(`import failed: ${job.error}`);
      return { seconds: (performance.now() - started) / 1000, counts: job.counts ?? {} };
    }
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** The IRIs a body names, replaced by those the API minted for them. */
function remapped(value: unknown, minted: ReadonlyMap<string, string>): unknown {
  if (typeof value === 'string') return minted.get(value) ?? value;
  if (Array.isArray(value)) return value.map((item) => remapped(item, minted));
  if (value !== null && typeof value === 'object')
    return Object.fromEntries(
      Object.entries(value).map(([key, inner]) => [key, remapped(inner, minted)]),
    );
  return value;
}

/** The same resources, each created by one request through the API: seconds and resources made. */
async function oneAtATime(url: string, token: string, library: string) {
  const tables = [];
  for (const file of files) tables.push(...(await readUploadedFile(file)).tables.map(identify));
  const { items } = cfihosItems(tables, {
    iriBase: 'urn:bench',
    library,
    storedClass: () => undefined,
  });
  const minted = new Map<string, string>();
  let made = 0;
  const started = performance.now();
  for (const item of ordered(items)) {
    if (item.problems.length > 0) continue;
    const body: Record<string, unknown> = { changeJustification: 'Bench', ...item.body };
    for (const part of item.parts) {
      if (part.problems.length > 0 || part.duplicateOf) continue;
      if (part.names !== undefined && !minted.has(part.names)) continue;
      const value =
        part.iri === undefined ? part.value : { ...(part.value as object), id: undefined };
      body[part.field] = [...((body[part.field] as unknown[]) ?? []), value];
    }
    const sent = remapped(body, minted) as Record<string, unknown>;
    const response = await fetch(`${url}${ROUTES.get(item.family)}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify(sent),
    });
    if (response.status !== 201) continue;
    const created = (await response.json()) as { iri: string; picklistValues?: unknown[] };
    minted.set(item.iri, created.iri);
    made += 1 + (created.picklistValues?.length ?? 0);
  }
  return { seconds: (performance.now() - started) / 1000, made };
}

async function measure(kind: DatabaseKind) {
  const importing = await startRefdataBenchServer({
    kind,
    postgresAdminUrl: values['postgres-url'],
  });
  let first: Awaited<ReturnType<typeof importJob>>;
  let again: Awaited<ReturnType<typeof importJob>>;
  try {
    const library = await newLibrary(importing.url, importing.token);
    first = await importJob(importing.url, importing.token, library);
    again = await importJob(importing.url, importing.token, library);
  } finally {
    await importing.stop();
  }
  const single = await startRefdataBenchServer({ kind, postgresAdminUrl: values['postgres-url'] });
  let anchor: Awaited<ReturnType<typeof oneAtATime>>;
  try {
    anchor = await oneAtATime(single.url, single.token, await newLibrary(single.url, single.token));
  } finally {
    await single.stop();
  }
  const created = first.counts.created ?? 0;
  const rate = (count: number, seconds: number) => Math.round(count / seconds).toLocaleString('en');
  const line = (what: string, seconds: number, count: number, note: string) =>
    `  ${what.padEnd(26)} ${seconds.toFixed(1).padStart(6)} s  ${rate(count, seconds).padStart(7)} resources/s  ${note}`;
  process.stdout.write(
    `${[
      '',
      kind,
      line('import job, whole set', first.seconds, created, JSON.stringify(first.counts)),
      line(
        'import job, again',
        again.seconds,
        again.counts.unchanged ?? 0,
        JSON.stringify(again.counts),
      ),
      line('one request per resource', anchor.seconds, anchor.made, `(${anchor.made} made)`),
      `  ratio: ${(created / first.seconds / (anchor.made / anchor.seconds)).toFixed(1)} times the one-at-a-time rate`,
    ].join('\n')}\n`,
  );
}

for (const kind of databases) await measure(kind);
