import type { FastifyInstance, FastifyRequest } from 'fastify';
import { type FieldError, HttpError, problem, validationProblem } from './problem.js';

/**
 * What a service asks of the text in request bodies, beyond valid Unicode
 * (which every body must be): whether text is stored in Unicode Normalization
 * Form C, so that the same name typed on two keyboards is one name, and whether
 * characters XML 1.0 forbids (and the C0 controls it allows but no person types
 * in a field: only tab, line feed and carriage return pass) are refused.
 */
export interface BodyTextPolicy {
  normalizeNfc: boolean;
  refuseControlCharacters: boolean;
}

export const PLAIN_TEXT_POLICY: BodyTextPolicy = {
  normalizeNfc: false,
  refuseControlCharacters: false,
};

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

// biome-ignore lint/suspicious/noControlCharactersInRegex: finding control characters is this pattern's job
const FORBIDDEN_CONTROL = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\u007F\uFFFE\uFFFF]/;

const utf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: false });

export const notUtf8 = () =>
  new HttpError(
    problem(400, 'malformed-body', 'The request body is not valid UTF-8.', {
      title: 'Malformed request body',
    }),
  );

export function decodeUtf8(body: Buffer): string {
  try {
    return utf8.decode(body);
  } catch {
    throw notUtf8();
  }
}

const codePoint = (character: string) =>
  `U+${(character.codePointAt(0) ?? 0).toString(16).toUpperCase().padStart(4, '0')}`;

const pointerTo = (path: readonly string[]) =>
  path.map((part) => `/${part.replaceAll('~', '~0').replaceAll('/', '~1')}`).join('');

/**
 * Walks every string of a parsed body (keys and values): refuses lone
 * surrogates (a JSON `\ud800` escape is not text) and, by policy, control
 * characters; normalizes to NFC by policy. Returns the body, changed in place.
 */
export function checkBodyText(body: unknown, policy: BodyTextPolicy): unknown {
  const errors: FieldError[] = [];
  const visit = (value: unknown, path: string[]): unknown => {
    if (typeof value === 'string') {
      if (LONE_SURROGATE.test(value)) {
        errors.push({
          in: 'body',
          field: pointerTo(path),
          detail: 'contains a lone surrogate, which is not a Unicode character',
        });
        return value;
      }
      const control = policy.refuseControlCharacters ? FORBIDDEN_CONTROL.exec(value) : null;
      if (control) {
        errors.push({
          in: 'body',
          field: pointerTo(path),
          detail: `contains the control character ${codePoint(control[0])}, which text may not hold (only tab, line feed and carriage return are allowed)`,
        });
        return value;
      }
      return policy.normalizeNfc ? value.normalize('NFC') : value;
    }
    if (Array.isArray(value)) {
      for (let index = 0; index < value.length; index++) {
        value[index] = visit(value[index], [...path, String(index)]);
      }
      return value;
    }
    if (value !== null && typeof value === 'object') {
      const record = value as Record<string, unknown>;
      for (const key of Object.keys(record)) {
        const checkedKey = visit(key, [...path, key]);
        const checked = visit(record[key], [...path, key]);
        if (checkedKey !== key && typeof checkedKey === 'string') {
          delete record[key];
          record[checkedKey] = checked;
        } else {
          record[key] = checked;
        }
      }
    }
    return value;
  };
  const checked = visit(body, []);
  if (errors.length > 0) throw new HttpError(validationProblem(errors));
  return checked;
}

/**
 * A form body decoded strictly: `+` is a space, every `%XX` must spell UTF-8
 * (browsers never send anything else; `%FF` would otherwise pass as the three
 * characters `%FF`), repeated names gather into an array, and the object has
 * no prototype, so `__proto__` is a field like any other.
 */
export function parseFormBody(text: string): Record<string, string | string[]> {
  const form: Record<string, string | string[]> = Object.create(null);
  if (text === '') return form;
  for (const pair of text.split('&')) {
    if (pair === '') continue;
    const equals = pair.indexOf('=');
    const rawName = equals === -1 ? pair : pair.slice(0, equals);
    const rawValue = equals === -1 ? '' : pair.slice(equals + 1);
    let name: string;
    let value: string;
    try {
      name = decodeURIComponent(rawName.replaceAll('+', ' '));
      value = decodeURIComponent(rawValue.replaceAll('+', ' '));
    } catch {
      throw new HttpError(
        problem(
          400,
          'malformed-body',
          'The form body is not valid: a %-escape is incomplete or does not spell UTF-8.',
          { title: 'Malformed request body' },
        ),
      );
    }
    const earlier = form[name];
    form[name] =
      earlier === undefined
        ? value
        : Array.isArray(earlier)
          ? [...earlier, value]
          : [earlier, value];
  }
  return form;
}

/**
 * How deeply a JSON body's arrays and objects may nest: Ruby's JSON (GitLab's)
 * refuses more than 100 levels by default, and no document either service
 * takes needs ten. Deeper bodies are refused before they are parsed, as
 * everything that walks a parsed body (the checks here, the schema validator)
 * recurses on it.
 */
export const MAX_JSON_NESTING = 100;

/**
 * Whether `text` nests arrays and objects deeper than `limit`, read in one
 * pass outside strings, without parsing it. A malformed text is the parser's
 * to refuse; this only says whether it may try.
 */
export function jsonNestsDeeperThan(text: string, limit: number): boolean {
  let depth = 0;
  let inString = false;
  for (let at = 0; at < text.length; at++) {
    const code = text.charCodeAt(at);
    if (inString) {
      if (code === 0x5c) at += 1;
      else if (code === 0x22) inString = false;
    } else if (code === 0x22) inString = true;
    else if (code === 0x5b || code === 0x7b) {
      depth += 1;
      if (depth > limit) return true;
    } else if (code === 0x5d || code === 0x7d) depth -= 1;
  }
  return false;
}

/**
 * JSON and form bodies read as bytes and decoded as strict UTF-8, so invalid
 * bytes are refused instead of silently becoming U+FFFD; then every string in
 * them is held to the service's text policy.
 */
export function installBodyParsers(
  app: FastifyInstance,
  options: { bodyLimit: number; text: BodyTextPolicy },
): void {
  const parseJson = app.getDefaultJsonParser('error', 'error');
  app.removeContentTypeParser(['application/json', 'text/plain']);
  app.addContentTypeParser(
    'application/json',
    { parseAs: 'buffer', bodyLimit: options.bodyLimit },
    (request: FastifyRequest, body: Buffer, done) => {
      let text: string;
      try {
        text = decodeUtf8(body);
      } catch (error) {
        done(error as Error, undefined);
        return;
      }
      if (jsonNestsDeeperThan(text, MAX_JSON_NESTING)) {
        done(
          new HttpError(
            problem(
              400,
              'malformed-body',
              `The JSON body nests arrays and objects more than ${MAX_JSON_NESTING} levels deep.`,
              { title: 'Malformed request body' },
            ),
          ),
          undefined,
        );
        return;
      }
      parseJson(request, text, (error, parsed) => {
        if (error) {
          done(error, undefined);
          return;
        }
        try {
          done(null, checkBodyText(parsed, options.text));
        } catch (refused) {
          done(refused as Error, undefined);
        }
      });
    },
  );
  app.addContentTypeParser(
    'application/x-www-form-urlencoded',
    { parseAs: 'buffer', bodyLimit: options.bodyLimit },
    async (_request: FastifyRequest, body: Buffer) =>
      checkBodyText(parseFormBody(decodeUtf8(body)), options.text),
  );
}
