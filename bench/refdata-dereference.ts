/**
 * Dereferencing one class, next to the same server's bare route (`/-/health`,
 * no token, no database), in short runs that take turns.
 *
 * Why in turns: on a shared machine the speed available drifts over seconds, so
 * one long run per route compares routes measured at different moments (the
 * share of the bare route moved by ten points and more between runs). Each
 * round runs every route once, in an order that rotates from round to round;
 * a route's share is taken within its round, against the bare route of that
 * round, and the median over rounds is reported with its range. The server's
 * own CPU time per request is reported too: it does not depend on how much of
 * the machine the load generator got.
 */
import { runLoad } from './load.js';
import { cpuMicroseconds } from './processes.js';
import type { RefdataBenchServer } from './refdata-server.js';

export interface DereferenceFigures {
  name: string;
  /** Median over rounds. */
  perSecond: number;
  /** This route's requests/s over the bare route's in the same round: median, lowest, highest. */
  share: { median: number; low: number; high: number };
  /** The server's CPU time per answered request over all rounds, in µs. */
  serverCpuMicroseconds: number | undefined;
  latencyP50Ms: number;
  latencyP99Ms: number;
  failures: number;
}

export const DEREFERENCE_MEDIA_TYPES = ['application/json', 'text/turtle', 'application/ld+json'];

export async function measureDereference(
  server: RefdataBenchServer,
  options: { connections: number; rounds: number; secondsPerRun: number },
): Promise<DereferenceFigures[]> {
  const classPath = new URL(server.refs.class).pathname;
  const routes = [
    { name: 'GET /-/health (no database)', url: `${server.url}/-/health`, headers: {} },
    ...DEREFERENCE_MEDIA_TYPES.map((accept) => ({
      name: `GET one class as ${accept}`,
      url: `${server.url}${classPath}`,
      headers: { authorization: `Bearer ${server.token}`, accept },
    })),
  ];
  const load = (route: (typeof routes)[number], seconds: number) =>
    runLoad({
      ...route,
      connections: options.connections,
      durationSeconds: seconds,
      expectedStatus: 200,
    });
  // A second of each, not recorded, so that no route is measured while V8 still compiles it.
  for (const route of routes) await load(route, 1);

  const perRound = routes.map(() => [] as Awaited<ReturnType<typeof load>>[]);
  const cpu = routes.map(() => ({ microseconds: 0, requests: 0, known: true }));
  for (let round = 0; round < options.rounds; round += 1) {
    for (let step = 0; step < routes.length; step += 1) {
      const index = (round + step) % routes.length;
      const before = await cpuMicroseconds(server.pid);
      const figures = await load(routes[index] as (typeof routes)[number], options.secondsPerRun);
      const after = await cpuMicroseconds(server.pid);
      perRound[index]?.push(figures);
      const spent = cpu[index];
      if (!spent) continue;
      if (before === undefined || after === undefined) spent.known = false;
      else spent.microseconds += after - before;
      spent.requests += figures.requests;
    }
  }

  const bareRounds = perRound[0] ?? [];
  return routes.map((route, index) => {
    const rounds = perRound[index] ?? [];
    const shares = rounds.map(
      (figures, round) => figures.perSecond / (bareRounds[round]?.perSecond ?? Number.NaN),
    );
    const spent = cpu[index];
    return {
      name: route.name,
      perSecond: median(rounds.map((figures) => figures.perSecond)),
      share: { median: median(shares), low: Math.min(...shares), high: Math.max(...shares) },
      serverCpuMicroseconds:
        spent?.known && spent.requests > 0 ? spent.microseconds / spent.requests : undefined,
      latencyP50Ms: median(rounds.map((figures) => figures.latencyP50Ms)),
      latencyP99Ms: median(rounds.map((figures) => figures.latencyP99Ms)),
      failures: rounds.reduce((sum, figures) => sum + figures.failures, 0),
    };
  });
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1
    ? (sorted[middle] as number)
    : ((sorted[middle - 1] as number) + (sorted[middle] as number)) / 2;
}

/** The figures as a Markdown table, one row per database and route. */
export function dereferenceTable(rows: (DereferenceFigures & { database: string })[]): string[] {
  const percent = (value: number) => `${(value * 100).toFixed(0)} %`;
  return [
    '| database | request | requests/s (median) | of bare route: median (range) | server CPU per request | p50 | p99 | failures |',
    '|---|---|---|---|---|---|---|---|',
    ...rows.map(
      (row) =>
        `| ${row.database} | ${row.name} | ${row.perSecond.toFixed(0)} | ${percent(row.share.median)} (${percent(row.share.low)}–${percent(row.share.high)}) | ${row.serverCpuMicroseconds === undefined ? 'n/a' : `${row.serverCpuMicroseconds.toFixed(0)} µs`} | ${row.latencyP50Ms} ms | ${row.latencyP99Ms} ms | ${row.failures} |`,
    ),
  ];
}
