/**
 * What one sign-in's password check costs at a given argon2id setting: the
 * verification time on one core, and how many checks the machine does per second
 * when several run at once (argon2 runs on libuv's thread pool, off the event loop).
 */
import { availableParallelism } from 'node:os';
import { PasswordHasher } from '../src/codehost/accounts/passwords.js';

export interface HashingFigures {
  memoryKib: number;
  iterations: number;
  parallelism: number;
  verifyMedianMs: number;
  verifyP90Ms: number;
  /** Verifications per second with as many running at once as the machine has cores. */
  verificationsPerSecond: number;
}

function percentile(sorted: number[], fraction: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * fraction))] ?? Number.NaN;
}

export async function measureHashing(
  cost: { memoryKib: number; iterations: number; parallelism: number },
  samples = 30,
): Promise<HashingFigures> {
  const hasher = new PasswordHasher(cost);
  const stored = await hasher.hash('correct horse battery staple');
  await hasher.verify(stored, 'warm-up');

  const times: number[] = [];
  for (let index = 0; index < samples; index += 1) {
    const started = performance.now();
    await hasher.verify(stored, 'correct horse battery staple');
    times.push(performance.now() - started);
  }
  times.sort((a, b) => a - b);

  const concurrent = availableParallelism();
  const rounds = Math.max(4, Math.ceil(samples / concurrent));
  const started = performance.now();
  for (let round = 0; round < rounds; round += 1) {
    await Promise.all(
      Array.from({ length: concurrent }, () => hasher.verify(stored, 'wrong password')),
    );
  }
  const elapsedSeconds = (performance.now() - started) / 1000;

  return {
    ...cost,
    verifyMedianMs: percentile(times, 0.5),
    verifyP90Ms: percentile(times, 0.9),
    verificationsPerSecond: (rounds * concurrent) / elapsedSeconds,
  };
}
