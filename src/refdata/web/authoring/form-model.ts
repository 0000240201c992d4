import { type PageReading, REFERS_TO, type RefersTo } from '../../families/common.js';
import { pointerTo } from '../../resources/field-changes.js';

/**
 * A family's request schema, read as a form: the JSON Schema keywords TypeBox
 * writes that decide which control a field gets.
 */
export interface FieldSchema {
  type?: string;
  title?: string;
  description?: string;
  properties?: Record<string, FieldSchema>;
  required?: string[];
  items?: FieldSchema;
  anyOf?: FieldSchema[];
  const?: unknown;
  minLength?: number;
  maxLength?: number;
  minItems?: number;
  maxItems?: number;
  minimum?: number;
  maximum?: number;
  format?: string;
  [REFERS_TO]?: RefersTo;
  /**
   * `hidden`: carried by the form, not shown (which stored value a row is);
   * `drawing`: an SVG drawn beside its text, with the centre of rotation and
   * connection points of the same body set on it.
   */
  'x-form'?: 'hidden' | 'drawing';
  /** A section of the resource's page of its own shows it (families/common.ts). */
  'x-page'?: PageReading;
  /** When another field makes this optional one required, in words (families/common.ts). */
  'x-required-when'?: string;
}

/**
 * A body as a form holds it: every scalar as the text in its field, lists and
 * groups as they are nested. What was typed stays exactly as typed, so a refused
 * form shows it again.
 */
export type Draft = string | Draft[] | { [field: string]: Draft };

export type FieldKind =
  | 'group'
  | 'list'
  | 'choice'
  | 'yes-no'
  | 'integer'
  | 'number'
  | 'reference'
  | 'hidden'
  | 'drawing'
  | 'long-text'
  | 'text';

/** Text this long or longer is written in a text area. */
const LONG_TEXT = 2000;

export function kindOf(schema: FieldSchema): FieldKind {
  if (schema.anyOf?.every((option) => option.const !== undefined)) return 'choice';
  switch (schema.type) {
    case 'object':
      return 'group';
    case 'array':
      return 'list';
    case 'boolean':
      return 'yes-no';
    case 'integer':
      return 'integer';
    case 'number':
      return 'number';
  }
  if (schema['x-form'] === 'hidden') return 'hidden';
  if (schema['x-form'] === 'drawing') return 'drawing';
  if (schema[REFERS_TO]) return 'reference';
  return (schema.maxLength ?? 0) >= LONG_TEXT ? 'long-text' : 'text';
}

/** The values a choice allows. */
export function choicesOf(schema: FieldSchema): string[] {
  return (schema.anyOf ?? []).map((option) => String(option.const));
}

/** An empty field of `schema`; lists start with as many rows as they need. */
export function emptyDraft(schema: FieldSchema): Draft {
  const kind = kindOf(schema);
  if (kind === 'group') {
    return Object.fromEntries(
      Object.entries(schema.properties ?? {}).map(([name, field]) => [name, emptyDraft(field)]),
    );
  }
  if (kind === 'list') {
    const items = schema.items ?? {};
    return Array.from({ length: schema.minItems ?? 0 }, () => emptyDraft(items));
  }
  return '';
}

/** A stored body as the form shows it. */
export function draftOf(schema: FieldSchema, value: unknown): Draft {
  const kind = kindOf(schema);
  if (kind === 'group') {
    const object = value !== null && typeof value === 'object' ? value : {};
    return Object.fromEntries(
      Object.entries(schema.properties ?? {}).map(([name, field]) => [
        name,
        draftOf(field, (object as Record<string, unknown>)[name]),
      ]),
    );
  }
  if (kind === 'list') {
    return Array.isArray(value) ? value.map((item) => draftOf(schema.items ?? {}, item)) : [];
  }
  if (value === undefined || value === null) return '';
  return typeof value === 'object' ? JSON.stringify(value) : String(value);
}

/** Submitted form fields, by name (the JSON Pointer of the value they hold). */
export type FormFields = ReadonlyMap<string, string>;

/** The indexes of a list's rows among the submitted fields, in order. */
function rowsOf(fields: FormFields, pointer: string): number[] {
  const rows = new Set<number>();
  const prefix = `${pointer}/`;
  for (const name of fields.keys()) {
    if (!name.startsWith(prefix)) continue;
    const index = name.slice(prefix.length).split('/')[0] ?? '';
    if (/^\d{1,4}$/.test(index)) rows.add(Number(index));
  }
  return [...rows].sort((a, b) => a - b);
}

/** The form's fields read back as a Draft of `schema`. */
export function draftFromFields(schema: FieldSchema, fields: FormFields, pointer = ''): Draft {
  const kind = kindOf(schema);
  if (kind === 'group') {
    return Object.fromEntries(
      Object.entries(schema.properties ?? {}).map(([name, field]) => [
        name,
        draftFromFields(field, fields, pointerTo(pointer, name)),
      ]),
    );
  }
  if (kind === 'list') {
    const limit = schema.maxItems ?? 1000;
    return rowsOf(fields, pointer)
      .slice(0, limit + 1)
      .map((row) => draftFromFields(schema.items ?? {}, fields, pointerTo(pointer, row)));
  }
  return fields.get(pointer) ?? '';
}

const NUMBER = /^[-+]?(\d+(\.\d*)?|\.\d+)([eE][-+]?\d+)?$/;

/**
 * The JSON body a Draft stands for, ready for the same validation as the API's:
 * empty fields and empty rows left out, numbers and yes/no read, anything that
 * cannot be read kept as typed so validation names it.
 */
