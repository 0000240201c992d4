import { type LoadFigures, runLoad } from './load.js';
import type { AnchorPlan, AnchorStatement } from './pg-anchor-server.js';
import { captureRequest, printStatements, replayOf } from './pg-anchors.js';
import { startPgCapture } from './pg-capture.js';
import { settled, startAnchorServer } from './processes.js';
import type { RefdataBenchServer } from './refdata-server.js';

export type RefdataRouteKey = 'create' | 'dereference' | 'search';

interface RefdataRoute {
  key: RefdataRouteKey;
  name: string;
  method: 'GET' | 'POST';
  path: string;
  headers: Record<string, string>;
  /** Each request's body (creates need names of their own). */
  nextBody?: () => string;
  expectedStatus: number;
  /** The fewest statements, when fewer than the route's own; otherwise the own are the fewest. */
  fewest?: AnchorStatement[];
}

export interface AnchoredFigures extends LoadFigures {
  key: RefdataRouteKey;
  server: 'ours' | 'own statements' | 'fewest statements';
  database: string;
  statements?: number;
}

/** The query of the search row: two words, a prefix search over the generated corpus. */
const SEARCH_QUERY = 'q=centrifugal%20pump';

function routes(server: RefdataBenchServer): RefdataRoute[] {
  const bearer = { authorization: `Bearer ${server.token}` };
  let created = 0;
  return [
    {
      key: 'create',
      name: 'POST /cfihos/dimension (create a Draft)',
      method: 'POST',
      path: '/cfihos/dimension',
      headers: { ...bearer, 'content-type': 'application/json' },
      nextBody: () => {
        created += 1;
        return JSON.stringify({
          changeJustification: 'Benchmark',
          name: `Anchored ${created} ${Date.now()}`,
          description: 'One create at a time',
          ontology: server.refs.library,
          dimensionCode: 'S',
        });
      },
      expectedStatus: 201,
      fewest: fewestCreate(server.refs.library),
    },
    {
      key: 'dereference',
      name: 'GET one class (JSON)',
      method: 'GET',
      path: new URL(server.refs.class).pathname,
      headers: { ...bearer, accept: 'application/json' },
      expectedStatus: 200,
    },
    {
      key: 'search',
      name: `GET /search?${SEARCH_QUERY}`,
      method: 'GET',
      path: `/search?${SEARCH_QUERY}`,
      headers: bearer,
      expectedStatus: 200,
    },
  ];
}

/**
 * A create as one statement: the library checked, the resource, its first
 * revision and its change event inserted, each feeding the next.
 */
function fewestCreate(library: string): AnchorStatement[] {
  const now = { now: 0 } as const;
  return [
    {
      sql: `with library as (select iri from resources where iri = $1 and family = 'library'),
        resource as (
          insert into resources (language, iri, family, status, name, name_normalized, library_key,
            name_scope, parent_iri, replaces_iri, body, version, created_by, created_at, updated_by, updated_at)
          select 'en', $2, 'dimension', 'Draft', $3::text, lower($3::text), library.iri, '', null, null, $4, 1,
            'bench', $5::bigint, 'bench', $5::bigint from library
          returning id, iri),
        revision as (
          insert into revisions (resource_id, version, action, status, actor, justification, body, created_at)
          select id, 1, 'create', 'Draft', 'bench', 'Benchmark', $4, $5::bigint from resource
          returning id, resource_id)
        insert into change_events (revision_id, resource_id, iri, family, library_key, event, status,
          version, actor, at, created_at, fanned_out)
        select revision.id, resource.id, resource.iri, 'dimension', $1, 'create', 'Draft', 1, 'bench',
          $5::bigint, $5::bigint, 0
        from revision join resource on resource.id = revision.resource_id
        returning *`,
      values: [
        { constant: library },
        {
          template: `${library.replace(/\/ontology\/.*$/, '')}/cfihos/unitOfMeasureDimension/⟦u0⟧`,
        },
        { template: '⟦bname⟧' },
        {
          template:
            '{"name":"⟦bname⟧","description":"One create at a time","ontology":"⟦bontology⟧","dimensionCode":"S"}',
        },
        now,
      ],
    },
  ];
}

/** How many requests each capture sends; the statements most of them agree on are the route's. */
const CAPTURE_TRIES = 7;

/**
 * Captures each route's statements from the program restarted behind the
 * recording proxy, then restarts it on the database directly again.
 */
