import { type ChildProcess, spawn } from 'node:child_process';

/** refdata running as `npm start` runs it, in a process of its own. */
export interface RefdataProcess {
  url: string;
  child: ChildProcess;
  /** What it printed so far, both streams. */
  output(): string;
}

/**
 * Starts refdata as a child process on `env` (a free port on loopback), and
 * answers once it says where it listens; `children` collects it, so a test
 * file can kill whatever it started when it ends.
 */
export async function startRefdataProcess(
  env: Record<string, string>,
  children: ChildProcess[],
): Promise<RefdataProcess> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts', 'start', 'refdata'], {
    env: { PATH: process.env.PATH ?? '', HOST: '127.0.0.1', REFDATA_PORT: '0', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.push(child);
  let output = '';
  child.stdout?.on('data', (chunk: Buffer) => {
    output += chunk.toString();
  });
  child.stderr?.on('data', (chunk: Buffer) => {
    output += chunk.toString();
  });
  for (let waited = 0; waited < 30_000; waited += 50) {
    const listening = /refdata at \S+ \(listening on (127\.0\.0\.1:\d+)\)/.exec(output)?.[1];
    if (listening) return { url: `http://${listening}`, child, output: () => output };
    if (child.exitCode !== null) break;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`refdata did not start: ${output}`);
}

/** Kills it with SIGKILL, as a crash would, and waits until it is gone. */
export async function killed(instance: RefdataProcess): Promise<void> {
  if (instance.child.exitCode !== null) return;
  const exited = new Promise((resolve) => instance.child.once('exit', resolve));
  instance.child.kill('SIGKILL');
  await exited;
}

/**
 * A JSON call to it with a bearer token, as a client makes it; throws unless
 * it succeeds. Answers the parsed body (an empty object for none).
 */
export async function callProcess(
  instance: RefdataProcess,
  token: string,
  method: string,
  path: string,
  body?: unknown,
  // biome-ignore lint/suspicious/noExplicitAny: each test reads the fields it asked for.
): Promise<any> {
  const response = await fetch(`${instance.url}${path}`, {
    method,
    headers: {
      authorization: `Bearer ${token}`,
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await response.text();
  if (!response.ok) throw new Error(`${method} ${path}: ${response.status} ${text}`);
  return JSON.parse(text === '' ? '{}' : text);
}
