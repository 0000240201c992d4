import { Type } from '@sinclair/typebox';
import { checkSvgGeometry } from '../symbols/svg.js';
import { commonRules, familySchema, fieldError, IRI, reference } from './common.js';
import { defineFamily } from './family.js';

const Coordinate = Type.Number({ minimum: -1_000_000, maximum: 1_000_000 });

export const symbol = defineFamily({
  key: 'symbol',
  route: '/esl/engineeringSymbols',
  label: 'engineering symbol',
  ownReadRoute: true,
  schema: familySchema(
    {
      ontology: Type.Optional(IRI('The library the symbol belongs to')),
      dcIdentifier: Type.String({
        pattern: '^[A-Za-z0-9][A-Za-z0-9_.-]{0,99}$',
        description:
          'The symbol identifier (Dublin Core identifier); also the last segment of its IRI',
      }),
      width: Type.Integer({ minimum: 1, maximum: 100_000 }),
      height: Type.Integer({ minimum: 1, maximum: 100_000 }),
      shape: Type.String({
        minLength: 1,
        maxLength: 200_000,
        description: 'A geometry-only SVG document',
      }),
      centerOfRotation: Type.Object(
        { x: Coordinate, y: Coordinate },
        { additionalProperties: false },
      ),
      connectionPoints: Type.Optional(
        Type.Array(
          Type.Object(
            {
              id: Type.String({ pattern: '^[A-Za-z0-9_.-]{1,100}$' }),
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
  mintIri: (body, context) => `${context.iriBase}/esl/symbols/${body.dcIdentifier}`,
  libraryKey: (body) => body.ontology ?? '',
  async rules(body, context) {
    const errors = await commonRules(body, context, {
      needsOntology: false,
      family: 'symbol',
      label: 'engineering symbol',
    });
    if (body.ontology !== undefined) {
      await reference(context, errors, '/ontology', body.ontology, ['library'], 'library');
    }
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
    // The identifier is the IRI: a changed one would name another symbol.
    if (
      context.self !== undefined &&
      context.self !== `${context.iriBase}/esl/symbols/${body.dcIdentifier}`
    ) {
      errors.push(fieldError('/dcIdentifier', 'cannot change; it is part of the IRI'));
    }
    return errors;
  },
});
