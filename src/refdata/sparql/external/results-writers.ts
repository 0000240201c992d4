/**
 * SPARQL results written from the JSON results an external store answers, in
 * the four formats `/sparql` offers: so that a client reads the same formats,
 * exactly as the W3C specifications give them, whichever engine evaluated the
 * query (Virtuoso writes TSV as quoted CSV, and JSON with SPARQL 1.0's
 * `typed-literal`).
 */

/** A term as SPARQL 1.1 Query Results JSON gives it (and `typed-literal`, as older writers do). */
export interface JsonTerm {
  type: 'uri' | 'literal' | 'typed-literal' | 'bnode';
  value: string;
  'xml:lang'?: string;
  datatype?: string;
}

export interface JsonResults {
  head?: { vars?: string[] };
  results?: { bindings?: Record<string, JsonTerm>[] };
  boolean?: boolean;
}

const XSD_STRING = 'http://www.w3.org/2001/XMLSchema#string';

/** Reads a store's JSON results; a body that is not such results throws. */
export function readJsonResults(body: string): JsonResults {
  const parsed = JSON.parse(body) as JsonResults;
  if (typeof parsed !== 'object' || parsed === null)
    throw new Error('the answer is not SPARQL JSON results');
  if (typeof parsed.boolean !== 'boolean' && !Array.isArray(parsed.results?.bindings))
    throw new Error('the answer is neither a boolean nor solutions');
  return parsed;
}

/**
 * A blank node's label as N-Triples takes it (Virtuoso's are `nodeID://b10004`):
 * any other character, and `_` itself, written as `_<hex>_`, so that two labels
 * never become one.
 */
function blankLabel(value: string): string {
  const label = value
    .replace(/^nodeID:\/\//, '')
    .replace(/[^A-Za-z0-9-]/g, (character) => `_${character.codePointAt(0)?.toString(16)}_`);
  return label === '' ? 'b' : /^[A-Za-z0-9_]/.test(label) ? label : `b${label}`;
}

/** The term as the specification's JSON gives it: `literal` with an optional datatype. */
function normalized(term: JsonTerm): JsonTerm {
  if (term.type === 'uri') return { type: 'uri', value: term.value };
  if (term.type === 'bnode') return { type: 'bnode', value: blankLabel(term.value) };
  const literal: JsonTerm = { type: 'literal', value: term.value };
  if (term['xml:lang']) literal['xml:lang'] = term['xml:lang'];
  else if (term.datatype && term.datatype !== XSD_STRING) literal.datatype = term.datatype;
  return literal;
}

function variables(results: JsonResults): string[] {
  return results.head?.vars ?? [];
}

function rows(results: JsonResults): Record<string, JsonTerm>[] {
  return (results.results?.bindings ?? []).map((binding) =>
    Object.fromEntries(Object.entries(binding).map(([name, term]) => [name, normalized(term)])),
  );
}

function json(results: JsonResults): string {
  if (typeof results.boolean === 'boolean')
    return JSON.stringify({ head: {}, boolean: results.boolean });
  return JSON.stringify({
    head: { vars: variables(results) },
    results: { bindings: rows(results) },
  });
}

/** Text as XML holds it: markup escaped, and a carriage return kept (a parser turns a bare one into a line feed). */
function escapeXml(text: string): string {
  return text.replace(
    /[&<>"\r]/g,
    (character) =>
      ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', '\r': '&#13;' })[character] ?? '',
  );
}

function xmlTerm(term: JsonTerm): string {
  if (term.type === 'uri') return `<uri>${escapeXml(term.value)}</uri>`;
  if (term.type === 'bnode') return `<bnode>${escapeXml(term.value)}</bnode>`;
  const lang = term['xml:lang'] ? ` xml:lang="${escapeXml(term['xml:lang'])}"` : '';
  const datatype = term.datatype ? ` datatype="${escapeXml(term.datatype)}"` : '';
  return `<literal${lang}${datatype}>${escapeXml(term.value)}</literal>`;
}

function xml(results: JsonResults): string {
  const open = '<?xml version="1.0"?>\n<sparql xmlns="http://www.w3.org/2005/sparql-results#">\n';
  if (typeof results.boolean === 'boolean')
    return `${open}<head/>\n<boolean>${results.boolean}</boolean>\n</sparql>\n`;
  const names = variables(results);
  const head = names.map((name) => `<variable name="${escapeXml(name)}"/>`).join('');
  const body = rows(results)
    .map((row) => {
      const bindings = names
        .filter((name) => row[name] !== undefined)
        .map(
          (name) =>
            `<binding name="${escapeXml(name)}">${xmlTerm(row[name] as JsonTerm)}</binding>`,
        )
        .join('');
      return `<result>${bindings}</result>\n`;
    })
    .join('');
  return `${open}<head>${head}</head>\n<results>\n${body}</results>\n</sparql>\n`;
}

/** CSV (SPARQL 1.1 CSV and TSV §2): plain values, quoted when they must be, CRLF lines. */
function csv(results: JsonResults): string {
  const field = (text: string) => (/[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text);
  const names = variables(results);
  const lines = [names.map(field).join(',')];
  for (const row of rows(results)) {
    lines.push(
      names
        .map((name) => {
          const term = row[name];
          if (!term) return '';
          return field(term.type === 'bnode' ? `_:${term.value}` : term.value);
        })
        .join(','),
    );
  }
  return `${lines.join('\r\n')}\r\n`;
}

/** A string as N-Triples and Turtle write it between quotes. */
function quoted(text: string): string {
  return `"${text.replace(/[\\"\n\r\t]/g, (character) => ({ '\\': '\\\\', '"': '\\"', '\n': '\\n', '\r': '\\r', '\t': '\\t' })[character] ?? '')}"`;
}

/** TSV (SPARQL 1.1 CSV and TSV §3): `?name` headers, terms in Turtle's syntax. */
function tsv(results: JsonResults): string {
  const names = variables(results);
  const term = (value: JsonTerm | undefined): string => {
    if (!value) return '';
    if (value.type === 'uri') return `<${value.value}>`;
    if (value.type === 'bnode') return `_:${value.value}`;
    if (value['xml:lang']) return `${quoted(value.value)}@${value['xml:lang']}`;
    return value.datatype ? `${quoted(value.value)}^^<${value.datatype}>` : quoted(value.value);
  };
  const lines = [names.map((name) => `?${name}`).join('\t')];
  for (const row of rows(results)) lines.push(names.map((name) => term(row[name])).join('\t'));
  return `${lines.join('\n')}\n`;
}

/** The writers by the results format's media type (`RESULTS_FORMATS`' values). */
export const RESULTS_WRITERS: Record<string, (results: JsonResults) => string> = {
  'application/sparql-results+json': json,
  'application/sparql-results+xml': xml,
  'text/csv': csv,
  'text/tab-separated-values': tsv,
};
