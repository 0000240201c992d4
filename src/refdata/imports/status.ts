import { stringify } from 'csv-stringify/sync';
import type { ImportJobRow } from './jobs.js';
import type { Counts, ReportEntry } from './plan.js';
import type { FileSummary } from './upload-rules.js';

/** Progress in the words a person watching it wants: done of all, rows a second, time left. */
export function progressOf(job: ImportJobRow, now = Date.now()) {
  const total = Number(job.total);
  const done = Number(job.done);
  const running = job.state === 'checking' || job.state === 'writing';
  const elapsed = job.phase_started_at === null ? 0 : (now - Number(job.phase_started_at)) / 1000;
  const rate = running && elapsed > 0 && done > 0 ? done / elapsed : null;
  return {
    phase: job.state,
    done,
    total,
    percent: total === 0 ? (running ? 0 : 100) : Math.min(100, Math.floor((done / total) * 100)),
    rowsPerSecond: rate === null ? null : Math.round(rate),
    secondsLeft: rate === null ? null : Math.ceil((total - done) / rate),
  };
}

export function statusJson(
  job: ImportJobRow,
  publicUrl: string,
  options: { withRefused?: boolean } = {},
) {
  const self = `${publicUrl}/imports/${job.id}`;
  const refused =
    options.withRefused && job.refused_lines
      ? (JSON.parse(job.refused_lines) as ReportEntry[])
      : [];
  return {
    id: job.id,
    library: job.library_iri,
    state: job.state,
    dryRun: job.dry_run === 1,
    mode: job.mode,
    encoding: job.encoding,
    written: job.written === 1,
    progress: progressOf(job),
    files: JSON.parse(job.files) as FileSummary[],
    counts: job.counts === null ? null : (JSON.parse(job.counts) as Counts),
    summary:
      job.counts === null ? null : summaryLine(JSON.parse(job.counts) as Counts, job.written === 1),
    error: job.error,
    ...(options.withRefused
      ? {
          // The first refused lines (jobs.ts keeps them apart); the report has them all.
          refused,
          refusedListed: refused.length,
        }
      : {}),
    createdAt: new Date(Number(job.created_at)).toISOString(),
    finishedAt: job.finished_at === null ? null : new Date(Number(job.finished_at)).toISOString(),
    links: { self, report: `${self}/report` },
  };
}

/**
 * The one line a script reads: `created N, updated N, unchanged N, refused N`,
 * and `(nothing written)` after it when the figures are what would have been
 * done (a dry run, or an all-or-nothing import that met a refused line).
 */
export function summaryLine(counts: Counts, written: boolean): string {
  const figures = `created ${counts.created}, updated ${counts.updated}, unchanged ${counts.unchanged}, refused ${counts.refused}`;
  return written || counts.created + counts.updated === 0
    ? figures
    : `${figures} (nothing written)`;
}

export const REPORT_COLUMNS = [
  'file',
  'line',
  'column',
  'outcome',
  'family',
  'iri',
  'name',
  'message',
  'not kept',
] as const;

/**
 * A cell a spreadsheet will not take for a formula: the report repeats what
 * the files said (names, codes), and a person opens it in a spreadsheet; text
 * starting with = + - @ or a tab gets an apostrophe before it (OWASP's advice).
 */
function inert(value: string | number): string | number {
  return typeof value === 'string' && /^[=+\-@\t\r]/.test(value) ? `'${value}` : value;
}

/** Every line of the report (as stored) as CSV, UTF-8 with a byte-order mark, which spreadsheets need to read it so. */
export function reportCsv(report: string | null): string {
  const entries = report ? (JSON.parse(report) as ReportEntry[]) : [];
  return `\uFEFF${stringify(
    entries.map((entry) =>
      [
        entry.source,
        entry.line,
        entry.column ?? '',
        entry.outcome,
        entry.family,
        entry.iri,
        entry.name,
        entry.messages.join('; '),
        entry.notKept.join('; '),
      ].map(inert),
    ),
    { header: true, columns: [...REPORT_COLUMNS], record_delimiter: '\r\n' },
  )}`;
}
