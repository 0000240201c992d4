import { html, type Markup } from './html.js';

/** A refused form's messages, keyed by field name. */
export type FieldErrors = Partial<Record<string, string>>;

interface TextFieldOptions {
  name: string;
  label: string;
  value: string;
  /** The message to show beside the field when the form was refused. */
  error?: string | undefined;
  /** A hint shown under the field and read with it. */
  hint?: string | undefined;
  type?: 'text' | 'email' | 'url' | 'password';
  maxLength?: number;
  required?: boolean;
  autocomplete?: string;
  multiline?: boolean;
  /** The field to type in first on a page that is about nothing else. */
  autofocus?: boolean;
}

/**
 * A labelled text field that keeps what was typed, and, when refused, says why
 * beside it: the message is tied to the field (`aria-describedby`) and the field
 * marked invalid, so a screen reader hears both together.
 */
export function textField(options: TextFieldOptions): Markup {
  const hintId = options.hint ? `${options.name}-hint` : undefined;
  const errorId = options.error ? `${options.name}-error` : undefined;
  const describedBy = [hintId, errorId].filter(Boolean).join(' ');
  const attributes = html`id="${options.name}" name="${options.name}"${
    options.maxLength ? html` maxlength="${String(options.maxLength)}"` : html``
  }${options.required ? html` required` : html``}${
    options.autocomplete ? html` autocomplete="${options.autocomplete}"` : html``
  }${options.autofocus ? html` autofocus` : html``}${describedBy ? html` aria-describedby="${describedBy}"` : html``}${
    options.error ? html` aria-invalid="true"` : html``
  }`;
  const control = options.multiline
    ? html`<textarea ${attributes} rows="3">${options.value}</textarea>`
    : html`<input type="${options.type ?? 'text'}" ${attributes} value="${options.value}">`;
  return html`<label for="${options.name}">${options.label}</label>
${control}${hintId ? html`<p class="hint" id="${hintId}">${options.hint}</p>` : html``}${fieldError(errorId, options.error)}`;
}

/** The message beside a refused field (nothing when the field is fine). */
export function fieldError(id: string | undefined, message: string | undefined): Markup {
  return id && message ? html`<p class="field-error" id="${id}">${message}</p>` : html``;
}

/** One-line summary for the top of a refused form, so the first thing read says it. */
export function errorSummary(errors: FieldErrors): string | undefined {
  const count = Object.values(errors).filter(Boolean).length;
  if (count === 0) return undefined;
  return count === 1
    ? 'The form was not saved: one field needs attention.'
    : `The form was not saved: ${count} fields need attention.`;
}

/**
 * C0 and C1 control characters other than tab, line feed and carriage return.
 * No field of a form has a use for them, and some (NUL above all) hide text
 * from people or are cut off by storage.
 */
const CONTROL_CHARACTER = /(?![\t\n\r])\p{Cc}/u;

/** The name of the first field of a submitted form holding a control character. */
export function fieldWithControlCharacter(body: unknown): string | undefined {
  if (body === null || typeof body !== 'object') return undefined;
  for (const [name, value] of Object.entries(body)) {
    const values = Array.isArray(value) ? value : [value];
    if (values.some((item) => typeof item === 'string' && CONTROL_CHARACTER.test(item))) {
      return name;
    }
  }
  return undefined;
}
