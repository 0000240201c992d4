/**
 * HTML built from tagged templates that escape every interpolated value unless it
 * is itself markup made by `html` (or deliberately marked with `trusted`). Escaping
 * by default is the point: a forgotten call cannot open a cross-site scripting hole.
 * (`@kitajs/html`, the obvious library, leaves JSX children unescaped unless marked.)
 */
export class Markup {
  constructor(readonly text: string) {}
  toString(): string {
    return this.text;
  }
}

type Value = Markup | string | number | boolean | null | undefined | readonly Value[];

const ESCAPES: Record<string, string> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&#39;',
};

export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (character) => ESCAPES[character] ?? character);
}

function render(value: Value): string {
  if (value instanceof Markup) return value.text;
  if (Array.isArray(value)) return value.map(render).join('');
  if (value === null || value === undefined || value === false) return '';
  return escapeHtml(String(value));
}

export function html(strings: TemplateStringsArray, ...values: Value[]): Markup {
  let out = strings[0] ?? '';
  for (let index = 0; index < values.length; index += 1) {
    out += render(values[index] as Value) + (strings[index + 1] ?? '');
  }
  return new Markup(out);
}

/** Markup from a source we produce ourselves (an SVG from the QR encoder). */
export function trusted(text: string): Markup {
  return new Markup(text);
}
