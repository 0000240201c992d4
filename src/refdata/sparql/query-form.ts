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

/** Long and short string literals, IRIs and comments: where a keyword is only text. */
const NOT_KEYWORDS =
  /"""[\s\S]*?"""|'''[\s\S]*?'''|"(?:[^"\\\n\r]|\\.)*"|'(?:[^'\\\n\r]|\\.)*'|<[^<>"{}|^`\\\s]*>|#[^\n\r]*/g;

/**
 * Whether the query names its own dataset (`FROM`, `FROM NAMED`), which then
 * stands in for the endpoint's default dataset (SPARQL 1.1 Protocol §2.1.4).
 */
export function declaresDataset(text: string): boolean {
  // A prefixed name's local part may hold `-` and `.` (`ex:valid-from`): not a keyword.
  return /(?<![A-Za-z0-9_:?$.-])FROM(?![A-Za-z0-9_:.-])/i.test(text.replace(NOT_KEYWORDS, ' '));
}
