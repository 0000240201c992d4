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
  /**
   * How it is called, after the program's name. Several lines when the
   * arguments differ by case, so that no line offers what the command refuses.
   */
  usage: string | readonly string[];
  /** One sentence, for the list of commands. */
  summary: string;
  /** What else `<command> --help` says: defaults, what it prints, what it refuses. */
  details?: string;
  /** Arguments of one call that works on a fresh installation (after the command's name). */
  example: string;
  run(args: string[], context: CommandContext): Promise<number | 'running'>;
}

/** A mistake in how a command was called; reported with the command's usage. */
export class UsageError extends Error {
  override readonly name = 'UsageError';
}

export function usageLines(command: Command): readonly string[] {
  return typeof command.usage === 'string' ? [command.usage] : command.usage;
}
