import { describe, expect, it } from 'vitest';
import { checkSvgGeometry } from '../../src/refdata/symbols/svg.js';
import { DATABASE_KINDS } from '../harness.js';
import {
  create,
  createLibrary,
  expectRefused,
  iriQuery,
  refdataForTests,
  uniqueName,
} from './helpers.js';

const IMF = 'http://ns.imfid.org/imf#';
const SVG = (inner: string, attributes = 'viewBox="0 0 96 96"') =>
  `<svg xmlns="http://www.w3.org/2000/svg" ${attributes}>${inner}</svg>`;
const PATH = '<path d="M 10 48 L 86 48 M 48 10 L 48 86" stroke="#000" fill="none"/>';

describe('geometry-only SVG', () => {
  it('accepts paths in an svg whose viewBox is the symbol box', () => {
    const result = checkSvgGeometry(
      `<?xml version="1.0"?>\n${SVG(`${PATH}<path d="M0,0 L96,96Z"/>`)}`,
      96,
      96,
    );
    expect(result).toEqual({
      problems: [],
      paths: ['M 10 48 L 86 48 M 48 10 L 48 86', 'M0,0 L96,96Z'],
    });
  });

  it.each([
    ['a script', SVG(`${PATH}<script>alert(1)</script>`), /only <path>/],
    ['an event attribute', SVG('<path d="M0 0L1 1" onclick="alert(1)"/>'), /onclick/],
    ['a style element', SVG(`<style>path{fill:red}</style>${PATH}`), /only <path>/],
    ['a style attribute', SVG('<path d="M0 0L1 1" style="fill:red"/>'), /style/],
    ['a transform', SVG('<path d="M0 0L1 1" transform="rotate(45)"/>'), /transform/],
    ['a group', SVG(`<g>${PATH}</g>`), /only <path>/],
    ['text', SVG(`${PATH}<text>Pump</text>`), /only <path>/],
    ['bare text', SVG(`${PATH}Pump`), /text/],
    ['an image', SVG(`<image href="http://evil.example/x.png"/>${PATH}`), /only <path>/],
    [
      'an external paint',
      SVG('<path d="M0 0L1 1" fill="url(http://evil.example/#p)"/>'),
      /plain colours/,
    ],
    [
      'an xlink reference',
      `<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink" viewBox="0 0 96 96"><path d="M0 0" xlink:href="#x"/></svg>`,
      /another namespace/,
    ],
    [
      'a foreignObject',
      SVG(
        `<foreignObject><div xmlns="http://www.w3.org/1999/xhtml">x</div></foreignObject>${PATH}`,
      ),
      /only <path>/,
    ],
    ['a DOCTYPE with entities', `<!DOCTYPE svg [<!ENTITY x "y">]>${SVG(PATH)}`, /DOCTYPE/],
    ['an undefined entity', SVG('<path d="M0 0 &xxe;"/>'), /well-formed/],
    ['a processing instruction', `${SVG(PATH)}<?evil data?>`, /processing instructions/],
    ['another root', '<html xmlns="http://www.w3.org/2000/svg"><path d="M0 0"/></html>', /root/],
    ['no namespace', '<svg viewBox="0 0 96 96"><path d="M0 0"/></svg>', /namespace/],
    ['a wrong viewBox', SVG(PATH, 'viewBox="0 0 100 100"'), /viewBox/],
    ['a wrong width', SVG(PATH, 'viewBox="0 0 96 96" width="200"'), /width/],
    ['bad path data', SVG('<path d="javascript:alert(1)"/>'), /path data/],
    ['no paths', SVG(''), /no <path>/],
    [
      'broken XML',
      '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 96 96"><path d="M0 0">',
      /well-formed/,
    ],
    ['CDATA', SVG(`${PATH}<![CDATA[x]]>`), /CDATA/],
  ])('refuses %s', (_label, svg, problem) => {
    const result = checkSvgGeometry(svg, 96, 96);
    expect(result.paths).toEqual([]);
    expect(result.problems.join(' ')).toMatch(problem);
  });
});

