import type { ChildProcess } from 'node:child_process';

/**
 * Stops the program started in its own process group (as `npm start` runs
 * it) and waits for it to end: a clean stop writes the SPARQL snapshot for
 * the next start, so its data directory is removed only once that is done.
 * After 30 s it is killed.
 */
export async function stopProgram(server: ChildProcess | undefined): Promise<void> {
  if (!server?.pid || server.exitCode !== null) return;
  const exited = new Promise((resolve) => server.once('exit', resolve));
  process.kill(-server.pid, 'SIGTERM');
  const stopped = await Promise.race([
    exited.then(() => true),
    new Promise((resolve) => setTimeout(() => resolve(false), 30_000)),
  ]);
  if (!stopped) process.kill(-server.pid, 'SIGKILL');
}
