import type { DestinationStream, LoggerOptions } from 'pino';
import pino from 'pino';
import { prettyFactory } from 'pino-pretty';
import { type LogFormat, type LogLevel, redactUrlPassword } from '../config.js';

/**
 * Query parameters that carry credentials. Their values are replaced in every
 * logged URL; the names follow OAuth 2.0 and GitLab's API.
 */
const SECRET_PARAMETER =
  /^(access_token|refresh_token|id_token|private_token|token|code|code_verifier|client_secret|password|secret|api_key|apikey|assertion|otp_attempt)$/i;

export const REDACTED = '[REDACTED]';

/** Returns the path and query with every credential-bearing value replaced. */
export function redactUrl(url: string): string {
  const queryStart = url.indexOf('?');
  if (queryStart === -1) return url;
  const query = url
    .slice(queryStart + 1)
    .split('&')
    .map((pair) => {
      const separator = pair.indexOf('=');
      const rawName = separator === -1 ? pair : pair.slice(0, separator);
      let name: string;
      try {
        name = decodeURIComponent(rawName.replace(/\+/g, ' '));
      } catch {
        name = rawName;
      }
      return separator !== -1 && SECRET_PARAMETER.test(name) ? `${rawName}=${REDACTED}` : pair;
    })
    .join('&');
  return `${url.slice(0, queryStart)}?${query}`;
}

/**
 * Keys that never reach a log line, wherever an object carrying them is logged.
 * Request headers are not logged at all (see the serializers); this list is the
 * second line of defence for objects code logs by hand.
 */
const REDACT_KEYS = [
  'password',
  'token',
  'access_token',
  'refresh_token',
  'private_token',
  'client_secret',
  'secret',
  'authorization',
  'cookie',
  'private-token',
  'set-cookie',
  'x-api-key',
];
// At the top, one level down and two (which covers `headers.x` and `req.headers.x`).
const REDACT_PARENTS = ['', '*.', '*.*.'];
// Keys with a hyphen need pino's bracket notation to be matched at all.
const REDACT_PATHS = REDACT_KEYS.flatMap((key) =>
  REDACT_PARENTS.map((parent) =>
    /^[a-z_]+$/.test(key) ? `${parent}${key}` : `${parent.replace(/\.$/, '')}["${key}"]`,
  ),
);

interface LoggedRequest {
  method: string;
  url: string;
  ip?: string;
  headers: Record<string, string | string[] | undefined>;
}

export function loggerOptions(service: string, level: LogLevel): LoggerOptions {
  return {
    level,
    base: { service },
    timestamp: pino.stdTimeFunctions.isoTime,
    redact: { paths: REDACT_PATHS, censor: REDACTED },
    serializers: {
      // Only what an operator needs to trace a request; headers stay out because
      // they carry Authorization, PRIVATE-TOKEN and cookies.
      req: (request: LoggedRequest) => ({
        method: request.method,
        url: redactUrl(request.url),
        remoteAddress: request.ip,
        userAgent: request.headers['user-agent'],
      }),
      res: (reply: { statusCode: number }) => ({ statusCode: reply.statusCode }),
      err: (error: unknown) => {
        // A reason given as text (an attempt's outcome) is logged as its message;
        // reading it as an Error threw, and took the logging call's caller with it.
        if (!(error instanceof Error)) return { message: redactUrlPassword(String(error)) };
        const serialized = pino.stdSerializers.err(error);
        // Connection strings turn up in driver error messages; keep their passwords out.
        serialized.message = redactUrlPassword(serialized.message);
        if (serialized.stack) serialized.stack = redactUrlPassword(serialized.stack);
        return serialized;
      },
    },
  };
}

/**
 * The service's logger, writing to `destination` or else to standard output,
 * synchronously. pino's default for standard output hands each line to libuv's
 * thread pool; at one line per request that hand-off (thread wake-ups, not the
 * write) cost a request that reads one row about a sixth of its CPU time on
 * the benchmark machine, against a few microseconds for the write itself. A
 * synchronous line is also never lost when the process dies.
 */
export function createLogger(
  service: string,
  level: LogLevel,
  destination?: DestinationStream,
  format: Exclude<LogFormat, 'auto'> = 'json',
): pino.Logger {
  if (format === 'text') return pino(loggerOptions(service, level), textLines(destination));
  return pino(
    loggerOptions(service, level),
    destination ?? pino.destination({ dest: process.stdout.fd ?? 1, sync: true }),
  );
}

/** A log record as pino writes it, as far as the text lines read it. */
interface LogRecord {
  service?: string;
  traceId?: string;
  req?: { method?: string; url?: string };
  res?: { statusCode?: number };
  responseTimeMs?: number;
  [key: string]: unknown;
}

/**
 * One short line a record for a person at a terminal: the time, the level, the
 * service and the message; a request as its method, path, status and time
 * (the address, user agent and trace id are in the JSON lines, where tools read
 * them). Whatever else a record holds follows on the same line.
 */
export function textLine(record: LogRecord, messageKey: string): string {
  const service = record.service ?? '';
  if (record.req && record.res && !record.err) {
    return `${service} ${record.req.method ?? ''} ${record.req.url ?? ''} ${record.res.statusCode ?? ''} ${record.responseTimeMs ?? ''} ms`;
  }
  // A request's own records (its failure among them) name its trace id, which
  // an error body shows the person who met it.
  const trace = record.traceId ? ` (trace ${record.traceId})` : '';
  return `${service} ${String(record[messageKey] ?? '')}${trace}`;
}

function textLines(destination: DestinationStream | undefined): DestinationStream {
  const prettify = prettyFactory({
    colorize: destination === undefined && process.stdout.isTTY === true,
    singleLine: true,
    translateTime: 'SYS:HH:MM:ss',
    ignore: 'pid,hostname,service,traceId,req,res,responseTimeMs',
    messageFormat: (record, messageKey) => textLine(record as LogRecord, messageKey),
  });
  const out = destination ?? pino.destination({ dest: process.stdout.fd ?? 1, sync: true });
  // pino hands each record over as its JSON line; it is redacted already.
  return { write: (line: string) => out.write(prettify(line)) };
}
