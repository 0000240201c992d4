/**
 * What a service sends PostgreSQL, read off the wire: a TCP proxy between the
 * service and the database that records each statement the service runs (its
 * text, its parameters, and the rows it got back), in the order the database
 * answered them. The benchmark's anchors replay these statements through a
 * bare `pg` pool, so "the same SQL" is what the code sent, whatever the code is.
 *
 * It reads the frontend's simple (`Q`) and extended (`P`arse, `B`ind,
 * `E`xecute) query messages and the backend's row descriptions, data rows and
 * command completions (PostgreSQL protocol 3.0, text format, no TLS: the
 * benchmark connects over loopback without it).
 */
import { connect, createServer, type Server, type Socket } from 'node:net';

export interface CapturedStatement {
  sql: string;
  /** Bind parameters in text form; null for SQL NULL. */
  values: (string | null)[];
  /** The first row answered, by column name, in text form. */
  firstRow: Record<string, string | null> | undefined;
  /** When the statement was sent (epoch milliseconds). */
  at: number;
}

/** A frame reader: PostgreSQL messages are a type byte and a length that counts itself. */
class Frames {
  private buffer = Buffer.alloc(0);
  constructor(private readonly startup: boolean) {}
  private started = false;

  push(chunk: Buffer, each: (type: string, body: Buffer) => void): void {
    this.buffer = Buffer.concat([this.buffer, chunk]);
    for (;;) {
      if (this.startup && !this.started) {
        // The startup message has no type byte.
        if (this.buffer.length < 4) return;
        const length = this.buffer.readInt32BE(0);
        if (this.buffer.length < length) return;
        this.buffer = this.buffer.subarray(length);
        this.started = true;
        continue;
      }
      if (this.buffer.length < 5) return;
      const length = this.buffer.readInt32BE(1);
      if (this.buffer.length < 1 + length) return;
      each(String.fromCharCode(this.buffer[0] as number), this.buffer.subarray(5, 1 + length));
      this.buffer = this.buffer.subarray(1 + length);
    }
  }
}

function cString(body: Buffer, offset: number): [string, number] {
  const end = body.indexOf(0, offset);
  return [body.toString('utf8', offset, end), end + 1];
}

/** One client connection's statements: what was bound, waiting for the answers. */
class ConnectionLog {
  private readonly prepared = new Map<string, string>();
  private unnamed = '';
  private bound: { sql: string; values: (string | null)[] } | undefined;
  private readonly waiting: { sql: string; values: (string | null)[]; at: number }[] = [];
  private columns: string[] = [];
  private firstRow: Record<string, string | null> | undefined;

  constructor(private readonly record: (statement: CapturedStatement) => void) {}

  fromClient(type: string, body: Buffer): void {
    if (type === 'Q') {
      this.waiting.push({ sql: cString(body, 0)[0], values: [], at: Date.now() });
    } else if (type === 'P') {
      const [name, next] = cString(body, 0);
      const [sql] = cString(body, next);
      if (name === '') this.unnamed = sql;
      else this.prepared.set(name, sql);
    } else if (type === 'B') {
      let [, offset] = cString(body, 0);
      const [statement, afterName] = cString(body, offset);
      offset = afterName;
      const formats = body.readInt16BE(offset);
      offset += 2 + formats * 2;
      const count = body.readInt16BE(offset);
      offset += 2;
      const values: (string | null)[] = [];
      for (let index = 0; index < count; index += 1) {
        const length = body.readInt32BE(offset);
        offset += 4;
        if (length < 0) values.push(null);
        else {
          values.push(body.toString('utf8', offset, offset + length));
          offset += length;
        }
      }
      this.bound = {
        sql: statement === '' ? this.unnamed : (this.prepared.get(statement) ?? ''),
        values,
      };
    } else if (type === 'E' && this.bound) {
      this.waiting.push({ ...this.bound, at: Date.now() });
    }
  }

  fromServer(type: string, body: Buffer): void {
    if (type === 'T') {
      const count = body.readInt16BE(0);
      let offset = 2;
      this.columns = [];
      for (let index = 0; index < count; index += 1) {
        const [name, next] = cString(body, offset);
        this.columns.push(name);
        offset = next + 18;
      }
    } else if (type === 'D' && this.firstRow === undefined) {
      const row: Record<string, string | null> = {};
      const count = body.readInt16BE(0);
      let offset = 2;
      for (let index = 0; index < count; index += 1) {
        const length = body.readInt32BE(offset);
        offset += 4;
        const column = this.columns[index] ?? String(index);
        if (length < 0) row[column] = null;
        else {
          row[column] = body.toString('utf8', offset, offset + length);
          offset += length;
        }
      }
      this.firstRow = row;
    } else if (type === 'C' || type === 'I' || type === 'E') {
      const done = this.waiting.shift();
      if (done) this.record({ ...done, firstRow: this.firstRow });
      this.firstRow = undefined;
      this.columns = [];
    }
  }
}

export interface PgCapture {
  /** Where the service should connect instead of the database (same database name and user). */
  url: string;
  /** Statements recorded since the last call, in the order they were answered. */
  take(): CapturedStatement[];
  close(): Promise<void>;
}

/** A recording proxy on loopback in front of the database `databaseUrl` names. */
export async function startPgCapture(databaseUrl: string): Promise<PgCapture> {
  const target = new URL(databaseUrl);
  let statements: CapturedStatement[] = [];
  const sockets = new Set<Socket>();
  const server: Server = createServer((client) => {
    const upstream = connect(Number(target.port || 5432), target.hostname);
    sockets.add(client).add(upstream);
    const log = new ConnectionLog((statement) => statements.push(statement));
    const fromClient = new Frames(true);
    const fromServer = new Frames(false);
    client.on('data', (chunk) => {
      fromClient.push(chunk, (type, body) => log.fromClient(type, body));
      upstream.write(chunk);
    });
    upstream.on('data', (chunk) => {
      fromServer.push(chunk, (type, body) => log.fromServer(type, body));
      client.write(chunk);
    });
    const end = () => {
      client.destroy();
      upstream.destroy();
      sockets.delete(client);
      sockets.delete(upstream);
    };
    client.on('close', end).on('error', end);
    upstream.on('close', end).on('error', end);
  });
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('no proxy address');
  const url = new URL(databaseUrl);
  url.hostname = '127.0.0.1';
  url.port = String(address.port);
  return {
    url: url.toString(),
    take() {
      const taken = statements;
      statements = [];
      return taken;
    },
    async close() {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((done) => server.close(() => done()));
    },
  };
}
