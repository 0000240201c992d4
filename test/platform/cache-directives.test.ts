import { describe, expect, it } from 'vitest';
import { cacheStatus, requestCaching } from '../../src/platform/http/cache-directives.js';

describe("a request's Cache-Control, as a server's own cache of answers reads it", () => {
  it('lets a kept answer be given, and the new one be kept, when nothing is asked', () => {
    for (const header of [undefined, '', 'max-age=60', 'private', 'max-age=abc', 'no-cachex'])
      expect(requestCaching(header), String(header)).toEqual({ fresh: false, store: true });
  });

  it('wants a fresh answer for no-cache and max-age=0, in any letter case and position', () => {
    for (const header of ['no-cache', 'No-Cache', 'private, no-cache', 'max-age=0', 'MAX-AGE="0"'])
      expect(requestCaching(header), header).toEqual({ fresh: true, store: true });
  });

  it('neither gives nor keeps an answer for no-store, also in a repeated header', () => {
    expect(requestCaching('no-store')).toEqual({ fresh: true, store: false });
    expect(requestCaching(['max-age=60', 'NO-STORE'])).toEqual({ fresh: true, store: false });
  });
});

describe('Cache-Status (RFC 9211)', () => {
  it('names the cache and says what it did', () => {
    expect(cacheStatus('answers', { hit: true })).toBe('answers; hit');
    expect(cacheStatus('answers', { hit: false, forward: 'miss', stored: true })).toBe(
      'answers; fwd=miss; stored',
    );
    expect(cacheStatus('answers', { hit: false, forward: 'request', stored: false })).toBe(
      'answers; fwd=request',
    );
  });
});
