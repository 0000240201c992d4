import { SaxesParser } from 'saxes';

const SVG_NS = 'http://www.w3.org/2000/svg';
const XMLNS_NS = 'http://www.w3.org/2000/xmlns/';

/** What a geometry-only symbol may say on its root and on each path. */
const SVG_ATTRIBUTES = new Set(['viewBox', 'width', 'height', 'version']);
const PATH_ATTRIBUTES = new Set([
  'd',
  'id',
  'fill',
  'fill-rule',
  'clip-rule',
  'stroke',
  'stroke-width',
  'stroke-linecap',
  'stroke-linejoin',
  'stroke-miterlimit',
]);
const PATH_DATA = /^[MmLlHhVvCcSsQqTtAaZz0-9eE.,+\-\s]+$/;
/** Plain paints only: `url(...)` would reach outside the symbol. */
const PAINT = /^(none|currentColor|#[0-9a-fA-F]{3,8}|[a-zA-Z]{1,30})$/;
const NUMBER = /^[0-9]+(\.[0-9]+)?$/;

export interface SvgGeometry {
  problems: string[];
  /** The `d` of every path, in order, when there are no problems. */
  paths: string[];
}

class Refused extends Error {}

/**
 * Reads a symbol's SVG with a conforming XML parser and keeps it only if it is
 * geometry and nothing else: an `svg` root whose viewBox is `0 0 width height`,
 * holding `path` elements with plain paint. Scripts, styles, event attributes,
 * links, transforms, text, images, `foreignObject`, DOCTYPEs and entities,
 * processing instructions and other namespaces are all refused.
 */
export function checkSvgGeometry(svg: string, width: number, height: number): SvgGeometry {
  const problems: string[] = [];
  const paths: string[] = [];
  const refuse = (problem: string): never => {
    problems.push(problem);
    throw new Refused(problem);
  };
  const parser = new SaxesParser({ xmlns: true, position: false });
  let depth = 0;
  let sawRoot = false;
  parser.on('doctype', () =>
    refuse('must not have a DOCTYPE (entities and external references are refused)'),
  );
  parser.on('processinginstruction', () => refuse('must not have processing instructions'));
  parser.on('cdata', () => refuse('must not have CDATA sections'));
  parser.on('text', (text) => {
    if (text.trim() !== '') refuse('must not have text');
  });
  parser.on('opentag', (node) => {
    depth += 1;
    const name = `<${node.name}>`;
    if (node.uri !== SVG_NS) refuse(`has ${name} outside the SVG namespace`);
    if (depth === 1 && node.local !== 'svg') refuse(`must have <svg> as its root, not ${name}`);
    if (depth > 1 && (depth > 2 || node.local !== 'path')) {
      refuse(`may hold only <path> elements, not ${name}`);
    }
    for (const attribute of Object.values(node.attributes)) {
      if (attribute.uri === XMLNS_NS || attribute.name === 'xmlns') {
        if (attribute.value !== SVG_NS) refuse(`declares another namespace (${attribute.value})`);
        continue;
      }
      if (attribute.prefix !== '') refuse(`has the attribute ${attribute.name} on ${name}`);
      const allowed = node.local === 'svg' ? SVG_ATTRIBUTES : PATH_ATTRIBUTES;
      if (!allowed.has(attribute.local)) refuse(`has the attribute ${attribute.local} on ${name}`);
      if (['fill', 'stroke'].includes(attribute.local) && !PAINT.test(attribute.value.trim())) {
        refuse(`has ${attribute.local}="${attribute.value}"; only plain colours are allowed`);
      }
    }
    if (depth === 1) {
      sawRoot = true;
      const viewBox = String(node.attributes.viewBox?.value ?? '')
        .trim()
        .split(/[\s,]+/);
      if (viewBox.join(' ') !== `0 0 ${width} ${height}`) {
        refuse(`must have viewBox="0 0 ${width} ${height}" (the symbol's width and height)`);
      }
      for (const [attribute, expected] of [
        ['width', width],
        ['height', height],
      ] as const) {
        const value = node.attributes[attribute]?.value;
        if (value !== undefined && !(NUMBER.test(value) && Number(value) === expected)) {
          refuse(`has ${attribute}="${value}"; it must be ${expected} or left out`);
        }
      }
      return;
    }
    const d = node.attributes.d?.value ?? '';
    if (!PATH_DATA.test(d)) refuse('has a <path> without valid path data in d');
    paths.push(d.trim().replace(/\s+/g, ' '));
  });
  parser.on('closetag', () => {
    depth -= 1;
  });
  parser.on('error', (error) => refuse(`is not well-formed XML (${error.message.split('\n')[0]})`));
  try {
    parser.write(svg).close();
    if (!sawRoot) refuse('has no <svg> element');
    if (paths.length === 0) refuse('has no <path>');
  } catch (error) {
    if (!(error instanceof Refused)) throw error;
  }
  return problems.length > 0 ? { problems, paths: [] } : { problems, paths };
}

const escapeAttribute = (text: string) =>
  text.replace(/[&<>"]/g, (char) => `&#${char.charCodeAt(0)};`);

/** Bare path data as the geometry-only SVG it stands for, in a symbol box. */
export function svgOfPathData(pathData: string, width: number, height: number): string {
  return `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 ${width} ${height}"><path d="${escapeAttribute(pathData.trim())}"/></svg>`;
}
