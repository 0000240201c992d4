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
export type ReadQuery =
  | {
      readable: true;
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
    }
  /** SPARQL 1.1's grammar does not read it (the engine's parser says where, or reads more). */
  | { readable: false };

/** The cap is put in by grammar alone; what the engine refuses of the rest, it says (see routes). */
const parserOptions: sparqljs.ParserOptions & { skipValidation: boolean } = {
  skipValidation: true,
};
const parser = new sparqljs.Parser(parserOptions);
const generator = new sparqljs.Generator();

export function readQuery(text: string, maxRows: number): ReadQuery {
  let parsed: sparqljs.SparqlQuery;
  try {
    parsed = parser.parse(text);
  } catch {
    return { readable: false };
  }
  const found: Found = { federated: false, functions: new Set(), builtIns: new Set() };
  visit(parsed, found);
  const from = (parsed as { from?: { default?: { value: string }[]; named?: { value: string }[] } })
    .from;
  const reading = {
    federated: found.federated,
    functions: [...found.functions],
    builtIns: [...found.builtIns],
    fromGraphs: [...(from?.default ?? []), ...(from?.named ?? [])].map((graph) => graph.value),
  };
  if (parsed.type !== 'query' || parsed.queryType === 'ASK') {
    return { readable: true, text, capped: false, ...reading };
  }
  // Every form with a solution modifier has them, though the types give them to SELECT only.
  const modifiers = parsed as { limit?: number; values?: unknown };
  if (modifiers.limit !== undefined && modifiers.limit <= maxRows) {
    return { readable: true, text, capped: false, ...reading };
  }
  // The text as written where it can be: a LIMIT follows the solution modifiers,
  // unless a trailing VALUES block closes the query.
  if (modifiers.limit === undefined && modifiers.values === undefined) {
    return { readable: true, text: `${text}\nLIMIT ${maxRows}`, capped: true, ...reading };
  }
  modifiers.limit = maxRows;
  return { readable: true, text: generator.stringify(parsed), capped: true, ...reading };
}

interface Found {
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
  if (record.termType === 'NamedNode' && typeof record.value === 'string') {
    if (/^(bif|sql):/i.test(record.value)) found.builtIns.add(record.value);
  }
  if (record.type === 'functionCall') {
    const called = record.function as { termType?: string; value?: string } | undefined;
    if (called?.termType === 'NamedNode' && called.value) found.functions.add(called.value);
  }
  for (const value of Object.values(record)) visit(value, found);
}