async function anchorPlan(
  server: RefdataBenchServer,
  list: RefdataRoute[],
  showStatements: boolean,
): Promise<{ plan: AnchorPlan; counts: Map<RefdataRouteKey, [number, number]> }> {
  const direct = server.env.DATABASE_URL as string;
  const capture = await startPgCapture(direct);
  await server.restart({ DATABASE_URL: capture.url });
  const plan: AnchorPlan = { routes: [] };
  const counts = new Map<RefdataRouteKey, [number, number]>();
  try {
    // The program's start-up work (search index catch-up, loops' first turns) settles first.
    await new Promise((done) => setTimeout(done, 2000));
    for (const route of list) {
      const { statements, body } = await captureRequest(capture, CAPTURE_TRIES, async () => {
        const body = route.nextBody?.();
        const response = await fetch(`${server.url}${route.path}`, {
          method: route.method,
          headers: route.headers,
          ...(body ? { body } : {}),
        });
        return { response, secret: '', ...(body ? { body } : {}) };
      });
      if (showStatements) printStatements(route.name, statements);
      const own = replayOf(statements, '', body);
      const fewest = route.fewest ?? own;
      counts.set(route.key, [own.length, fewest.length]);
      plan.routes.push({
        method: route.method,
        path: `/own/${route.key}`,
        secret: 'none',
        statements: own,
      });
      plan.routes.push({
        method: route.method,
        path: `/fewest/${route.key}`,
        secret: 'none',
        statements: fewest,
      });
    }
  } finally {
    await capture.close();
    await server.restart({ DATABASE_URL: direct });
  }
  return { plan, counts };
}

/**
 * Each route on this server and, on PostgreSQL, on both anchors, in turns, for
 * `seconds` each; creates are counted by their 201s.
 */
export async function measureAnchoredRefdata(
  kind: 'sqlite' | 'postgres',
  server: RefdataBenchServer,
  options: { connections: number; seconds: number; schema: string; showStatements?: boolean },
): Promise<AnchoredFigures[]> {
  const list = routes(server);
  const figures: AnchoredFigures[] = [];
  let anchor: { url: string; stop(): Promise<void> } | undefined;
  try {
    let counts = new Map<RefdataRouteKey, [number, number]>();
    if (kind === 'postgres') {
      const captured = await anchorPlan(server, list, options.showStatements ?? false);
      counts = captured.counts;
      anchor = await startAnchorServer(captured.plan, 'refdata', server.env.DATABASE_URL as string);
    }
    for (const route of list) {
      const targets: [AnchoredFigures['server'], string, string][] = [
        ['ours', server.url, route.path],
      ];
      if (anchor) {
        targets.push(['own statements', anchor.url, `/own/${route.key}`]);
        targets.push(['fewest statements', anchor.url, `/fewest/${route.key}`]);
      }
      for (const [by, base, path] of targets) {
        // The creates' rows reach this server's search index whoever wrote them.
        await settled(server.pid);
        process.stderr.write(
          `  ${kind}: ${route.name}${by === 'ours' ? '' : ` (anchor: ${by})`}\n`,
        );
        const result = await runLoad({
          name: route.name,
          url: `${base}${path}`,
          connections: options.connections,
          durationSeconds: options.seconds,
          method: route.method,
          headers: route.headers,
          // Anchors answer 200 whatever the route answers.
          expectedStatus: by === 'ours' ? route.expectedStatus : 200,
          ...(route.nextBody
            ? { nextRequest: () => ({ path, body: route.nextBody?.() ?? '' }) }
            : {}),
        });
        const count = counts.get(route.key);
        figures.push({
          ...result,
          key: route.key,
          server: by,
          database: kind,
          ...(count ? { statements: by === 'fewest statements' ? count[1] : count[0] } : {}),
        });
      }
    }
  } finally {
    await anchor?.stop();
  }
  return figures;
}

/** The table: each route on PostgreSQL beside its anchors, and beside SQLite in the same run. */
export function refdataAnchorTable(rows: AnchoredFigures[]): string[] {
  const find = (database: string, key: RefdataRouteKey, by: AnchoredFigures['server']) =>
    rows.find((row) => row.database === database && row.key === key && row.server === by);
  const percent = (part: number | undefined, whole: number | undefined) =>
    part === undefined || !whole ? 'n/a' : `${((part / whole) * 100).toFixed(0)} %`;
  const lines = [
    '| route | statements | PostgreSQL, requests/s | same statements, bare `pg` | ours of that | fewest statements | fewest, bare `pg` | ours of that | SQLite, requests/s | PostgreSQL of SQLite |',
    '|---|---|---|---|---|---|---|---|---|---|',
  ];
  for (const key of ['create', 'dereference', 'search'] as const) {
    const ours = find('postgres', key, 'ours');
    if (!ours) continue;
    const own = find('postgres', key, 'own statements');
    const fewest = find('postgres', key, 'fewest statements');
    const sqlite = find('sqlite', key, 'ours');
    lines.push(
      `| ${ours.name} | ${own?.statements ?? 'n/a'} | ${ours.perSecond.toFixed(0)} | ${own?.perSecond.toFixed(0) ?? 'n/a'} | ${percent(ours.perSecond, own?.perSecond)} | ${fewest?.statements ?? 'n/a'} | ${fewest?.perSecond.toFixed(0) ?? 'n/a'} | ${percent(ours.perSecond, fewest?.perSecond)} | ${sqlite?.perSecond.toFixed(0) ?? 'n/a'} | ${percent(ours.perSecond, sqlite?.perSecond)} |`,
    );
  }
  return lines;
}
