import type { Quad } from 'n3';
import { siblingModule, startModuleWorker } from '../../platform/threads/module-worker.js';
import { WorkerCalls } from '../../platform/threads/worker-calls.js';
import { encodeTriples } from './shape-triples.js';
import type { ShapeResult, shapesApi } from './shapes-worker.js';

/** The heap the shapes' thread may grow to: a batch's triples and the engine's indexes of them. */
const SHAPES_HEAP_MB = 512;

let calls: WorkerCalls<typeof shapesApi> | undefined;

/**
 * The quality rules' shapes run over `triples` in the thread kept for them
 * (started at the first report, and again after it ended), one batch at a
 * time in the order asked. The thread does not keep the process running.
 */
export function validateShapes(triples: readonly Quad[]): Promise<ShapeResult[]> {
  if (!calls) {
    const worker = startModuleWorker(siblingModule(import.meta.url, 'shapes-worker'), {
      resourceLimits: { maxOldGenerationSizeMb: SHAPES_HEAP_MB },
    });
    worker.unref();
    const started = new WorkerCalls<typeof shapesApi>(worker, () => {
      if (calls === started) calls = undefined;
    });
    calls = started;
  }
  return calls.call('validate', encodeTriples(triples));
}