describe.each(DATABASE_KINDS)('IMF types and engineering symbols on %s', (kind) => {
  const service = refdataForTests(kind, { REFDATA_IRI_BASE: 'https://rdl.example.org' });

  const refused = (route: string, body: Record<string, unknown>, pointers: string[]) =>
    expectRefused(
      service,
      { method: 'POST', url: route, body: { changeJustification: 'x', description: 'd', ...body } },
      400,
      pointers,
    );

  it('builds attribute, terminal and block types that reference each other, cycles included', async () => {
    const ontology = await createLibrary(service);
    const attribute = await create(service, '/imf/attributetypes', {
      name: uniqueName('Temperature'),
      ontology,
      predicate: 'http://rds.posccaesar.org/ontology/plm/rdl/PCA_100003589',
      rangeQualifier: `${IMF}maximumQualifier`,
      scopeQualifier: `${IMF}operatingQualifier`,
    });
    expect(attribute.iri).toMatch(/^https:\/\/rdl\.example\.org\/imf\/attributes\/[0-9a-f-]{36}$/);
    const terminal = await create(service, '/imf/terminaltypes', {
      name: uniqueName('Signal out'),
      ontology,
      aspect: `${IMF}productAspect`,
      direction: 'output',
      referenceTerms: [],
      attributeReferences: [{ entityUri: attribute.iri, minCardinality: 1, maxCardinality: 1 }],
    });
    expect(terminal.iri).toMatch(/\/imf\/terminals\//);
    const block = await create(service, '/imf/blocktypes', {
      name: uniqueName('Transmitter'),
      ontology,
      aspect: `${IMF}productAspect`,
      referenceTerms: ['http://rds.posccaesar.org/ontology/plm/rdl/PCA_100001234'],
      attributeReferences: [{ entityUri: attribute.iri, minCardinality: 0 }],
      terminalReferences: [{ entityUri: terminal.iri, minCardinality: 1, maxCardinality: 2 }],
      hasPartBlockReferences: [],
    });
    // A block may have itself as a part (the cycle is allowed).
    const update = await service.call('PUT', `/imf/blocktypes?${iriQuery(block.iri)}`, {
      body: {
        changeJustification: 'Nested transmitters',
        name: block.name,
        description: 'd',
        ontology,
        aspect: `${IMF}productAspect`,
        referenceTerms: [],
        attributeReferences: [],
        terminalReferences: [],
        hasPartBlockReferences: [{ entityUri: block.iri, minCardinality: 0, maxCardinality: 4 }],
      },
    });
    expect(update.statusCode).toBe(204);
  });

  it('refuses wrong qualifiers, aspects, directions and references', async () => {
    const ontology = await createLibrary(service);
    const attribute = await create(service, '/imf/attributetypes', {
      name: uniqueName('Pressure'),
      ontology,
      predicate: 'http://x.example/p',
    });
    await refused(
      '/imf/attributetypes',
      {
        name: uniqueName('A'),
        ontology,
        predicate: 'http://x.example/p',
        rangeQualifier: `${IMF}designQualifier`,
        provenanceQualifier: `${IMF}maximumQualifier`,
      },
      ['/rangeQualifier', '/provenanceQualifier'],
    );
    await refused('/imf/attributetypes', { name: uniqueName('A'), ontology }, ['/predicate']);
    await refused(
      '/imf/terminaltypes',
      {
        name: uniqueName('T'),
        ontology,
        aspect: `${IMF}productAspect`,
        direction: 'sideways',
        referenceTerms: [],
        attributeReferences: [],
      },
      ['/direction'],
    );
    await refused(
      '/imf/terminaltypes',
      {
        name: uniqueName('T'),
        ontology,
        aspect: `${IMF}colourAspect`,
        direction: 'input',
        referenceTerms: [],
        attributeReferences: [],
      },
      ['/aspect'],
    );
    await refused(
      '/imf/blocktypes',
      {
        name: uniqueName('B'),
        ontology,
        aspect: `${IMF}functionAspect`,
        // Not an IRI at all: the schema refuses it before any rule runs.
        referenceTerms: ['not an iri', 'javascript:alert(1)'],
      },
      ['/referenceTerms/0', '/referenceTerms/1'],
    );
    await refused(
      '/imf/blocktypes',
      {
        name: uniqueName('B'),
        ontology,
        aspect: `${IMF}functionAspect`,
        referenceTerms: [],
        attributeReferences: [{ entityUri: ontology, minCardinality: 0 }],
        terminalReferences: [{ entityUri: attribute.iri, minCardinality: 0 }],
        hasPartBlockReferences: [
          { entityUri: `${ontology}/missing`, minCardinality: 3, maxCardinality: 1 },
        ],
      },
      [
        '/attributeReferences/0/entityUri',
        '/terminalReferences/0/entityUri',
        '/hasPartBlockReferences/0/entityUri',
        '/hasPartBlockReferences/0/minCardinality',
      ],
    );
  });

  describe('engineering symbols', () => {
    const symbolBody = (overrides: Record<string, unknown> = {}) => ({
      name: uniqueName('Centrifugal pump'),
      dcIdentifier: `PP${Math.floor(Math.random() * 1e9)}`,
      width: 96,
      height: 96,
      shape: SVG(PATH),
      centerOfRotation: { x: 48, y: 48 },
      connectionPoints: [
        { id: 'in', x: 0, y: 48, direction: 180 },
        { id: 'out', x: 96, y: 48, direction: 0 },
      ],
      ...overrides,
    });

    it('stores a symbol under its identifier, once', async () => {
      const body = symbolBody();
      const created = await create(service, '/esl/engineeringSymbols', body);
      expect(created.iri).toBe(`https://rdl.example.org/esl/symbols/${body.dcIdentifier}`);
      expect(created.connectionPoints).toHaveLength(2);
      const again = await service.call('POST', '/esl/engineeringSymbols', {
        body: { changeJustification: 'x', description: 'd', ...body, name: uniqueName('Other') },
      });
      expect(again.statusCode).toBe(409);
    });

    it('refuses unsafe shapes, a missing centre, duplicate ids and points outside the box', async () => {
      await refused(
        '/esl/engineeringSymbols',
        symbolBody({ shape: SVG(`${PATH}<script>x()</script>`) }),
        ['/shape'],
      );
      await refused(
        '/esl/engineeringSymbols',
        symbolBody({ shape: SVG(PATH, 'viewBox="0 0 10 10"') }),
        ['/shape'],
      );
      await refused('/esl/engineeringSymbols', symbolBody({ centerOfRotation: undefined }), [
        '/centerOfRotation',
      ]);
      await refused('/esl/engineeringSymbols', symbolBody({ centerOfRotation: { x: 100, y: 0 } }), [
        '/centerOfRotation',
      ]);
      await refused(
        '/esl/engineeringSymbols',
        symbolBody({
          connectionPoints: [
            { id: 'a', x: 0, y: 0, direction: 90 },
            { id: 'a', x: 97, y: 0, direction: 90 },
          ],
        }),
        ['/connectionPoints/1/id', '/connectionPoints/1'],
      );
      await refused(
        '/esl/engineeringSymbols',
        symbolBody({ connectionPoints: [{ id: 'a', x: 0, y: 0, direction: 360 }] }),
        ['/connectionPoints/0/direction'],
      );
      await refused(
        '/esl/engineeringSymbols',
        symbolBody({ connectionPoints: [{ id: 'a', x: 0, y: 0, direction: 45.5 }] }),
        ['/connectionPoints/0/direction'],
      );
      await refused('/esl/engineeringSymbols', symbolBody({ width: 0 }), ['/width']);
    });
  });
});
