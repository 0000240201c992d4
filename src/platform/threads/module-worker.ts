import { Worker, type WorkerOptions } from 'node:worker_threads';

/**
 * The module `name` beside the calling module, with the caller's own extension:
 * `.js` in the built program, `.ts` when running from the sources (the tests,
 * the benchmark's scripts).
 */
export function siblingModule(callerUrl: string, name: string): URL {
  const extension = callerUrl.endsWith('.ts') ? '.ts' : '.js';
  return new URL(`./${name}${extension}`, callerUrl);
}

/**
 * Starts a worker thread running an ES module. A TypeScript module (running
 * from the sources) is compiled by tsx inside the worker, as it is in the
 * thread that starts it: a worker's loader is its own, and Node does not take
 * `--import tsx` for a worker's entry module.
 */
export function startModuleWorker(moduleUrl: URL, options: WorkerOptions = {}): Worker {
  if (!moduleUrl.pathname.endsWith('.ts')) return new Worker(moduleUrl, options);
  const tsx = import.meta.resolve('tsx/esm/api');
  const bootstrap = `import(${JSON.stringify(tsx)}).then(({ register }) => {
    register();
    return import(${JSON.stringify(moduleUrl.href)});
  });`;
  return new Worker(bootstrap, { ...options, eval: true });
}
