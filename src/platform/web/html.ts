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

const RELATIVE = new Intl.RelativeTimeFormat('en', { numeric: 'auto' });
const UNITS: [Intl.RelativeTimeFormatUnit, number][] = [
  ['year', 365 * 24 * 60 * 60 * 1000],
  ['month', 30 * 24 * 60 * 60 * 1000],
  ['week', 7 * 24 * 60 * 60 * 1000],
  ['day', 24 * 60 * 60 * 1000],
  ['hour', 60 * 60 * 1000],
  ['minute', 60 * 1000],
];

/** "3 days ago", "in 2 weeks", "just now": how far `time` is from `now`, in words. */
export function relativeTime(time: number, now: number): string {
  const difference = time - now;
  for (const [unit, length] of UNITS) {
    if (Math.abs(difference) >= length) {
      return RELATIVE.format(Math.trunc(difference / length), unit);
    }
  }
  return 'just now';
}

/** The exact moment, unambiguous for every reader: "2026-11-23 14:05 UTC". */
export function exactTime(time: number): string {
  return `${new Date(time).toISOString().slice(0, 16).replace('T', ' ')} UTC`;
}

/**
 * A moment as people read it ("3 days ago"), with the exact time on hover and
 * in the machine-readable `datetime`; `never` when there is none.
 */
export function timeTag(time: number | null, now: number, never = 'Never'): Markup {
  if (time === null) return html`${never}`;
  const moment = Number(time);
  return html`<time datetime="${new Date(moment).toISOString()}" title="${exactTime(moment)}">${relativeTime(moment, now)}</time>`;
}
