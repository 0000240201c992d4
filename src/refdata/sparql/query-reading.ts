import sparqljs from 'sparqljs';

/**
 * A query as SPARQL 1.1's grammar reads it (SPARQL.js), for what the endpoint
 * decides before an engine sees it: the cap on rows, put into the query
 * itself; whether it calls another endpoint (`SERVICE`); the extension
 * functions it calls.
 *
 * The cap: a SELECT, CONSTRUCT or DESCRIBE without a LIMIT, or with a larger
 * one, is given `LIMIT cap` (Virtuoso's `ResultSetMaxRows` does the same, and
 * says so in `X-SPARQL-MaxRows`). The engine then stops at the cap instead of
 * writing out an answer no one should have to read over HTTP.
 */
/** A query the grammar read, with what the endpoint decides by. */
export interface Reading {
  /** The text to evaluate: the query's own, or with the cap put in. */
  text: string;
  /** The cap took the place of the query's own limit. */
  capped: boolean;
  /** It holds a `SERVICE` pattern. */
  federated: boolean;
  /** The IRIs of the functions it calls by IRI (casts, extensions). */
  functions: string[];
  /** IRIs in the `bif:` and `sql:` schemes, anywhere: Virtuoso's built-ins. */
  builtIns: string[];
  /** The graphs its `FROM` and `FROM NAMED` name. */
  fromGraphs: string[];
  /** Its `FROM` (default graphs) and `FROM NAMED`, when it has either. */
  from?: { defaultGraphs: string[]; namedGraphs: string[] };
  /** It holds `GRAPH ?g {}`, which a store may answer only read again with the named graphs. */
  listsGraphs: boolean;
  /** With `FROM`: the text (capped) without it, for the protocol's graphs to take its place. */
  withoutFrom?: string;
}

export type ReadQuery =
  | ({ readable: true } & Reading)
  /** It reads, but its operations chain deeper than `MAX_OPERATIONS` (see `operationDepth`). */
  | { readable: 'too-complex'; depth: number }
  /** SPARQL 1.1's grammar does not read it (the engine's parser says where, or reads more). */
  | { readable: false };

/** The cap is put in by grammar alone; what the engine refuses of the rest, it says (see routes). */
const parserOptions: sparqljs.ParserOptions & { skipValidation: boolean } = {
  skipValidation: true,
};
const parser = new sparqljs.Parser(parserOptions);
const generator = new sparqljs.Generator();

/**
 * Reads `text`, and puts the row cap in. With `namedGraphs`, each
 * `GRAPH ?g {}` (an empty pattern in every named graph: SPARQL's way of
 * listing them, and rdflib's `contexts()`) is written as `VALUES ?g { … }` over
 * them, for a store that finds no graph for an empty pattern (Virtuoso).
 */
export function readQuery(text: string, maxRows: number, namedGraphs?: string[]): ReadQuery {
  let parsed: sparqljs.SparqlQuery;
  try {
    parsed = parser.parse(text);
  } catch {
    return { readable: false };
  }
  const depth = operationDepth(parsed, MAX_OPERATIONS);
  if (depth > MAX_OPERATIONS) return { readable: 'too-complex', depth };
  const found: Found = {
    federated: false,
    functions: new Set(),
    builtIns: new Set(),
    emptyGraphPatterns: [],
  };
  visit(parsed, found);
  if (namedGraphs) {
    for (const pattern of found.emptyGraphPatterns) {
      const variable = `?${pattern.name.value}`;
      Object.assign(pattern, {
        type: 'values',
        values: namedGraphs.map((graph) => ({
          [variable]: { termType: 'NamedNode', value: graph },
        })),
      });
      delete (pattern as { patterns?: unknown }).patterns;
      delete (pattern as { name?: unknown }).name;
    }
    if (found.emptyGraphPatterns.length > 0) text = generator.stringify(parsed);
  }
  const from = (parsed as { from?: { default?: { value: string }[]; named?: { value: string }[] } })
    .from;
  const reading = {
    federated: found.federated,
    functions: [...found.functions],
    builtIns: [...found.builtIns],
    fromGraphs: [...(from?.default ?? []), ...(from?.named ?? [])].map((graph) => graph.value),
    listsGraphs: found.emptyGraphPatterns.length > 0 && namedGraphs === undefined,
  };
  const capped = withCap(parsed, text, maxRows);
  if (reading.fromGraphs.length === 0) return { readable: true, ...capped, ...reading };
  // The protocol's graphs take the place of the query's FROM (SPARQL 1.1 Protocol §2.1.4):
  // the text without it is what a store is sent with them.
  delete (parsed as { from?: unknown }).from;
  return {
    readable: true,
    ...capped,
    ...reading,
    from: {
      defaultGraphs: (from?.default ?? []).map((graph) => graph.value),
      namedGraphs: (from?.named ?? []).map((graph) => graph.value),
    },
    withoutFrom: withCap(parsed, generator.stringify(parsed), maxRows).text,
  };
}

