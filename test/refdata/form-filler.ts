import type { LightMyRequestResponse } from 'fastify';
import type { Browser } from './page-client.js';

/** The names and values of a page's form controls, as a browser would submit them. */
export function formControls(page: string): Map<string, string> {
  const form = page.slice(page.indexOf('<form method="post" action="/authoring'));
  const controls = new Map<string, string>();
  const decode = (text: string) =>
    text
      .replaceAll('&quot;', '"')
      .replaceAll('&#39;', "'")
      .replaceAll('&lt;', '<')
      .replaceAll('&gt;', '>')
      .replaceAll('&amp;', '&');
  for (const match of form.matchAll(/<input ([^>]*)>/g)) {
    const attributes = match[1] ?? '';
    const name = /name="([^"]*)"/.exec(attributes)?.[1];
    if (!name || /type="(submit|radio|checkbox)"/.test(attributes)) continue;
    controls.set(decode(name), decode(/value="([^"]*)"/.exec(attributes)?.[1] ?? ''));
  }
  for (const match of form.matchAll(/<textarea [^>]*name="([^"]*)"[^>]*>([^<]*)<\/textarea>/g))
    controls.set(decode(match[1] ?? ''), decode(match[2] ?? ''));
  for (const match of form.matchAll(/<select [^>]*name="([^"]*)"[^>]*>([\s\S]*?)<\/select>/g)) {
    const selected = /<option value="([^"]*)" selected>/.exec(match[2] ?? '')?.[1] ?? '';
    controls.set(decode(match[1] ?? ''), decode(selected));
  }
  return controls;
}

/** Every scalar of a JSON body by its JSON Pointer. */
export function pointersOf(value: unknown, pointer = '', into = new Map<string, string>()) {
  if (Array.isArray(value))
    value.forEach((item, index) => {
      pointersOf(item, `${pointer}/${index}`, into);
    });
  else if (value !== null && typeof value === 'object')
    for (const [name, item] of Object.entries(value)) pointersOf(item, `${pointer}/${name}`, into);
  else into.set(pointer, String(value));
  return into;
}

/** The lists a body fills and how many rows each needs. */
function listsOf(value: unknown, pointer = '', into = new Map<string, number>()) {
  if (Array.isArray(value)) {
    into.set(pointer, value.length);
    value.forEach((item, index) => {
      listsOf(item, `${pointer}/${index}`, into);
    });
  } else if (value !== null && typeof value === 'object')
    for (const [name, item] of Object.entries(value)) listsOf(item, `${pointer}/${name}`, into);
  return into;
}

/**
 * Fills a family's form as a person would, from a JSON body: Add buttons until
 * each list has its rows, then every field (a reference by typing its IRI),
 * then Save. Fails when the body has a field the form does not show.
 */
export async function fillAndSave(
  browser: Browser,
  action: string,
  firstPage: string,
  body: Record<string, unknown>,
): Promise<LightMyRequestResponse> {
  let page = firstPage;
  const rows = (controls: Map<string, string>, list: string) =>
    new Set(
      [...controls.keys()]
        .map((name) => name.replace(/^pick:/, ''))
        .filter((name) => name.startsWith(`${list}/`))
        .map((name) => name.slice(list.length + 1).split('/')[0]),
    ).size;
  for (const [list, wanted] of listsOf(body)) {
    for (let guard = 0; rows(formControls(page), list) < wanted && guard < 50; guard += 1) {
      const response = await browser.post(action, {
        ...Object.fromEntries(formControls(page)),
        _action: `add:${list}`,
      });
      if (response.statusCode !== 200) throw new Error(`add:${list} → ${response.statusCode}`);
      page = response.body;
    }
  }
  const controls = formControls(page);
  const fields: Record<string, string> = Object.fromEntries(controls);
  for (const [pointer, value] of pointersOf(body)) {
    if (controls.has(`pick:${pointer}`)) fields[`pick:${pointer}`] = value;
    else if (controls.has(pointer)) fields[pointer] = value;
    else throw new Error(`The form has no field for ${pointer}`);
  }
  return browser.post(action, { ...fields, _action: 'save' });
}
