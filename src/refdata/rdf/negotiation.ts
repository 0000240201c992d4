import { HttpError } from '../../platform/http/problem.js';
import { problem } from '../problem-codes.js';

interface MediaRange {
  type: string;
  subtype: string;
  q: number;
}

function parseAccept(header: string): MediaRange[] {
  const ranges: MediaRange[] = [];
  for (const part of header.split(',')) {
    const [range, ...parameters] = part.trim().split(';');
    const [type, subtype] = (range ?? '').trim().toLowerCase().split('/');
    if (!type || !subtype) continue;
    let q = 1;
    for (const parameter of parameters) {
      const [name, value] = parameter.trim().split('=');
      if (name?.trim().toLowerCase() === 'q') {
        const parsed = Number(value?.trim());
        q = Number.isFinite(parsed) && parsed >= 0 && parsed <= 1 ? parsed : 0;
      }
    }
    ranges.push({ type, subtype, q });
  }
  return ranges;
}

/** How well a range matches a media type: 3 exact, 2 `type/*`, 1 `*\/*`, 0 not at all. */
function specificity(range: MediaRange, mediaType: string): number {
  const [type, subtype] = mediaType.split('/');
  if (range.type === type && range.subtype === subtype) return 3;
  if (range.type === type && range.subtype === '*') return 2;
  if (range.type === '*' && range.subtype === '*') return 1;
  return 0;
}

/**
 * The offered media type the client prefers (RFC 9110 section 12.5.1): each is
 * weighed by the most specific range that matches it; the highest q wins, ties go
 * to the order of `offered`. No header means the first offered; nothing
 * acceptable means undefined (406).
 */
export function negotiate<T extends string>(
  header: string | undefined,
  offered: readonly T[],
): T | undefined {
  if (header === undefined || header.trim() === '') return offered[0];
  const ranges = parseAccept(header);
  let best: { mediaType: T; q: number } | undefined;
  for (const mediaType of offered) {
    let match: { specificity: number; q: number } | undefined;
    for (const range of ranges) {
      const level = specificity(range, mediaType);
      if (level > 0 && (!match || level > match.specificity))
        match = { specificity: level, q: range.q };
    }
    if (match && match.q > 0 && (!best || match.q > best.q)) best = { mediaType, q: match.q };
  }
  return best?.mediaType;
}

/** The one 406 refdata answers: what was asked for is not offered, and what is. */
export function notAcceptable(offered: readonly string[], what = 'This'): HttpError {
  return new HttpError(
    problem(406, 'not-acceptable', `${what} is available as ${offered.join(', ')}.`, {
      title: 'Not Acceptable',
    }),
  );
}

/** The offered media type the client prefers (`negotiate`), or the 406 that says what is offered. */
export function negotiateOrRefuse<T extends string>(
  header: string | undefined,
  offered: readonly T[],
  what = 'This',
): T {
  const mediaType = negotiate(header, offered);
  if (mediaType === undefined) throw notAcceptable(offered, what);
  return mediaType;
}
