import { type MessagePort, parentPort, type Worker } from 'node:worker_threads';

/** The functions a worker offers: each takes and gives values structured clone can copy. */
// biome-ignore lint/suspicious/noExplicitAny: any argument list, checked per method by `WorkerCalls`.
export type WorkerApi = Record<string, (...args: any[]) => unknown>;

interface Call {
  id: number;
  method: string;
  args: unknown[];
}

type Reply = { id: number; value: unknown } | { id: number; error: string };

/**
 * Calls the functions of a worker started on a module that `answerCalls`, each
 * answered in the order asked. When the worker ends (its own error, or being
 * terminated), every call waiting fails, as does any call after it.
 */
export class WorkerCalls<Api extends WorkerApi> {
  private nextId = 1;
  private readonly waiting = new Map<
    number,
    { resolve: (value: unknown) => void; reject: (error: Error) => void }
  >();
  private ended: Error | undefined;

  constructor(
    private readonly worker: Worker,
    onEnd: (error: Error) => void = () => undefined,
  ) {
    worker.on('message', (reply: Reply) => {
      const call = this.waiting.get(reply.id);
      if (!call) return;
      this.waiting.delete(reply.id);
      if ('error' in reply) call.reject(new Error(reply.error));
      else call.resolve(reply.value);
    });
    const end = (error: Error) => {
      if (this.ended) return;
      this.ended = error;
      for (const call of this.waiting.values()) call.reject(error);
      this.waiting.clear();
      onEnd(error);
    };
    worker.on('error', end);
    worker.on('exit', (code) => end(new Error(`the worker thread exited (code ${code})`)));
  }

  call<Method extends keyof Api & string>(
    method: Method,
    ...args: Parameters<Api[Method]>
  ): Promise<Awaited<ReturnType<Api[Method]>>> {
    if (this.ended) return Promise.reject(this.ended);
    const id = this.nextId;
    this.nextId += 1;
    return new Promise((resolve, reject) => {
      this.waiting.set(id, { resolve: resolve as (value: unknown) => void, reject });
      this.worker.postMessage({ id, method, args } satisfies Call);
    });
  }

  /** Ends the worker; calls still waiting fail. */
  async terminate(): Promise<void> {
    await this.worker.terminate();
  }
}

/**
 * In a worker thread: answers each call from the thread that started it with
 * the function's value, or with its error's message.
 */
export function answerCalls(api: WorkerApi, port: MessagePort | null = parentPort): void {
  if (!port) throw new Error('answerCalls runs in a worker thread');
  port.on('message', async ({ id, method, args }: Call) => {
    try {
      const run = Object.hasOwn(api, method) ? api[method] : undefined;
      if (!run) throw new Error(`no method ${method}`);
      port.postMessage({ id, value: await run(...args) } satisfies Reply);
    } catch (error) {
      port.postMessage({
        id,
        error: error instanceof Error ? error.message : String(error),
      } satisfies Reply);
    }
  });
}
