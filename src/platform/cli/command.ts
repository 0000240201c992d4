import type { Writable } from 'node:stream';
import type { Config } from '../config.js';

export interface CommandContext {
  /** The validated configuration; read lazily so `help` works with a broken one. */
  config(): Config;
  stdout: Writable;
  stderr: Writable;
}

/**
 * One verb of the command line. Services add their admin commands as values of
 * this type; main.ts collects them. The returned number is the exit status, or
 * `'running'` when the command leaves servers running (start).
 */
export interface Command {
  name: string;
  usage: string;
  summary: string;
  run(args: string[], context: CommandContext): Promise<number | 'running'>;
}

/** A mistake in how a command was called; reported with the command's usage. */
export class UsageError extends Error {
  override readonly name = 'UsageError';
}
