/** Command-line options the benchmark scripts share. */
import type { DatabaseKind } from './codehost-server.js';

/** The options every script takes: which databases, where PostgreSQL is, whether to build first. */
export const commonOptions = {
  databases: { type: 'string', default: 'sqlite,postgres' },
  'postgres-url': {
    type: 'string',
    default: process.env.BENCH_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres',
  },
  'skip-build': { type: 'boolean', default: false },
} as const;

export function positive(name: string, text: string): number {
  const number = Number(text);
  if (!Number.isInteger(number) || number < 1) throw new Error(`--${name} wants a whole number`);
  return number;
}

/** `--databases sqlite,postgres` as a list. */
export function databaseKinds(text: string): DatabaseKind[] {
  return text.split(',').map((kind) => {
    if (kind !== 'sqlite' && kind !== 'postgres') throw new Error(`unknown database "${kind}"`);
    return kind;
  });
}
