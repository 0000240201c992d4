/**
 * One instance of the kernel in a process of its own, for the kill -9 test:
 * it claims the kit's jobs, says so on stdout, and hangs in every attempt
 * until it is killed.
 */

import type { DatabaseConfig } from '../../../src/platform/config.js';
import { openDatabase } from '../../../src/platform/db/connection.js';
import { kitQueue } from './kit.js';

const config = JSON.parse(process.argv[2] ?? '{}') as DatabaseConfig;
const { db } = openDatabase(config);
const queue = kitQueue(db, {
  instance: 'child',
  leaseMs: Number(process.argv[3] ?? 500),
  concurrency: 3,
  pollMilliseconds: 20,
  during: () => {
    process.stdout.write('claimed\n');
    return new Promise(() => undefined);
  },
});
queue.start();
