/**
 * The logic dense enough to test on its own: the one-pass bracket count the
 * request thread does, the chains of operations a copy measures, syntax
 * errors in words, the format parameters, and each client's share.
 */
import oxigraph from 'oxigraph';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { HttpError } from '../../src/platform/http/problem.js';
import { ClientShares } from '../../src/refdata/sparql/client-shares.js';
import { acceptFor } from '../../src/refdata/sparql/format-parameters.js';
import { MAX_NESTING, readBrackets } from '../../src/refdata/sparql/query-bounds.js';
import {
  MAX_OPERATIONS,
  operationDepth,
  readQuery,
} from '../../src/refdata/sparql/query-reading.js';
import { syntaxInWords } from '../../src/refdata/sparql/syntax-words.js';

describe('the bracket count', () => {
  it('counts brackets outside strings, IRIs and comments, and tells < from an IRI', () => {
    expect(readBrackets('SELECT * { ?s ?p "{{{(((" . ?s ?p <http://x/((> # {{{\n }')).toEqual({
      balanced: true,
      deepest: 1,
    });
    expect(readBrackets(`SELECT * { FILTER(?a<?b) FILTER(?a < 3) ?s ?p """{\n{""" }`)).toEqual({
      balanced: true,
      deepest: 2,
    });
    expect(readBrackets("ASK { ?s ?p 'it\\'s (' }")).toEqual({ balanced: true, deepest: 1 });
  });

  it('says where nesting passes the limit, and which bracket fails to pair', () => {
    const deep = `SELECT * WHERE\n${'{'.repeat(MAX_NESTING + 1)}`;
    expect(readBrackets(deep)).toEqual({
      balanced: false,
      why: 'too-deep',
      bracket: '{',
      position: { line: 2, column: MAX_NESTING + 1 },
    });
    expect(readBrackets('SELECT * WHERE { ?s ?p ?o ')).toMatchObject({ why: 'unclosed' });
    expect(readBrackets('ASK { } }')).toMatchObject({
      why: 'unopened',
      position: { line: 1, column: 9 },
    });
    expect(readBrackets('ASK { FILTER(?x } )')).toMatchObject({ why: 'mismatched', bracket: '(' });
  });

  it('reads 64 KiB of brackets in one pass, without recursion', () => {
    const text = `${'{'.repeat(32_768)}${'}'.repeat(32_768)}`;
    expect(readBrackets(text, Number.POSITIVE_INFINITY)).toEqual({
      balanced: true,
      deepest: 32_768,
    });
  });
});

describe('chains of operations', () => {
  it('counts UNIONs, OPTIONALs, BINDs and path steps; not VALUES rows or triple patterns', () => {
    const unions = (n: number) =>
      `SELECT * WHERE { ${Array.from({ length: n }, (_, i) => `{ ?s ?p ${i} }`).join(' UNION ')} }`;
    expect(readQuery(unions(250), 100).readable).toBe(true);
    expect(readQuery(unions(400), 100)).toMatchObject({ readable: 'too-complex' });
    const values = `SELECT * WHERE { VALUES ?x { ${Array.from({ length: 5000 }, (_, i) => i).join(' ')} } }`;
    expect(readQuery(values, 100).readable).toBe(true);
    const triples = `SELECT * WHERE { ${Array.from({ length: 1000 }, (_, i) => `?s${i} ?p ?o .`).join(' ')} }`;
    expect(readQuery(triples, 100).readable).toBe(true);
    const path = (n: number) => `SELECT * WHERE { ?s ${Array(n).fill('<http://p>').join('/')} ?o }`;
    expect(readQuery(path(250), 100).readable).toBe(true);
    expect(readQuery(path(400), 100)).toMatchObject({ readable: 'too-complex' });
  });

  it('measures a tree far deeper than the stack without recursion, and stops past the limit', () => {
    let node: object = { termType: 'Literal', value: '1' };
    for (let n = 0; n < 200_000; n += 1)
      node = {
        type: 'operation',
        operator: '+',
        args: [node, { termType: 'Literal', value: '1' }],
      };
    expect(operationDepth(node, MAX_OPERATIONS)).toBeGreaterThan(MAX_OPERATIONS);
    expect(operationDepth({ type: 'bgp', triples: [] }, MAX_OPERATIONS)).toBe(1);
  });
});

