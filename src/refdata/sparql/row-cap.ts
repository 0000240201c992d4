import sparqljs from 'sparqljs';

/**
 * The cap on the rows a query's answer holds, put into the query itself: a
 * SELECT, CONSTRUCT or DESCRIBE without a LIMIT, or with a larger one, is
 * given `LIMIT cap` (Virtuoso's `ResultSetMaxRows` does the same, and says so
 * in `X-SPARQL-MaxRows`). The engine then stops at the cap instead of writing
 * out an answer no one should have to read over HTTP.
 */
export type CappedQuery =
  /** The text to evaluate; `capped` when the cap took the place of the query's own limit. */
  | { readable: true; text: string; capped: boolean }
  /** SPARQL 1.1's grammar does not read it (the engine's parser says where, or reads more). */
  | { readable: false };

/** The cap is put in by grammar alone; what the engine refuses of the rest, it says (see routes). */
const parserOptions: sparqljs.ParserOptions & { skipValidation: boolean } = {
  skipValidation: true,
};
const parser = new sparqljs.Parser(parserOptions);
const generator = new sparqljs.Generator();

export function capRows(text: string, maxRows: number): CappedQuery {
  let parsed: sparqljs.SparqlQuery;
  try {
    parsed = parser.parse(text);
  } catch {
    return { readable: false };
  }
  if (parsed.type !== 'query' || parsed.queryType === 'ASK') {
    return { readable: true, text, capped: false };
  }
  // Every form with a solution modifier has them, though the types give them to SELECT only.
  const modifiers = parsed as { limit?: number; values?: unknown };
  if (modifiers.limit !== undefined && modifiers.limit <= maxRows) {
    return { readable: true, text, capped: false };
  }
  // The text as written where it can be: a LIMIT follows the solution modifiers,
  // unless a trailing VALUES block closes the query.
  if (modifiers.limit === undefined && modifiers.values === undefined) {
    return { readable: true, text: `${text}\nLIMIT ${maxRows}`, capped: true };
  }
  modifiers.limit = maxRows;
  return { readable: true, text: generator.stringify(parsed), capped: true };
}
