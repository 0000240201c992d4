import { describe, expect, it } from 'vitest';
import { guideSteps, matchOutput, onlyShownHeaders, withLearnedValues } from './guide.js';

describe('running a guide', () => {
  it('pairs each shell block with the output after it, and refuses an output of nothing', () => {
    const guide =
      '## 1. One\n\n```sh\necho a\n```\n\n```json\n{"a":1}\n```\n\n## 2. Two\n\n```sh\ntrue\n```\n';
    expect(guideSteps(guide)).toEqual([
      { section: '1. One', command: 'echo a\n', expected: '{"a":1}' },
      { section: '2. Two', command: 'true\n' },
    ]);
    expect(() => guideSteps('```json\n{}\n```\n')).toThrow(/follows no command/);
  });

  it('matches cuts, times and IDs loosely, remembers IDs, and holds the rest exactly', () => {
    const shown =
      '{"iri":"http://x/0a9e2a9d-40d5-4701-b3ed-8020294a2a85","at":"2026-11-25T01:06:34.366Z", … ,"self":"http://x/0a9e2a9d-40d5-4701-b3ed-8020294a2a85"}';
    const id = '11111111-2222-3333-4444-555555555555';
    const printed = `{"iri":"http://x/${id}","at":"2027-01-01T00:00:00.000Z","b":2,"self":"http://x/${id}"}`;
    expect(matchOutput(shown, printed, new Map())).toEqual(
      new Map([['0a9e2a9d-40d5-4701-b3ed-8020294a2a85', id]]),
    );
    // The same ID twice must be the same value; a learned one must be the one learned.
    expect(
      matchOutput(
        shown,
        printed.replace(
          `self":"http://x/${id}`,
          'self":"http://x/99999999-2222-3333-4444-555555555555',
        ),
        new Map(),
      ),
    ).toBeUndefined();
    expect(
      matchOutput(shown, printed, new Map([['0a9e2a9d-40d5-4701-b3ed-8020294a2a85', 'other']])),
    ).toBeUndefined();
    expect(matchOutput('{"status":"Draft"}', '{"status":"Approved"}', new Map())).toBeUndefined();
  });

  it('puts learned values into later commands, a cut token included', () => {
    const token = 'e71d1b89fb665addf78e298edff4791f423bf1adf990450caa9800710e1edf5b';
    const known = new Map([[token, 'f'.repeat(64)]]);
    expect(withLearnedValues('TOKEN=e71d1b89…  # above', known)).toBe(
      `TOKEN=${'f'.repeat(64)}  # above`,
    );
  });

  it('keeps only the headers the guide shows, in the order they came', () => {
    const shown = 'HTTP/1.1 204 No Content\netag: "2"';
    const printed = 'HTTP/1.1 204 No Content\r\nx-request-id: 1\r\netag: "2"\r\ndate: now\r\n\r\n';
    expect(onlyShownHeaders(shown, printed).trimEnd()).toBe(shown);
  });
});