describe('syntax errors in words', () => {
  const engine = new oxigraph.Store();
  const words = (text: string) => {
    try {
      engine.query(text);
    } catch (error) {
      return syntaxInWords(text, (error as Error).message);
    }
    throw new Error(`the engine read ${text}`);
  };

  it.each([
    ['SELECT * WHERE { ?s ?p ?o ', 'Line 1, column 16: this “{” is never closed.'],
    [
      'SELECT * WHERE { ?s foo:bar ?o }',
      'Line 1, column 28: the prefix “foo:” is not declared; add “PREFIX foo: <…>” before the query.',
    ],
    [
      'SELEC * WHERE {}',
      'A query begins with SELECT, ASK, CONSTRUCT or DESCRIBE, after any PREFIX and BASE declarations.',
    ],
    [
      'SELECT * WHERE { ?s ?p ?o } LIMTI 3',
      'Line 1, column 35: “3” is not expected here, after “LIMTI”.',
    ],
    [
      'SELECT * WHERE { ?s <http://p> ?o . ?s <http://q> }',
      'Line 1, column 51: “}” is not expected here, after “<http://q>”.',
    ],
    [
      'SELECT * WHERE { ?s ?p ?o } }',
      'Line 1, column 29: this “}” closes nothing; no bracket is open there.',
    ],
  ])('%s', (text, said) => {
    const message = words(text);
    expect(message).toBe(said);
    // Never the parser's list of tokens.
    expect(message).not.toMatch(/expected one of|\[_\]/);
  });
});

describe('format parameters', () => {
  it('take the place of Accept when they name a format, and let Accept be when not', () => {
    expect(acceptFor({ format: 'json' }, 'application/sparql-results+xml')).toMatch(
      /^application\/sparql-results\+json/,
    );
    expect(acceptFor({ output: 'CSV' }, undefined)).toBe('text/csv');
    expect(acceptFor({ results: ['nonsense', 'tsv'] }, undefined)).toBe(
      'text/tab-separated-values',
    );
    expect(acceptFor({ format: 'text/turtle' }, 'text/csv')).toBe('text/turtle');
    expect(acceptFor({ format: 'html' }, 'text/csv')).toBe('text/csv');
    expect(acceptFor({}, undefined)).toBeUndefined();
  });
});

describe("a client's share", () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  const refusal = (work: () => unknown) => {
    try {
      work();
    } catch (error) {
      if (error instanceof HttpError) return error.problem;
      throw error;
    }
    return undefined;
  };

  it('takes one query at once, and fills again what stopped queries spent', () => {
    vi.useFakeTimers();
    vi.setSystemTime(0);
    const shares = new ClientShares(1, 10_000);
    const done = shares.admit('a');
    expect(refusal(() => shares.admit('a'))).toMatchObject({ status: 429 });
    // Another client is its own.
    shares.admit('b')(0.01, false);
    done(10, true);
    // A stopped query costs three times the limit: 30 s against 20 held.
    const refused = refusal(() => shares.admit('a'));
    expect(refused).toMatchObject({ status: 429, headers: { 'retry-after': '10' } });
    vi.setSystemTime(10_500);
    shares.admit('a')(0.01, false);
    expect(shares.balanceOf('b')).toBe(20);
    expect(shares.balanceOf('a')).toBeLessThan(1);
  });

  it('knows a client by its token, by its address, and an IPv6 host by its /64', () => {
    expect(ClientShares.clientOf('192.0.2.1', 'alice')).toBe('subject:alice');
    expect(ClientShares.clientOf('192.0.2.1', undefined)).toBe('address:192.0.2.1');
    expect(ClientShares.clientOf('::ffff:192.0.2.1', undefined)).toBe('address:192.0.2.1');
    expect(ClientShares.clientOf('2001:db8:1:2:aaaa::1', undefined)).toBe(
      ClientShares.clientOf('2001:db8:1:2:bbbb::2', undefined),
    );
    expect(ClientShares.clientOf('2001:db8:1:3::1', undefined)).not.toBe(
      ClientShares.clientOf('2001:db8:1:2::1', undefined),
    );
  });
});
