import { Type } from '@sinclair/typebox';
import type { FieldError } from '../../platform/http/problem.js';
import { dcterms, rdf, sym } from '../rdf/vocabulary.js';
import { checkSvgGeometry, svgOfPathData } from '../symbols/svg.js';
import { familySchema, fieldError, IRI } from './common.js';
import { defineFamily, LIBRARY_FAMILY } from './family.js';

const Coordinate = Type.Number({ minimum: -1_000_000, maximum: 1_000_000 });

export const symbol = defineFamily({
  key: 'symbol',
  route: '/esl/engineeringSymbols',
  label: 'engineering symbol',
  ownReadRoute: true,
  schema: familySchema(
    {
      ontology: Type.Optional(
        IRI('The library the symbol belongs to', { families: [LIBRARY_FAMILY] }, 'Library'),
      ),
      dcIdentifier: Type.String({
        title: 'Identifier',
        pattern: '^[A-Za-z0-9][A-Za-z0-9_.-]{0,99}$',
        description:
          'The symbol identifier (Dublin Core identifier); also the last segment of its IRI',
      }),
      width: Type.Integer({ minimum: 1, maximum: 100_000 }),
      height: Type.Integer({ minimum: 1, maximum: 100_000 }),
      shape: Type.String({
        minLength: 1,
        maxLength: 200_000,
        description:
          'A geometry-only SVG document, or bare SVG path data (drawn in the symbol box)',
        // Forms draw it, with the centre and connection points on top.
        'x-form': 'drawing',
      }),
      centerOfRotation: Type.Object(
        { x: Coordinate, y: Coordinate },
        { additionalProperties: false },
      ),
      connectionPoints: Type.Optional(
        Type.Array(
          Type.Object(
            {
              id: Type.String({
                pattern: '^[A-Za-z0-9_.-]{1,100}$',
                description: 'Letters, digits, _ . and -, up to 100',
              }),
              x: Coordinate,
              y: Coordinate,
              direction: Type.Integer({
                minimum: 0,
                maximum: 359,
                description: 'Degrees, usually a multiple of 90',
              }),
            },
            { additionalProperties: false },
          ),
          { maxItems: 200 },
        ),
      ),
    },
    'An engineering symbol',
  ),
  iriPaths: ['/esl/symbols/*'],
  mintIri: (body, context) => `${context.iriBase}/esl/symbols/${body.dcIdentifier}`,
  // The identifier is the IRI: a changed one would name another symbol.
  fixed: { dcIdentifier: 'it is part of the IRI' },
  libraryKey: (body) => body.ontology ?? '',
  // Bare path data is the symbol's geometry in its box: stored as the SVG it means.
  complete: (body) =>
    body.shape.trimStart().startsWith('<')
      ? body
      : { ...body, shape: svgOfPathData(body.shape, body.width, body.height) },
  identifiers: (body) => [body.dcIdentifier],
  // The mapping parses the SVG; search lists types without drawing anything.
  rdfTypes: () => [sym('Symbol').value],
  rdf(body, g) {
    g.about(rdf('type'), sym('Symbol'));
    g.about(dcterms('identifier'), g.plain(body.dcIdentifier));
    g.about(sym('width'), g.integer(body.width)).about(sym('height'), g.integer(body.height));
    const shape = g.node();
    g.about(sym('hasShape'), shape);
    const paths = checkSvgGeometry(body.shape, body.width, body.height).paths;
    g.add(shape, sym('hasSerialization'), g.typed(paths.join(' '), sym('svg-path-data')));
    const point = g.node();
    g.about(sym('hasCenterOfRotation'), point);
    g.add(point, sym('positionX'), g.decimal(body.centerOfRotation.x)).add(
      point,
      sym('positionY'),
      g.decimal(body.centerOfRotation.y),
    );
    for (const connection of body.connectionPoints ?? []) {
      const node = g.node();
      g.about(sym('hasConnectionPoint'), node);
      g.add(node, dcterms('identifier'), g.plain(connection.id));
      g.add(node, sym('positionX'), g.decimal(connection.x)).add(
        node,
        sym('positionY'),
        g.decimal(connection.y),
      );
      g.add(node, sym('connectorDirection'), g.integer(connection.direction));
    }
  },
  rules(body) {
    const errors: FieldError[] = [];
    for (const problem of checkSvgGeometry(body.shape, body.width, body.height).problems) {
      errors.push(fieldError('/shape', problem));
    }
    const inside = (x: number, y: number) =>
      x >= 0 && x <= body.width && y >= 0 && y <= body.height;
    if (!inside(body.centerOfRotation.x, body.centerOfRotation.y)) {
      errors.push(
        fieldError(
          '/centerOfRotation',
          `must lie inside the symbol (0 to ${body.width}, 0 to ${body.height})`,
        ),
      );
    }
    const ids = new Set<string>();
    for (const [index, point] of (body.connectionPoints ?? []).entries()) {
      if (ids.has(point.id))
        errors.push(
          fieldError(`/connectionPoints/${index}/id`, 'is used by another connection point'),
        );
      ids.add(point.id);
      if (!inside(point.x, point.y)) {
        errors.push(
          fieldError(
            `/connectionPoints/${index}`,
            `must lie inside the symbol (0 to ${body.width}, 0 to ${body.height})`,
          ),
        );
      }
    }
    return errors;
  },
});
