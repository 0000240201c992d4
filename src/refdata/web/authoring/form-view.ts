import { html, type Markup, trusted } from '../../../platform/web/html.js';
import { REFERS_TO, type RefersTo } from '../../families/common.js';
import { humanize } from '../../families/field-words.js';
import { pointerTo } from '../../resources/field-changes.js';
import { renderSymbolBody } from '../../symbols/render.js';
import { svgOfPathData } from '../../symbols/svg.js';
import { statusLabel } from '../links.js';
import { choicesOf, type Draft, type FieldSchema, kindOf } from './form-model.js';
import {
  familiesOf,
  type OpenPick,
  PICK_CHOICE,
  PICK_TEXT,
  type PickedResource,
} from './references.js';

/** Everything a form shows besides its schema and values. */
export interface FormState {
  /** Messages by the JSON Pointer of the field they concern. */
  errors: ReadonlyMap<string, readonly string[]>;
  /** The resources reference fields hold, to show by name. */
  picked: ReadonlyMap<string, PickedResource>;
  /** References still to be chosen. */
  open: ReadonlyMap<string, OpenPick>;
  /** The family written (what `same-family` references mean). */
  ownFamily: string;
  familyLabel(key: string): string;
  /** Fields that cannot change any more (on edit), with why. */
  locked: ReadonlyMap<string, string>;
  /** The whole form's values, for fields drawn with their siblings. */
  root: Draft;
}

/** The order fields appear in: what it is, then its own fields, then the rest, then why. */
const FIRST = ['name', 'description', 'ontology'];
const LATER = [
  'translations',
  'synonyms',
  'replaces',
  'packageName',
  'relatedTerms',
  'definitionSources',
];
const LAST = ['changeJustification'];

function orderedFields(schema: FieldSchema): [string, FieldSchema][] {
  const entries = Object.entries(schema.properties ?? {});
  const rank = (name: string) =>
    FIRST.includes(name)
      ? FIRST.indexOf(name)
      : LAST.includes(name)
        ? 300
        : LATER.includes(name)
          ? 200 + LATER.indexOf(name)
          : 100;
  return entries
    .map((entry, index) => ({ entry, index }))
    .sort((a, b) => rank(a.entry[0]) - rank(b.entry[0]) || a.index - b.index)
    .map(({ entry }) => entry);
}

function labelOf(schema: FieldSchema, name: string): string {
  return schema.title ?? humanize(name);
}

/** "Related terms" to "Related term", for a row's legend. */
export function singular(label: string): string {
  if (/ies$/.test(label)) return label.replace(/ies$/, 'y');
  if (/(ss|sh|ch|x)es$/.test(label)) return label.replace(/es$/, '');
  if (/[^s]s$/.test(label)) return label.slice(0, -1);
  return label;
}

/** An element ID for the field at a pointer. */
export function fieldId(pointer: string): string {
  return `f${pointer.replace(/[^A-Za-z0-9_]/g, '-')}`;
}