export function bodyOf(schema: FieldSchema, draft: Draft | undefined): unknown {
  const kind = kindOf(schema);
  if (kind === 'group') {
    const object =
      draft !== undefined && typeof draft === 'object' && !Array.isArray(draft) ? draft : {};
    const body: Record<string, unknown> = {};
    for (const [name, field] of Object.entries(schema.properties ?? {})) {
      let value = bodyOf(field, object[name]);
      // A required list left empty is sent empty, so its own minimum is what is said.
      if (value === undefined && kindOf(field) === 'list' && schema.required?.includes(name))
        value = [];
      if (value !== undefined) body[name] = value;
    }
    return Object.keys(body).length > 0 ? body : undefined;
  }
  if (kind === 'list') {
    const rows = Array.isArray(draft) ? draft : [];
    const items = rows
      .map((row) => bodyOf(schema.items ?? {}, row))
      .filter((item) => item !== undefined);
    return items.length > 0 ? items : undefined;
  }
  const text = typeof draft === 'string' ? draft : '';
  if (text === '') return undefined;
  switch (kind) {
    case 'yes-no':
      return text === 'true' ? true : text === 'false' ? false : text;
    case 'integer':
    case 'number':
      return NUMBER.test(text.trim()) ? Number(text.trim()) : text;
    case 'choice':
      return schema.anyOf?.find((option) => String(option.const) === text)?.const ?? text;
    default:
      return text;
  }
}

/** The schema of the field at `pointer`, if the schema has one there. */
export function schemaAt(schema: FieldSchema, pointer: string): FieldSchema | undefined {
  let current: FieldSchema | undefined = schema;
  for (const step of pointer.split('/').slice(1)) {
    if (!current) return undefined;
    const name = step.replaceAll('~1', '/').replaceAll('~0', '~');
    current = kindOf(current) === 'list' ? current.items : current.properties?.[name];
  }
  return current;
}

function draftAt(draft: Draft, pointer: string): Draft | undefined {
  let current: Draft | undefined = draft;
  for (const step of pointer.split('/').slice(1)) {
    if (current === undefined || typeof current === 'string') return undefined;
    const name = step.replaceAll('~1', '/').replaceAll('~0', '~');
    current = Array.isArray(current) ? current[Number(name)] : current[name];
  }
  return current;
}

/** What a list button asks: add a row, remove one, or move one up or down. */
export interface ListAction {
  verb: 'add' | 'remove' | 'up' | 'down';
  /** The list for `add`; the row for the others. */
  pointer: string;
}

export function parseListAction(value: string): ListAction | undefined {
  const match = /^(add|remove|up|down):(\/.*)$/.exec(value);
  if (!match) return undefined;
  return { verb: match[1] as ListAction['verb'], pointer: match[2] as string };
}

/** The Draft after a list button; unchanged when the button names no list of this form. */
export function applyListAction(schema: FieldSchema, draft: Draft, action: ListAction): Draft {
  const listPointer =
    action.verb === 'add'
      ? action.pointer
      : action.pointer.slice(0, action.pointer.lastIndexOf('/'));
  const listSchema = schemaAt(schema, listPointer);
  const list = draftAt(draft, listPointer);
  if (!listSchema || kindOf(listSchema) !== 'list' || !Array.isArray(list)) return draft;
  const index = Number(action.pointer.slice(action.pointer.lastIndexOf('/') + 1));
  switch (action.verb) {
    case 'add':
      if (list.length < (listSchema.maxItems ?? 1000))
        list.push(emptyDraft(listSchema.items ?? {}));
      break;
    case 'remove':
      if (index < list.length) list.splice(index, 1);
      break;
    case 'up':
    case 'down': {
      const other = action.verb === 'up' ? index - 1 : index + 1;
      if (index < list.length && other >= 0 && other < list.length) {
        const row = list[index] as Draft;
        list[index] = list[other] as Draft;
        list[other] = row;
      }
      break;
    }
  }
  return draft;
}

/** Every reference field of a Draft: its pointer, what it refers to, and its value. */
export function referencesIn(
  schema: FieldSchema,
  draft: Draft,
  pointer = '',
): { pointer: string; refersTo: RefersTo; value: string }[] {
  const kind = kindOf(schema);
  if (kind === 'reference' && typeof draft === 'string') {
    return [{ pointer, refersTo: schema[REFERS_TO] as RefersTo, value: draft }];
  }
  if (kind === 'group' && typeof draft === 'object' && !Array.isArray(draft)) {
    return Object.entries(schema.properties ?? {}).flatMap(([name, field]) =>
      draft[name] === undefined
        ? []
        : referencesIn(field, draft[name] as Draft, pointerTo(pointer, name)),
    );
  }
  if (kind === 'list' && Array.isArray(draft)) {
    return draft.flatMap((row, index) =>
      referencesIn(schema.items ?? {}, row, pointerTo(pointer, index)),
    );
  }
  return [];
}

/** Sets the scalar at `pointer` of a Draft. */
export function setDraftValue(draft: Draft, pointer: string, value: string): void {
  const steps = pointer.split('/').slice(1);
  const last = steps.pop();
  const parent = draftAt(draft, steps.length > 0 ? `/${steps.join('/')}` : '');
  if (last === undefined || parent === undefined || typeof parent === 'string') return;
  const name = last.replaceAll('~1', '/').replaceAll('~0', '~');
  if (Array.isArray(parent)) parent[Number(name)] = value;
  else parent[name] = value;
}
