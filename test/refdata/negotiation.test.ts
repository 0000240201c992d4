import { describe, expect, it } from 'vitest';
import { negotiate } from '../../src/refdata/rdf/negotiation.js';
import { OFFERED } from '../../src/refdata/rdf/routes.js';

describe('Accept negotiation', () => {
  it.each([
    [undefined, 'application/json'],
    ['', 'application/json'],
    ['*/*', 'application/json'],
    ['text/turtle', 'text/turtle'],
    ['text/*', 'text/turtle'],
    ['application/rdf+xml;q=0.5, text/turtle;q=0.4', 'application/rdf+xml'],
    ['text/turtle;q=0.2, application/n-triples', 'application/n-triples'],
    ['text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8', 'text/html'],
    ['*/*;q=0.1, application/ld+json', 'application/ld+json'],
    ['text/*;q=0.9, text/turtle;q=0', 'text/html'],
    ['APPLICATION/TRIG', 'application/trig'],
    ['application/n-quads; charset=utf-8', 'application/n-quads'],
    ['text/turtle;q=2', undefined],
    ['image/png', undefined],
    ['text/turtle;q=0', undefined],
    ['garbage', undefined],
  ])('%s gives %s', (header, expected) => {
    expect(negotiate(header, OFFERED)).toBe(expected);
  });
});
