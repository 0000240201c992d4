import type { ResourceRow } from '../resources/rows.js';
import { checkSvgGeometry } from './svg.js';

const escapeXml = (text: string) => text.replace(/[&<>"']/g, (char) => `&#${char.charCodeAt(0)};`);

export interface SymbolBody {
  name: string;
  width: number;
  height: number;
  shape: string;
  centerOfRotation: { x: number; y: number };
  connectionPoints?: { id: string; x: number; y: number; direction: number }[];
}

/**
 * The symbol for people: its geometry, each connection point as a dot with a
 * tick in its direction and its id as a tooltip, and the centre of rotation as a
 * cross. Made only from the stored, already checked path data and numbers.
 */
export function renderSymbol(row: ResourceRow): string {
  return renderSymbolBody(JSON.parse(row.body) as SymbolBody);
}

/** `renderSymbol` for a body (a form's, not yet stored: only its checked paths are drawn). */
export function renderSymbolBody(body: SymbolBody): string {
  const { width, height } = body;
  const unit = Math.max(1, Math.min(width, height) / 24);
  const paths = checkSvgGeometry(body.shape, width, height)
    .paths.map(
      (d) => `  <path d="${escapeXml(d)}" fill="none" stroke="#000" stroke-width="${unit / 2}"/>`,
    )
    .join('\n');
  const points = (body.connectionPoints ?? [])
    .map((point) => {
      const radians = (point.direction * Math.PI) / 180;
      const x2 = point.x + Math.cos(radians) * unit * 2;
      const y2 = point.y - Math.sin(radians) * unit * 2;
      return `  <g class="connection-point"><title>${escapeXml(point.id)} (${point.direction}°)</title><circle cx="${point.x}" cy="${point.y}" r="${unit}" fill="#d00"/><line x1="${point.x}" y1="${point.y}" x2="${x2}" y2="${y2}" stroke="#d00" stroke-width="${unit / 3}"/></g>`;
    })
    .join('\n');
  const { x, y } = body.centerOfRotation;
  // A margin around the symbol box, so connection points on its edge, their
  // direction ticks and the centre's cross are drawn whole, not clipped.
  const margin = unit * 3;
  const box = `${-margin} ${-margin} ${width + 2 * margin} ${height + 2 * margin}`;
  return `<svg xmlns="http://www.w3.org/2000/svg" viewBox="${box}" width="${(width + 2 * margin) * 4}" height="${(height + 2 * margin) * 4}">
  <title>${escapeXml(body.name)}</title>
  <rect class="symbol-box" x="0" y="0" width="${width}" height="${height}" fill="none" stroke="#bbb" stroke-width="${unit / 6}" stroke-dasharray="${unit} ${unit}"/>
${paths}
${points}
  <g class="center-of-rotation" stroke="#06c" stroke-width="${unit / 3}"><line x1="${x - unit}" y1="${y}" x2="${x + unit}" y2="${y}"/><line x1="${x}" y1="${y - unit}" x2="${x}" y2="${y + unit}"/></g>
</svg>
`;
}
