/**
 * A route's own statements as an anchor: captured off the wire (`pg-capture.ts`)
 * from an instance of the program, and turned into a replay that
 * `pg-anchor-server.ts` runs for each request with that request's own values.
 */
import { createHash } from 'node:crypto';
import type { AnchorStatement, ValueSource } from './pg-anchor-server.js';
import type { CapturedStatement, PgCapture } from './pg-capture.js';

const HEX_HASH = /^[0-9a-f]{64}$/;
const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g;
const DAY_MS = 86_400_000;
/** Body values shorter than this are left alone: they match too much by chance. */
const SHORTEST_BODY_VALUE = 5;

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

/**
 * One request's statements, taken from several tries: the list most of them
 * agree on, so that a background task's statements caught in one window (the
 * services' loops look every second or so) do not count as the route's.
 */
/** The statements a route sent, as `--show-statements` prints them. */
export function printStatements(routeName: string, statements: readonly CapturedStatement[]): void {
  process.stderr.write(`\n${routeName}:\n`);
  for (const statement of statements) {
    process.stderr.write(`  ${statement.sql}  -- ${JSON.stringify(statement.values)}\n`);
  }
}

export async function captureRequest(
  capture: PgCapture,
  tries: number,
  send: () => Promise<{ response: Response; secret: string; body?: string }>,
): Promise<{ statements: CapturedStatement[]; secret: string; body: string | undefined }> {
  const seen = new Map<
    string,
    { count: number; statements: CapturedStatement[]; secret: string; body: string | undefined }
  >();
  for (let attempt = 0; attempt < tries; attempt += 1) {
    await new Promise((done) => setTimeout(done, 50));
    capture.take();
    const { response, secret, body } = await send();
    await response.arrayBuffer();
    if (!response.ok) throw new Error(`capture: the request answered ${response.status}`);
    await new Promise((done) => setTimeout(done, 20));
    const statements = capture.take();
    const key = statements.map((statement) => statement.sql).join('\n;\n');
    const entry = seen.get(key) ?? { count: 0, statements, secret, body };
    entry.count += 1;
    seen.set(key, entry);
  }
  const [best] = [...seen.values()].sort((a, b) => b.count - a.count);
  if (!best) throw new Error('capture: nothing captured');
  return best;
}

/** A JSON body's string fields worth finding in the statements, longest first. */
function bodyFields(body: string | undefined): [string, string][] {
  if (body === undefined) return [];
  try {
    const parsed = JSON.parse(body) as Record<string, unknown>;
    return Object.entries(parsed)
      .filter((entry): entry is [string, string] => typeof entry[1] === 'string')
      .filter(([, value]) => value.length >= SHORTEST_BODY_VALUE)
      .sort((a, b) => b[1].length - a[1].length);
  } catch {
    return [];
  }
}

/** JSON's escaping of a string, without the quotes: how a value sits inside a stored JSON body. */
const jsonEscaped = (value: string) => JSON.stringify(value).slice(1, -1);

/**
 * The captured statements as a replay: each parameter becomes the request's
 * token hash, a column of an earlier statement's answer, a template (new UUIDs
 * for those the request created, the request body's own values where they
 * appear), a fresh hash (a new token), a time relative to now, or the value
 * itself, in that order of preference. So writes replay as writes (a rotation
 * revokes the token the request names; a create inserts a new resource under a
 * new IRI with the request's name) rather than as no-ops or conflicts.
 */
export function replayOf(
  statements: CapturedStatement[],
  secret: string,
  body?: string,
): AnchorStatement[] {
  const secretHash = sha256(secret);
  const fields = bodyFields(body);
  const uuids = new Map<string, number>();
  const template = (value: string): string | undefined => {
    let text = value;
    for (const [name, fieldValue] of fields) {
      text = text.split(jsonEscaped(fieldValue)).join(`⟦b${name}⟧`);
      const lower = fieldValue.toLowerCase();
      if (lower !== fieldValue) text = text.split(jsonEscaped(lower)).join(`⟦l${name}⟧`);
    }
    text = text.replace(UUID, (uuid) => {
      const index = uuids.get(uuid) ?? uuids.size;
      uuids.set(uuid, index);
      return `⟦u${index}⟧`;
    });
    return text === value ? undefined : text;
  };
  return statements.map((statement, index) => ({
    sql: statement.sql,
    values: statement.values.map((value): ValueSource => {
      if (value === null) return { constant: null };
      if (value === secretHash) return { secretHash: true };
      for (let earlier = index - 1; earlier >= 0; earlier -= 1) {
        const row = statements[earlier]?.firstRow ?? {};
        const column = Object.keys(row).find((name) => row[name] === value);
        if (column !== undefined) return { from: [earlier, column], fallback: value };
      }
      const templated = template(value);
      if (templated !== undefined) return { template: templated };
      if (HEX_HASH.test(value)) return { freshHash: true };
      const number = Number(value);
      if (/^\d{13}$/.test(value) && Math.abs(number - statement.at) < DAY_MS) {
        return { now: number - statement.at };
      }
      return { constant: value };
    }),
  }));
}
