import { html, type Markup, trusted } from '../../../platform/web/html.js';
import { renderSymbol } from '../../symbols/render.js';
import { ofFamilies, type PageSection, type SectionContext } from './section.js';

interface SymbolBody {
  width: number;
  height: number;
  centerOfRotation: { x: number; y: number };
  connectionPoints?: { id: string; x: number; y: number; direction: number }[];
}

/**
 * An engineering symbol drawn from its geometry (the stored, checked path data
 * only), with the centre of rotation and each connection point and direction,
 * and the same facts as a table for those who do not see the drawing.
 */
export const symbolDrawing: PageSection = {
  shownFor: ofFamilies('symbol'),
  async render({ row, body }: SectionContext): Promise<Markup> {
    const symbol = body as unknown as SymbolBody;
    const points = symbol.connectionPoints ?? [];
    return html`<h2>Drawing</h2>
<figure class="symbol-drawing" id="symbol-drawing"><div role="img" aria-label="Drawing of ${row.name}: ${points.length} connection points, centre of rotation at ${symbol.centerOfRotation.x}, ${symbol.centerOfRotation.y}">${trusted(renderSymbol(row))}</div>
<figcaption>${symbol.width} × ${symbol.height}. <span class="legend-point">●</span> connection point and its direction, <span class="legend-centre">+</span> centre of rotation, dashed: the symbol's box.</figcaption></figure>
<table id="connection-points"><caption>Connection points</caption>
<tr><th scope="col">Id</th><th scope="col">X</th><th scope="col">Y</th><th scope="col">Direction</th></tr>
${points.map((point) => html`<tr><td>${point.id}</td><td>${point.x}</td><td>${point.y}</td><td>${point.direction}°</td></tr>`)}
<tr><th scope="row">Centre of rotation</th><td>${symbol.centerOfRotation.x}</td><td>${symbol.centerOfRotation.y}</td><td></td></tr>
</table>`;
  },
};