/** A choice's words: an IRI by its last segment ("averageQualifier"). */
function choiceLabel(value: string): string {
  return /^[a-z][a-z0-9+.-]*:/i.test(value) ? (value.split(/[#/]/).pop() ?? value) : value;
}

interface FieldPlace {
  schema: FieldSchema;
  pointer: string;
  label: string;
  optional: boolean;
  draft: Draft | undefined;
}

function messagesAt(state: FormState, pointer: string): readonly string[] {
  return state.errors.get(pointer) ?? [];
}

function describedBy(...ids: (string | undefined)[]): Markup {
  const list = ids.filter(Boolean).join(' ');
  return list ? html` aria-describedby="${list}"` : html``;
}

/** How IRI fields' descriptions end, which the picker's own hint says better. */
const IRI_NOTE = / \(an absolute http, https or urn IRI\)$/;

function hintOf(place: FieldPlace, id: string): { id: string | undefined; markup: Markup } {
  const text = place.schema.description?.replace(IRI_NOTE, '');
  if (!text) return { id: undefined, markup: html`` };
  return { id: `${id}-hint`, markup: html`<p class="hint" id="${id}-hint">${text}</p>` };
}

function errorsOf(
  state: FormState,
  place: FieldPlace,
  id: string,
): { id: string | undefined; markup: Markup } {
  const messages = messagesAt(state, place.pointer);
  if (messages.length === 0) return { id: undefined, markup: html`` };
  return {
    id: `${id}-error`,
    markup: html`<p class="field-error" id="${id}-error">${messages.map((message, index) => html`${index > 0 ? html`<br>` : html``}${place.label} ${message}`)}</p>`,
  };
}

/**
 * What a label says of whether the field must be filled: nothing when it
 * must, "(optional)" when it need not, and when another field decides, which.
 */
function requirementNote(place: FieldPlace): Markup {
  if (!place.optional) return html``;
  const when = place.schema['x-required-when'];
  return when
    ? html` <span class="optional">(required ${when})</span>`
    : html` <span class="optional">(optional)</span>`;
}

function labelMarkup(place: FieldPlace, id: string): Markup {
  return html`<label for="${id}">${place.label}${requirementNote(place)}</label>`;
}

function scalarField(place: FieldPlace, state: FormState): Markup {
  const kind = kindOf(place.schema);
  const value = typeof place.draft === 'string' ? place.draft : '';
  const id = fieldId(place.pointer);
  if (kind === 'hidden')
    return html`<input type="hidden" name="${place.pointer}" value="${value}">`;
  const hint = hintOf(place, id);
  const error = errorsOf(state, place, id);
  const invalid = error.id ? html` aria-invalid="true"` : html``;
  const locked = state.locked.get(place.pointer);
  if (kind === 'reference') return referenceField(place, state, { id, hint, error, locked });
  if (kind === 'drawing') return drawingField(place, state, { id, hint, error });
  let control: Markup;
  if (locked !== undefined) {
    control = html`<input type="text" id="${id}" name="${place.pointer}" value="${value}" readonly${describedBy(`${id}-locked`, hint.id)}>
<p class="hint" id="${id}-locked">Cannot change: ${locked}.</p>`;
  } else if (kind === 'choice' || kind === 'yes-no') {
    const options =
      kind === 'choice'
        ? choicesOf(place.schema).map((choice) => ({ value: choice, label: choiceLabel(choice) }))
        : [
            { value: 'true', label: 'Yes' },
            { value: 'false', label: 'No' },
          ];
    const known = options.some((option) => option.value === value);
    control = html`<select id="${id}" name="${place.pointer}"${describedBy(hint.id, error.id)}${invalid}>
<option value=""${value === '' ? html` selected` : html``}>${place.optional ? 'Not stated' : 'Choose…'}</option>${options.map(
      (option) =>
        html`<option value="${option.value}"${option.value === value ? html` selected` : html``}>${option.label}</option>`,
    )}${!known && value !== '' ? html`<option value="${value}" selected>${value}</option>` : html``}
</select>`;
  } else if (kind === 'long-text') {
    control = html`<textarea id="${id}" name="${place.pointer}" rows="${(place.schema.maxLength ?? 0) > 50_000 ? '10' : '4'}"${describedBy(hint.id, error.id)}${invalid}>${value}</textarea>`;
  } else {
    const numeric = kind === 'integer' || kind === 'number';
    control = html`<input type="text" id="${id}" name="${place.pointer}" value="${value}"${
      numeric
        ? html` inputmode="${kind === 'integer' ? 'numeric' : 'decimal'}" class="number"`
        : html``
    }${place.schema.maxLength ? html` maxlength="${String(place.schema.maxLength)}"` : html``}${describedBy(hint.id, error.id)}${invalid}>`;
  }
  return html`<div class="field">${labelMarkup(place, id)}
${control}${hint.markup}${error.markup}</div>`;
}

/** What a field's control is described by: its element ID, its hint and its errors. */
interface FieldParts {
  id: string;
  hint: { id: string | undefined; markup: Markup };
  error: { id: string | undefined; markup: Markup };
  /** Why it cannot change any more, when it cannot. */
  locked?: string | undefined;
}

function referenceField(place: FieldPlace, state: FormState, parts: FieldParts): Markup {
  const { id, hint, error, locked } = parts;
  const refersTo = place.schema[REFERS_TO] as RefersTo;
  const families = familiesOf(refersTo, state.ownFamily);
  const iri = typeof place.draft === 'string' ? place.draft : '';
  const picked = state.picked.get(iri);
  const open = state.open.get(place.pointer);
  const shown = open?.typed ?? picked?.name ?? iri;
  const kinds = families.map((family) => state.familyLabel(family)).join(' or ');
  const article = /^[aeiou]/i.test(kinds) ? 'an' : 'a';
  const how = `Type a name and choose${kinds ? ` ${article} ${kinds}` : ''}${refersTo.external ? ', or give an IRI' : ''}.`;
  const pickedId = `${id}-picked`;
  const openError = open
    ? html`<p class="field-error" id="${id}-open">${place.label} ${open.message}</p>`
    : html``;
  const pickedLine = picked
    ? html`<p class="picked" id="${pickedId}">${picked.name}: ${state.familyLabel(picked.family)}${picked.library ? html` in ${picked.library}` : html``}, <span class="status status-${picked.status}">${statusLabel(picked.status)}</span></p>`
    : iri !== '' && !open
      ? html`<p class="picked" id="${pickedId}">Outside this service: <span class="iri">${iri}</span></p>`
      : html`<p class="picked" id="${pickedId}" hidden></p>`;
  const choices =
    open && open.options.length > 0
      ? html`<fieldset class="choices"><legend>Which ${singular(place.label).toLowerCase()} do you mean?</legend>${open.options.map(
          (option, index) =>
            html`<div><input type="radio" id="${id}-choice-${String(index)}" name="${PICK_CHOICE}${place.pointer}" value="${option.iri}"><label class="inline" for="${id}-choice-${String(index)}">${option.name} <span class="hint">${state.familyLabel(option.family)}${option.library ? html` in ${option.library}` : html``}, ${statusLabel(option.status)}</span></label></div>`,
        )}</fieldset>`
      : html``;
  const invalid = error.id || open ? html` aria-invalid="true"` : html``;
  return html`<div class="field picker" data-families="${families.join(',')}" data-external="${refersTo.external ? 'true' : 'false'}">${labelMarkup(place, id)}
<input type="hidden" name="${place.pointer}" value="${iri}">
<input type="text" id="${id}" name="${locked === undefined ? `${PICK_TEXT}${place.pointer}` : ''}" value="${shown}" autocomplete="off"${locked === undefined ? html`` : html` readonly`}${describedBy(pickedId, hint.id, error.id, open ? `${id}-open` : undefined)}${invalid}>
${pickedLine}${locked === undefined ? html`<p class="hint">${how}</p>` : html`<p class="hint">Cannot change: ${locked}.</p>`}${hint.markup}${error.markup}${openError}${choices}</div>`;
}

/** A number typed in a field of the form, if it is one. */
function numberAt(draft: Draft | undefined): number | undefined {
  if (typeof draft !== 'string' || draft.trim() === '') return undefined;
  const value = Number(draft);
  return Number.isFinite(value) ? value : undefined;
}

/**
 * An SVG field drawn as it stands (only the paths the geometry check lets
 * through), with the centre of rotation and the connection points of the same
 * form on it; script lets a click set them and a file fill the text.
 */
function drawingField(place: FieldPlace, state: FormState, parts: FieldParts): Markup {
  const { id, hint, error } = parts;
  const root = typeof state.root === 'object' && !Array.isArray(state.root) ? state.root : {};
  const value = typeof place.draft === 'string' ? place.draft : '';
  const width = numberAt(root.width);
  const height = numberAt(root.height);
  const centre =
    typeof root.centerOfRotation === 'object' && !Array.isArray(root.centerOfRotation)
      ? root.centerOfRotation
      : {};
  const points = (Array.isArray(root.connectionPoints) ? root.connectionPoints : []).flatMap(
    (row, index) => {
      if (typeof row !== 'object' || Array.isArray(row)) return [];
      const x = numberAt(row.x);
      const y = numberAt(row.y);
      if (x === undefined || y === undefined) return [];
      return [
        {
          id: typeof row.id === 'string' && row.id !== '' ? row.id : `point ${index + 1}`,
          x,
          y,
          direction: numberAt(row.direction) ?? 0,
        },
      ];
    },
  );
  const drawable =
    width !== undefined && height !== undefined && width > 0 && height > 0 && value.trim() !== '';
  const drawing = drawable
    ? renderSymbolBody({
        name: 'Drawing',
        width,
        height,
        shape: value.trimStart().startsWith('<') ? value : svgOfPathData(value, width, height),
        centerOfRotation: {
          x: numberAt(centre.x) ?? width / 2,
          y: numberAt(centre.y) ?? height / 2,
        },
        connectionPoints: points,
      })
    : undefined;
  const invalid = error.id ? html` aria-invalid="true"` : html``;
  return html`<div class="field drawing" data-drawing="${id}">${labelMarkup(place, id)}
<textarea id="${id}" name="${place.pointer}" rows="8" spellcheck="false"${describedBy(hint.id, error.id)}${invalid}>${value}</textarea>
${hint.markup}<p class="hint">Paste an SVG document or path data (M0 0 L10 10…); its box is the width and height below.</p>${error.markup}
<figure class="symbol-drawing drawing-preview" id="${id}-preview"><div role="img" aria-label="The drawing as it stands, with ${String(points.length)} connection points">${
    drawing
      ? trusted(drawing)
      : html`<p class="hint">Nothing to draw yet: give the shape, width and height.</p>`
  }</div><figcaption><span class="legend-point">●</span> connection point, <span class="legend-centre">+</span> centre of rotation.</figcaption></figure>
<p><button type="submit" name="_action" value="check" formnovalidate>Check the drawing</button></p></div>`;
}

function listField(place: FieldPlace, state: FormState): Markup {
  const id = fieldId(place.pointer);
  const rows = Array.isArray(place.draft) ? place.draft : [];
  const items = place.schema.items ?? {};
  const rowLabel = singular(place.label);
  const hint = hintOf(place, id);
  const error = errorsOf(state, place, id);
  const full = rows.length >= (place.schema.maxItems ?? 1000);
  const locked = state.locked.get(place.pointer);
  return html`<fieldset class="list" id="${id}"${describedBy(hint.id, error.id)}><legend>${place.label}${requirementNote(place)}</legend>
${hint.markup}${error.markup}${
  rows.length === 0 ? html`<p class="empty">None yet.</p>` : html``
}<ol class="rows">${rows.map((row, index) => {
    const pointer = pointerTo(place.pointer, index);
    const name = `${rowLabel} ${index + 1}`;
    const inner = field(
      { schema: items, pointer, label: name, optional: false, draft: row },
      state,
    );
    const actions =
      locked === undefined
        ? html`<div class="row-actions">${
            index > 0
              ? html`<button type="submit" name="_action" value="up:${pointer}" formnovalidate aria-label="Move ${name.toLowerCase()} up">Up</button>`
              : html``
          }${
            index < rows.length - 1
              ? html`<button type="submit" name="_action" value="down:${pointer}" formnovalidate aria-label="Move ${name.toLowerCase()} down">Down</button>`
              : html``
          }<button type="submit" name="_action" value="remove:${pointer}" formnovalidate aria-label="Remove ${name.toLowerCase()}">Remove</button></div>`
        : html``;
    return html`<li class="row">${inner}${actions}</li>`;
  })}</ol>${
    full || locked !== undefined
      ? html``
      : html`<button type="submit" name="_action" value="add:${place.pointer}" formnovalidate class="add">Add ${rowLabel.toLowerCase()}</button>`
  }</fieldset>`;
}

function groupField(place: FieldPlace, state: FormState): Markup {
  const id = fieldId(place.pointer);
  const hint = hintOf(place, id);
  const error = errorsOf(state, place, id);
  const object =
    place.draft !== undefined && typeof place.draft === 'object' && !Array.isArray(place.draft)
      ? place.draft
      : {};
  const required = new Set(place.schema.required ?? []);
  return html`<fieldset class="group" id="${id}"${describedBy(hint.id, error.id)}><legend>${place.label}${requirementNote(place)}</legend>
${hint.markup}${error.markup}${Object.entries(place.schema.properties ?? {}).map(([name, schema]) =>
  field(
    {
      schema,
      pointer: pointerTo(place.pointer, name),
      label: labelOf(schema, name),
      optional: !required.has(name),
      draft: object[name],
    },
    state,
  ),
)}</fieldset>`;
}

function field(place: FieldPlace, state: FormState): Markup {
  switch (kindOf(place.schema)) {
    case 'list':
      return listField(place, state);
    case 'group':
      return groupField(place, state);
    default:
      return scalarField(place, state);
  }
}

/** Every field of a family's form, from its schema, with what was typed and what is wrong. */
export function formFields(schema: FieldSchema, draft: Draft, state: FormState): Markup {
  const object = typeof draft === 'object' && !Array.isArray(draft) ? draft : {};
  const required = new Set(schema.required ?? []);
  return html`${orderedFields(schema).map(([name, fieldSchema]) =>
    field(
      {
        schema: fieldSchema,
        pointer: pointerTo('', name),
        label: labelOf(fieldSchema, name),
        optional: !required.has(name),
        draft: object[name],
      },
      state,
    ),
  )}`;
}

/** Schema validation's words (the API's, which clients may match) as a form says them to people. */
const PLAIN_WORDS: readonly [RegExp, (...found: string[]) => string][] = [
  [/^must NOT have fewer than 1 items$/, () => 'needs at least one'],
  [/^must NOT have fewer than (\d+) items$/, (n) => `needs at least ${n}`],
  [/^must NOT have more than (\d+) items$/, (n) => `may have at most ${n}`],
  [/^must NOT have fewer than 1 characters$/, () => 'is required'],
  [/^must NOT have more than (\d+) characters$/, (n) => `is too long: at most ${n} characters`],
  [/^must match pattern ".*"$/, () => 'is not in the form its hint describes'],
  [/^must be integer$/, () => 'must be a whole number'],
  [/^must be number$/, () => 'must be a number'],
  [/^must be >= (\S+)$/, (n) => `must be at least ${n}`],
  [/^must be <= (\S+)$/, (n) => `must be at most ${n}`],
];

export function plainWords(detail: string): string {
  for (const [pattern, words] of PLAIN_WORDS) {
    const found = pattern.exec(detail);
    if (found) return words(...found.slice(1));
  }
  return detail;
}

/** The fields a pointer's messages can be shown beside: the pointer, or the nearest field above it. */
export function placeErrors(
  errors: readonly { field: string; detail: string }[],
  shownAt: (pointer: string) => boolean,
): Map<string, string[]> {
  const placed = new Map<string, string[]>();
  for (const error of errors) {
    let pointer = error.field;
    let detail = plainWords(error.detail);
    while (pointer !== '' && !shownAt(pointer)) {
      const step = pointer.slice(pointer.lastIndexOf('/') + 1);
      pointer = pointer.slice(0, pointer.lastIndexOf('/'));
      detail = `${step.replaceAll('~1', '/').replaceAll('~0', '~')} ${detail}`;
    }
    const list = placed.get(pointer) ?? [];
    list.push(detail);
    placed.set(pointer, list);
  }
  return placed;
}
