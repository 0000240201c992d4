import { describe, expect, it } from 'vitest';
import { siblingModule, startModuleWorker } from '../../src/platform/threads/module-worker.js';
import { WorkerCalls } from '../../src/platform/threads/worker-calls.js';

interface ArithmeticApi {
  [method: string]: (...args: never[]) => unknown;
  add(value: number): number;
  later(value: number): Promise<number>;
  fail(message: string): never;
  exit(code: number): void;
}

function start() {
  const ended: Error[] = [];
  const worker = startModuleWorker(siblingModule(import.meta.url, 'fixtures/arithmetic-worker'));
  const calls = new WorkerCalls<ArithmeticApi>(worker, (error) => ended.push(error));
  return { calls, ended };
}

describe('calls to a worker thread', () => {
  it('names the module beside its caller with the caller’s extension', () => {
    expect(siblingModule('file:///app/dist/search/service.js', 'index-worker').href).toBe(
      'file:///app/dist/search/index-worker.js',
    );
    expect(siblingModule('file:///app/src/search/service.ts', 'index-worker').href).toBe(
      'file:///app/src/search/index-worker.ts',
    );
  });

  it('answers each call with its function’s value, in the order asked', async () => {
    const { calls, ended } = start();
    try {
      const answers = await Promise.all([1, 2, 3, 4].map((value) => calls.call('add', value)));
      expect(answers).toEqual([1, 3, 6, 10]);
      expect(await calls.call('later', 21)).toBe(42);
      expect(ended).toEqual([]);
    } finally {
      await calls.terminate();
    }
  });

  it('fails a call whose function throws with its message, and goes on answering', async () => {
    const { calls } = start();
    try {
      await expect(calls.call('fail', 'no such document')).rejects.toThrow('no such document');
      await expect(calls.call('add', 5)).resolves.toBe(5);
    } finally {
      await calls.terminate();
    }
  });

  it('fails the calls waiting and those after when the thread ends unasked, and says so once', async () => {
    const { calls, ended } = start();
    await calls.call('add', 1);
    const waiting = calls.call('later', 1);
    await expect(calls.call('exit', 3)).rejects.toThrow('exited (code 3)');
    await expect(waiting).rejects.toThrow('exited (code 3)');
    await expect(calls.call('add', 1)).rejects.toThrow('exited (code 3)');
    expect(ended).toHaveLength(1);
  });
});
