import { type Command, usageLines } from './command.js';

/** Help is read in a terminal: no line is longer than this. */
export const HELP_COLUMNS = 80;

/**
 * `text` broken at spaces into lines of at most `width` characters, the first
 * starting with `first` and the rest with `rest` (a word longer than a line is
 * left whole rather than cut).
 */
export function wrap(text: string, width: number, first = '', rest = first): string[] {
  const lines: string[] = [];
  let line = first;
  let empty = true;
  for (const word of text.split(/\s+/).filter(Boolean)) {
    if (!empty && line.length + 1 + word.length > width) {
      lines.push(line);
      line = rest;
      empty = true;
    }
    line += empty ? word : ` ${word}`;
    empty = false;
  }
  if (!empty) lines.push(line);
  return lines;
}

/** Names in a column, each summary beside its name (or under it, for the longest names). */
export function commandList(program: string, commands: readonly Command[]): string {
  const column = 26;
  const entries = [...commands, { name: 'help', summary: 'Show this text.' }];
  const lines = entries.flatMap((command) => {
    const indent = ' '.repeat(column);
    const name = `  ${command.name}`;
    if (name.length + 2 > column) return [name, ...wrap(command.summary, HELP_COLUMNS, indent)];
    return wrap(command.summary, HELP_COLUMNS, name.padEnd(column), indent);
  });
  return [
    `Usage: ${program} <command> [arguments]`,
    `       ${program} <command> --help    (its arguments and an example)`,
    '',
    'From a checkout, run it as: npm run cli -- <command> [arguments]',
    '',
    'Commands:',
    ...lines,
    '',
  ].join('\n');
}

/**
 * The command's usage lines, the first labelled `Usage:`, each wrapped at its
 * arguments with continuation lines indented under the command.
 */
function usageBlock(program: string, command: Command): string[] {
  return usageLines(command).flatMap((usage, index) => {
    const label = index === 0 ? 'Usage: ' : '       ';
    const indent = ' '.repeat(label.length + program.length + 1 + 2);
    return wrap(`${program} ${usage}`, HELP_COLUMNS, label, indent);
  });
}

/** What `<command> --help` prints. */
export function commandHelp(program: string, command: Command): string {
  return [
    ...usageBlock(program, command),
    '',
    ...wrap(command.summary, HELP_COLUMNS),
    ...(command.details ? ['', ...wrap(command.details, HELP_COLUMNS)] : []),
    '',
    'Example:',
    // Not wrapped: an example is copied whole into a shell (a test keeps it short).
    `  ${program} ${command.name} ${command.example}`.trimEnd(),
    '',
  ].join('\n');
}

/** The usage lines alone, after a mistake in a call. */
export function usageReminder(program: string, command: Command): string {
  return `${usageBlock(program, command).join('\n')}\nMore: ${program} ${command.name} --help\n`;
}
