import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    environment: 'node',
    // After each file, its services' responses are held against their API descriptions.
    setupFiles: ['test/contract/setup.ts'],
    pool: 'forks',
    testTimeout: 20_000,
    hookTimeout: 30_000,
    // Each file starts its own servers on its own databases, so files run in parallel.
    fileParallelism: true,
  },
});