/** The query's text with the row cap put in, if its own LIMIT is larger or missing. */
function withCap(
  parsed: sparqljs.SparqlQuery,
  text: string,
  maxRows: number,
): { text: string; capped: boolean } {
  if (parsed.type !== 'query' || parsed.queryType === 'ASK') return { text, capped: false };
  // Every form with a solution modifier has them, though the types give them to SELECT only.
  const modifiers = parsed as { limit?: number; values?: unknown };
  if (modifiers.limit !== undefined && modifiers.limit <= maxRows) return { text, capped: false };
  // The text as written where it can be: a LIMIT follows the solution modifiers,
  // unless a trailing VALUES block closes the query.
  if (modifiers.limit === undefined && modifiers.values === undefined) {
    return { text: `${text}\nLIMIT ${maxRows}`, capped: true };
  }
  const limit = modifiers.limit;
  modifiers.limit = maxRows;
  const written = generator.stringify(parsed);
  modifiers.limit = limit;
  return { text: written, capped: true };
}

/**
 * How long a chain of operations a query may hold (docs/sparql.md#limits).
 * Oxigraph's evaluator recurses once per operation of a chain: `UNION`s,
 * `OPTIONAL`s, `BIND`s, binary operators, path steps, nested groups. Its
 * stack, of fixed size inside WebAssembly, overflowed at chains of 800 to
 * 3,200 (by kind) and at 200 nested `EXISTS` (test/refdata/sparql-hostile.test.ts
 * holds every kind at this limit); 300 leaves room, and is more than any
 * query written by hand needs. `VALUES` rows and triple patterns do not chain.
 */
export const MAX_OPERATIONS = 300;

/** Arrays whose members are evaluated one after another, each one more level of the engine's. */
const CHAINED = new Set(['where', 'patterns', 'args', 'items', 'variables', 'group', 'order']);
/** Arrays that are data, not operations: counted by their deepest member alone. */
const NOT_CHAINED = new Set(['triples', 'values']);

/**
 * The length of the longest chain of operations in SPARQL.js's tree: each node
 * is one, each further member of a chained list one more, plus its deepest
 * member. Walked with a stack of its own, not recursion: `1+1+…` 30,000 long
 * is a tree 30,000 deep. Stops once past `limit`.
 */
export function operationDepth(root: unknown, limit: number): number {
  interface Frame {
    members: unknown[];
    next: number;
    own: number;
    deepest: number;
  }
  const frameOf = (node: object): Frame => {
    const members: unknown[] = [];
    let own = 1;
    for (const [key, value] of Object.entries(node)) {
      if (Array.isArray(value)) {
        if (CHAINED.has(key) && value.length > 1) own += value.length - 1;
        if (key === 'values') {
          // A VALUES block's rows are records of terms: only their terms, never operations.
          continue;
        }
        members.push(...value);
      } else if (value !== null && typeof value === 'object' && !NOT_CHAINED.has(key)) {
        members.push(value);
      }
    }
    return { members, next: 0, own, deepest: 0 };
  };
  const isOperation = (value: unknown): value is object =>
    value !== null && typeof value === 'object' && !('termType' in value && !('type' in value));
  if (!isOperation(root)) return 0;
  const stack: Frame[] = [frameOf(root)];
  let found = 0;
  while (stack.length > 0) {
    const frame = stack[stack.length - 1] as Frame;
    if (frame.next < frame.members.length) {
      const member = frame.members[frame.next];
      frame.next += 1;
      if (isOperation(member)) {
        stack.push(frameOf(member));
        if (stack.length > limit) return stack.length;
      }
      continue;
    }
    stack.pop();
    const depth = frame.own + frame.deepest;
    if (depth > limit) return depth;
    const parent = stack[stack.length - 1];
    if (parent) parent.deepest = Math.max(parent.deepest, depth);
    else found = depth;
  }
  return found;
}

interface Found {
  /** `GRAPH ?g {}` patterns, to be written as VALUES over the named graphs. */
  emptyGraphPatterns: { name: { value: string } }[];
  federated: boolean;
  functions: Set<string>;
  builtIns: Set<string>;
}

/** Walks SPARQL.js's tree for `SERVICE` patterns, functions called by IRI and Virtuoso's built-ins. */
function visit(node: unknown, found: Found): void {
  if (Array.isArray(node)) {
    for (const item of node) visit(item, found);
    return;
  }
  if (node === null || typeof node !== 'object') return;
  const record = node as Record<string, unknown>;
  if (record.type === 'service') found.federated = true;
  if (
    record.type === 'graph' &&
    Array.isArray(record.patterns) &&
    record.patterns.length === 0 &&
    (record.name as { termType?: string } | undefined)?.termType === 'Variable'
  )
    found.emptyGraphPatterns.push(record as unknown as { name: { value: string } });
  if (record.termType === 'NamedNode' && typeof record.value === 'string') {
    if (/^(bif|sql):/i.test(record.value)) found.builtIns.add(record.value);
  }
  if (record.type === 'functionCall') {
    const called = record.function as { termType?: string; value?: string } | undefined;
    if (called?.termType === 'NamedNode' && called.value) found.functions.add(called.value);
  }
  for (const value of Object.values(record)) visit(value, found);
}
