/**
 * Reading a guide written in Markdown as something to run: its shell blocks
 * are the commands, the block after each is what the command printed, and
 * what varies between installations (IDs, tokens, times, text cut with `…`)
 * is matched loosely and remembered, so that later commands that quote an
 * earlier output run with this installation's values.
 */

export interface GuideStep {
  /** The `## ` heading the command is under. */
  section: string;
  command: string;
  /** What the guide shows the command printing, if anything. */
  expected?: string;
}

const FENCE = /^```([\w-]*)\n([\s\S]*?)^```$/gm;
const HEADING = /^## (.+)$/gm;

/** Every shell block in order, each with the output block that follows it. */
export function guideSteps(markdown: string): GuideStep[] {
  const headings = [...markdown.matchAll(HEADING)].map((match) => ({
    at: match.index,
    title: match[1] ?? '',
  }));
  const sectionAt = (offset: number) =>
    headings.filter((heading) => heading.at < offset).at(-1)?.title ?? '';
  const steps: GuideStep[] = [];
  let last: GuideStep | undefined;
  for (const match of markdown.matchAll(FENCE)) {
    const [, language, body = ''] = match;
    if (language === 'sh') {
      last = { section: sectionAt(match.index), command: body };
      steps.push(last);
      continue;
    }
    // Every output must be one some command printed, or the guide shows what nothing does.
    if (!last || last.expected !== undefined) {
      throw new Error(`An output block follows no command: ${body.slice(0, 80)}`);
    }
    last.expected = body.trimEnd();
  }
  return steps;
}

/** Values the guide shows that differ on every installation, each with how it looks. */
const VARYING: { pattern: string; bound: boolean }[] = [
  // UUIDs (resource IRIs, trace ids) and 64-digit hex tokens: remembered, to be quoted later.
  { pattern: '[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}', bound: true },
  { pattern: '[0-9a-f]{64}', bound: true },
  // Times, as ISO 8601 and as seconds since the epoch.
  { pattern: '\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}\\.\\d{3}Z', bound: false },
  { pattern: '\\b1\\d{9}\\b', bound: false },
];
// A cut (`…`) takes the spaces around it: the guide writes `, … ,` for a cut in JSON.
const VARYING_ANYWHERE = new RegExp(
  `\\s*…\\s*|${VARYING.map((entry) => entry.pattern).join('|')}`,
  'g',
);
const literally = (text: string) => text.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');

/**
 * Holds an output to what the guide shows. Returns the guide's varying values
 * (as shown) with this installation's, or undefined when the output differs.
 * `known` are values learned from earlier outputs.
 */
export function matchOutput(
  expected: string,
  actual: string,
  known: ReadonlyMap<string, string>,
): Map<string, string> | undefined {
  const groups = new Map<string, string>();
  let pattern = '';
  let from = 0;
  for (const match of expected.matchAll(VARYING_ANYWHERE)) {
    pattern += literally(expected.slice(from, match.index));
    from = match.index + match[0].length;
    const value = match[0];
    if (value.trim() === '…') {
      pattern += '[\\s\\S]*?';
      continue;
    }
    const kind = VARYING.find((entry) => new RegExp(`^${entry.pattern}$`).test(value));
    if (!kind?.bound) {
      pattern += kind ? kind.pattern : literally(value);
      continue;
    }
    const learned = known.get(value);
    if (learned !== undefined) {
      pattern += literally(learned);
    } else if (groups.has(value)) {
      pattern += `\\k<${groups.get(value)}>`;
    } else {
      const name = `v${groups.size}`;
      groups.set(value, name);
      pattern += `(?<${name}>${kind.pattern})`;
    }
  }
  pattern += literally(expected.slice(from));
  const found = new RegExp(`^${pattern}$`).exec(actual.trimEnd());
  if (!found) return undefined;
  return new Map([...groups].map(([shown, name]) => [shown, found.groups?.[name] ?? '']));
}

/**
 * A command as this installation runs it: values the guide showed replaced by
 * the ones learned, including a token the guide cut short (`e71d1b89…`).
 */
export function withLearnedValues(command: string, known: ReadonlyMap<string, string>): string {
  let result = command;
  for (const [shown, actual] of known) {
    result = result.replaceAll(`${shown.slice(0, 8)}…`, actual).replaceAll(shown, actual);
  }
  return result;
}

/**
 * `curl -i` output with only the headers the guide shows: it leaves out those
 * every answer has (security headers, Date, x-request-id).
 */
export function onlyShownHeaders(expected: string, actual: string): string {
  const text = actual.replace(/\r\n/g, '\n');
  if (!expected.startsWith('HTTP/')) return text;
  const [head = '', ...body] = text.split('\n\n');
  const shown = new Set(
    expected
      .split('\n\n')[0]
      ?.split('\n')
      .slice(1)
      .map((line) => line.slice(0, line.indexOf(':')).toLowerCase()),
  );
  const [statusLine, ...headers] = head.split('\n');
  const kept = headers.filter((line) => shown.has(line.slice(0, line.indexOf(':')).toLowerCase()));
  return [[statusLine, ...kept].join('\n'), ...body].join('\n\n');
}
