/**
 * The anchor the PostgreSQL figures are read against: a bare Fastify server
 * with a bare `pg` pool, no service code, answering each benchmarked route by
 * running a given list of statements (the ones the service sent, captured off
 * the wire, or the fewest that could answer the route), each prepared once per
 * connection, and returning the last statement's first row as JSON. Run in its own process, as the service is:
 *
 *   node --import tsx bench/pg-anchor-server.ts PLAN.json
 *
 * with DATABASE_URL, ANCHOR_PORT, ANCHOR_SCHEMA and ANCHOR_POOL_MAX in the
 * environment. The plan is JSON of `AnchorPlan`.
 */
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { verify } from '@node-rs/argon2';
import Fastify, { type FastifyRequest } from 'fastify';
import pg from 'pg';

/** Where one parameter of a statement comes from, on each request. */
export type ValueSource =
  | { constant: string | null }
  /** SHA-256 (hex) of the request's secret: how the service stores tokens. */
  | { secretHash: true }
  /** A column of an earlier statement's first row (by its place in the list). */
  | { from: [number, string]; fallback: string | null }
  /** A new random SHA-256-sized hex value (a new token's hash). */
  | { freshHash: true }
  /** Now, in epoch milliseconds, plus an offset. */
  | { now: number }
  /**
   * Text with markers: `⟦uN⟧` is the request's N-th new UUID (the
   * same N, the same UUID), `⟦bNAME⟧` the request body's field NAME, and
   * `⟦lNAME⟧` that field in lower case (a normalized name).
   */
  | { template: string };

export interface AnchorStatement {
  sql: string;
  values: ValueSource[];
}

export interface AnchorRoute {
  method: 'GET' | 'PUT' | 'POST';
  path: string;
  /** Where the request's secret is: the bearer token, or a form or JSON field. */
  secret: 'bearer' | { field: string } | 'none';
  statements: AnchorStatement[];
  /**
   * After this many statements, verify the request's `password` field against
   * the `password_hash` column of the statement before (argon2), as a password
   * grant does between its reads and its write.
   */
  verifyPasswordAfter?: number;
}

export interface AnchorPlan {
  routes: AnchorRoute[];
}

const TRANSACTION_START = /^\s*begin\b/i;
const TRANSACTION_END = /^\s*(commit|rollback)\b/i;

function secretOf(request: FastifyRequest, route: AnchorRoute): string {
  if (route.secret === 'none') return '';
  if (route.secret === 'bearer') {
    return (request.headers.authorization ?? '').replace(/^bearer\s+/i, '');
  }
  const body = (request.body ?? {}) as Record<string, unknown>;
  return String(body[route.secret.field] ?? '');
}

/** One request's values for templates: its body, and the UUIDs it makes, by number. */
interface RequestValues {
  body: Record<string, unknown>;
  uuids: string[];
}

function filled(template: string, request: RequestValues): string {
  return template.replace(/⟦([ubl])([^⟧]+)⟧/g, (_, kind: string, name: string) => {
    const field = String(request.body[name] ?? '');
    if (kind === 'b') return JSON.stringify(field).slice(1, -1);
    if (kind === 'l') return JSON.stringify(field.toLowerCase()).slice(1, -1);
    const index = Number(name);
    request.uuids[index] ??= randomUUID();
    return request.uuids[index];
  });
}

function parameterValue(
  source: ValueSource,
  secret: string,
  rows: (Record<string, unknown> | undefined)[],
  request: RequestValues,
): unknown {
  if ('constant' in source) return source.constant;
  if ('template' in source) return filled(source.template, request);
  if ('secretHash' in source) return createHash('sha256').update(secret).digest('hex');
  if ('from' in source) {
    const value = rows[source.from[0]]?.[source.from[1]];
    return value === undefined ? source.fallback : value;
  }
  if ('freshHash' in source) return randomBytes(32).toString('hex');
  return Date.now() + source.now;
}

async function answer(
  pool: pg.Pool,
  route: AnchorRoute,
  request: FastifyRequest,
): Promise<Record<string, unknown>> {
  const secret = secretOf(request, route);
  const rows: (Record<string, unknown> | undefined)[] = [];
  const values = { body: (request.body ?? {}) as Record<string, unknown>, uuids: [] };
  // Statements between BEGIN and COMMIT share one connection; others take any.
  let transaction: pg.PoolClient | undefined;
  try {
    return await runStatements(pool, route, request, secret, rows, values, (client) => {
      transaction = client;
    });
  } catch (error) {
    // A failed statement leaves its transaction open: end it, or the pool runs dry.
    if (transaction) {
      await transaction.query('rollback').catch(() => {});
      transaction.release();
    }
    throw error;
  }
}

async function runStatements(
  pool: pg.Pool,
  route: AnchorRoute,
  request: FastifyRequest,
  secret: string,
  rows: (Record<string, unknown> | undefined)[],
  values: RequestValues,
  holding: (client: pg.PoolClient | undefined) => void,
): Promise<Record<string, unknown>> {
  let transaction: pg.PoolClient | undefined;
  for (const [index, statement] of route.statements.entries()) {
    if (index === route.verifyPasswordAfter) {
      const hash = rows[index - 1]?.password_hash;
      const password = String(((request.body ?? {}) as Record<string, unknown>).password ?? '');
      if (typeof hash !== 'string' || !(await verify(hash, password))) {
        throw new Error('The password did not verify.');
      }
    }
    if (TRANSACTION_START.test(statement.sql)) {
      transaction = await pool.connect();
      holding(transaction);
    }
    const parameters = statement.values.map((source) =>
      parameterValue(source, secret, rows, values),
    );
    // Prepared once per connection, by name, as the services' own statements are.
    const name = `${route.path}#${index}`;
    const result = await (transaction ?? pool).query({
      name,
      text: statement.sql,
      values: parameters,
    });
    rows.push(result.rows[0]);
    if (transaction && TRANSACTION_END.test(statement.sql)) {
      transaction.release();
      transaction = undefined;
      holding(undefined);
    }
  }
  return [...rows].reverse().find((row) => row !== undefined) ?? {};
}

const [planFile] = process.argv.slice(2);
if (!planFile) throw new Error('usage: pg-anchor-server.ts PLAN.json');
const plan = JSON.parse(readFileSync(planFile, 'utf8')) as AnchorPlan;
const pool = new pg.Pool({
  connectionString: process.env.DATABASE_URL,
  max: Number(process.env.ANCHOR_POOL_MAX ?? 10),
  options: `-c search_path=${process.env.ANCHOR_SCHEMA ?? 'public'}`,
});
const app = Fastify();
app.addContentTypeParser(
  'application/x-www-form-urlencoded',
  { parseAs: 'string' },
  (_request, body, done) => done(null, Object.fromEntries(new URLSearchParams(String(body)))),
);
app.get('/-/ready', async () => ({ ok: true }));
// The first failure of each route goes to stderr: an anchor that fails measures nothing.
const reported = new Set<string>();
app.setErrorHandler((error: Error, request, reply) => {
  if (!reported.has(request.url)) {
    reported.add(request.url);
    process.stderr.write(`anchor ${request.method} ${request.url}: ${error.message}\n`);
  }
  void reply.status(500).send({ error: error.message });
});
for (const route of plan.routes) {
  app.route({
    method: route.method,
    url: route.path,
    handler: (request) => answer(pool, route, request),
  });
}
await app.listen({ port: Number(process.env.ANCHOR_PORT), host: '127.0.0.1' });
