/**
 * Which of SPARQL's four query forms a query text is, read from its start as
 * the grammar gives it (SPARQL 1.1 §19.8: `Prologue` then the form's keyword):
 * base and prefix declarations, white space and comments, then SELECT, ASK,
 * CONSTRUCT or DESCRIBE. An update's keywords there make it an update. The
 * engine parses the whole text; this only chooses how its answer is written.
 */
export type QueryForm = 'SELECT' | 'ASK' | 'CONSTRUCT' | 'DESCRIBE';

export type Classified =
  | { kind: 'query'; form: QueryForm }
  | { kind: 'update' }
  | { kind: 'unknown' };

const SKIPPED = /^(?:\s+|#[^\n\r]*)+/;
const BASE_DECLARATION = /^BASE\s*<[^<>"{}|^`\\\s]*>/i;
const PREFIX_DECLARATION = /^PREFIX\s+[^\s:]*:\s*<[^<>"{}|^`\\\s]*>/i;
const QUERY_FORM = /^(SELECT|ASK|CONSTRUCT|DESCRIBE)(?![A-Za-z0-9_])/i;
/** The first keywords of SPARQL 1.1 Update's operations (§3), `WITH` opening a modify. */
const UPDATE_OPERATION =
  /^(INSERT|DELETE|LOAD|CLEAR|CREATE|DROP|COPY|MOVE|ADD|WITH)(?![A-Za-z0-9_])/i;

export function classify(text: string): Classified {
  let rest = text;
  for (;;) {
    rest = rest.replace(SKIPPED, '');
    const declaration = BASE_DECLARATION.exec(rest) ?? PREFIX_DECLARATION.exec(rest);
    if (!declaration) break;
    rest = rest.slice(declaration[0].length);
  }
  const form = QUERY_FORM.exec(rest)?.[1];
  if (form) return { kind: 'query', form: form.toUpperCase() as QueryForm };
  return UPDATE_OPERATION.test(rest) ? { kind: 'update' } : { kind: 'unknown' };
}
