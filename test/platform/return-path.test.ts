import { describe, expect, it } from 'vitest';
import { safeReturnPath } from '../../src/platform/web/return-path.js';

/**
 * Each value a browser, reading it as a `Location`, would take to another site.
 * The list follows the usual open-redirect bypasses: whitespace the URL parser
 * drops, backslashes it reads as slashes, dot segments that fold into `//`,
 * schemes, credentials and look-alike characters.
 */
const BYPASSES = [
  '//evil.example',
  '/\t/evil.example',
  '/\n/evil.example',
  '/\r\n/evil.example',
  '\t//evil.example',
  '/\\evil.example',
  '/\\/evil.example',
  '\\\\evil.example',
  '/./\\evil.example',
  '/.//evil.example',
  '/..//evil.example',
  '/a/..//evil.example',
  '/%2e//evil.example',
  'https://evil.example/',
  'http:evil.example',
  'javascript:alert(1)',
  'data:text/html,<script>alert(1)</script>',
  ' /evil',
  'evil.example',
  '',
  `/${'a'.repeat(2001)}`,
];

describe('safeReturnPath', () => {
  it.each(BYPASSES.map((value) => [JSON.stringify(value), value]))('refuses %s', (_name, value) => {
    expect(safeReturnPath(value)).toBeUndefined();
  });

  it('refuses what is not text', () => {
    for (const value of [undefined, null, 42, ['/'], { path: '/' }]) {
      expect(safeReturnPath(value)).toBeUndefined();
    }
  });

  it('keeps a path on this service, with its query and fragment', () => {
    expect(safeReturnPath('/')).toBe('/');
    expect(safeReturnPath('/libraries/x?q=pump&page=2#top')).toBe('/libraries/x?q=pump&page=2#top');
    expect(safeReturnPath('/a/../b')).toBe('/b');
  });

  it('percent-encodes what a header may not carry, so the redirect is always a valid header', () => {
    const odd = safeReturnPath('/search?q=a\u00e9\u4e2d b"<>\u0001z');
    expect(odd).toBe('/search?q=a%C3%A9%E4%B8%AD%20b%22%3C%3E%01z');
    // CR and LF are dropped as a browser drops them, never sent as a header break.
    expect(safeReturnPath('/x\r\nSet-Cookie: a=b')).toBe('/xSet-Cookie:%20a=b');
    // Look-alikes of the slash stay a path here.
    expect(safeReturnPath('/\uff0f\uff0fevil.example')).toBe('/%EF%BC%8F%EF%BC%8Fevil.example');
    expect(safeReturnPath('/\u2215evil.example')).toBe('/%E2%88%95evil.example');
    // An encoded slash is not a slash to the browser.
    expect(safeReturnPath('/%2F%2Fevil.example')).toBe('/%2F%2Fevil.example');
    for (const value of ['/\u00ff', '/\u0100', '/\ud83d\ude00']) {
      expect(safeReturnPath(value)).toMatch(/^\/[\x21-\x7e]+$/);
    }
  });
});
