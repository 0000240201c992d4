import { isLinkIri } from '../../platform/http/formats.js';
import { normalizedName } from '../resources/rows.js';
import type { KnownTable, TableKind } from './cfihos-tables.js';
import type { ImportItem, ImportPart, RecordProblem, SourcePlace } from './import-items.js';

/**
 * The CFIHOS tables turned into the resources they describe (docs/import.md
 * has the column mapping): each record's stable IRI from its CFIHOS code, its
 * body as the API would take it, and where each field came from. What the
 * records get wrong on their own (an empty code, an unknown parent, a data
 * type the model has no kind for) is found here; the families' rules run later.
 */

/** What a picklist is a kind of when the data does not say: SKOS concepts (its values are). */
export const PICKLIST_KIND = 'http://www.w3.org/2004/02/skos/core#Concept';

/** What a unit's measurement system is when CFIHOS leaves it empty (716 of its units). */
export const NO_MEASUREMENT_SYSTEM = 'unspecified';

/**
 * Where a CFIHOS record's resource comes from, with the attribution its
 * licence asks for; `sourceId` is the record's CFIHOS code.
 */
export const CFIHOS_SOURCE = {
  sourceName: 'CFIHOS reference data library, © IOGP JIP36, licensed CC BY 4.0',
  sourceUrl: 'https://www.jip36-cfihos.org/cfihos-standards/',
} as const;

/** A property reference's cardinality when the table has no columns for it (CFIHOS's have none). */
export const DEFAULT_CARDINALITY = { minCardinality: 0, maxCardinality: 1 } as const;

/** CFIHOS codes become the last segment of IRIs: letters, digits and a few marks. */
export const CODE = /^[A-Za-z0-9][A-Za-z0-9._~-]{0,99}$/;

/** The kind of IRI each family's records make (a CFIHOS class's, by its entity type). */
const FAMILY_SEGMENTS: Readonly<Record<string, keyof typeof SEGMENTS>> = {
  dimension: 'dimension',
  unit: 'unit',
  picklist: 'picklist',
  property: 'property',
};

/** The path segment of each family's IRIs, as PCA's CFIHOS content has them. */
export const SEGMENTS = {
  equipment: 'equipmentClass',
  tag: 'tagClass',
  property: 'property',
  picklist: 'propertyPicklist',
  value: 'propertyPicklistValue',
  unit: 'unitOfMeasure',
  dimension: 'unitOfMeasureDimension',
} as const;

export interface MappingContext {
  iriBase: string;
  /** The target library's IRI. */
  library: string;
  /** A class already stored in the library, by its kind and name. */
  storedClass(kind: 'equipment' | 'tag', name: string): string | undefined;
}

type Record_ = KnownTable['records'][number];

/** A record no resource could be made of, with why. */
export interface RefusedRecord {
  from: SourcePlace;
  family: string;
  name: string;
  iri: string;
  problems: RecordProblem[];
}

export interface CfihosMapping {
  items: ImportItem[];
  refused: RefusedRecord[];
}

const YES = new Set(['yes', 'y', 'true', '1']);
const NO = new Set(['no', 'n', 'false', '0']);

export function cfihosItems(tables: readonly KnownTable[], context: MappingContext): CfihosMapping {
  const mapper = new Mapper(context);
  const byKind = (kind: TableKind) => tables.filter((table) => table.kind === kind);
  for (const table of byKind('unit-of-measure-dimension')) mapper.dimensions(table);
  for (const table of byKind('unit-of-measure')) mapper.units(table);
  for (const table of byKind('picklist-value')) mapper.values(table);
  for (const table of byKind('property')) mapper.properties(table);
  for (const kind of ['equipment', 'tag'] as const) {
    for (const table of byKind(`${kind}-class`)) mapper.classes(table, kind);
  }
  mapper.resolveParents();
  for (const kind of ['equipment', 'tag'] as const) {
    for (const table of byKind(`${kind}-class-property`)) mapper.classProperties(table, kind);
  }
  for (const table of byKind('tag-class-equipment-class')) mapper.tagEquipment(table);
  return mapper.result();
}

class Mapper {
  private readonly items = new Map<string, ImportItem>();
  private readonly refused: RefusedRecord[] = [];
  /** Each class's parent as its record names it, resolved once every class is known. */
  private readonly parentNames = new Map<string, { name: string; column: number }>();
  private readonly classNames = {
    equipment: new Map<string, string>(),
    tag: new Map<string, string>(),
  };

  constructor(private readonly context: MappingContext) {}

  result(): CfihosMapping {
    return { items: [...this.items.values()], refused: this.refused };
  }

  /** A code's IRI; a column may hold the IRI itself (what an export writes for one minted otherwise). */
  private iri(segment: keyof typeof SEGMENTS, code: string): string {
    return isFullIri(code) ? code : `${this.context.iriBase}/cfihos/${SEGMENTS[segment]}/${code}`;
  }

  private place(table: KnownTable, record: Record_, column?: string): SourcePlace {
    const at = column === undefined ? 0 : record.columnOf(column);
    return { source: table.source, line: record.line, ...(at > 0 ? { column: at } : {}) };
  }

  /** The record's code, or the problem with it. */
  private code(record: Record_, column: string, problems: RecordProblem[]): string {
    const code = record.field(column);
    if (code === '')
      problems.push({ column: record.columnOf(column), message: `${column} is empty` });
    else if (!CODE.test(code) && !isFullIri(code))
      problems.push({
        column: record.columnOf(column),
        message: `${column} "${code}" is not a code: letters, digits, ".", "_", "~" and "-", at most 100, starting with a letter or digit`,
      });
    return code;
  }

  private flag(record: Record_, column: string, problems: RecordProblem[]): boolean | undefined {
    const value = record.field(column).toLowerCase();
    if (value === '') return undefined;
    if (YES.has(value)) return true;
    if (NO.has(value)) return false;
    problems.push({
      column: record.columnOf(column),
      message: `${column} must be yes or no, not "${record.field(column)}"`,
    });
    return undefined;
  }

  /** The columns of `names` a record fills that the model keeps nowhere. */
  private notKept(record: Record_, names: readonly string[]): string[] {
    return names.filter((name) => record.field(name) !== '');
  }

  /**
   * Adds an item, unless its IRI was made already by an earlier record: then
   * this record is refused, pointing at the first.
   */
  private add(item: ImportItem, codeColumn: number): void {
    const first = this.items.get(item.iri);
    if (first) {
      this.refused.push({
        from: item.from,
        family: item.family,
        name: item.name,
        iri: item.iri,
        problems: [
          {
            column: codeColumn,
            message: `has the same code as ${first.from.source} line ${first.from.line}`,
          },
        ],
      });
      return;
    }
    this.items.set(item.iri, item);
  }

  private item(
    fields: Omit<ImportItem, 'notKept' | 'parts' | 'givenIri'> &
      Partial<Pick<ImportItem, 'notKept' | 'parts'>>,
  ): ImportItem {
    const code = fields.iri.slice(fields.iri.lastIndexOf('/') + 1);
    // CFIHOS's own records keep their source, and its licence's attribution, on each resource.
    const body = code.startsWith('CFIHOS-')
      ? { ...fields.body, definitionSources: [{ ...CFIHOS_SOURCE, sourceId: code }] }
      : fields.body;
    const kind =
      fields.family === 'cfihos-entity'
        ? (fields.body.entityType as 'equipment' | 'tag')
        : FAMILY_SEGMENTS[fields.family];
    const made = kind !== undefined && fields.iri === this.iri(kind, code) && CODE.test(code);
    return { notKept: [], parts: [], ...fields, body, givenIri: !made };
  }

  units(table: KnownTable): void {
    for (const record of table.records) {
      const problems: RecordProblem[] = [];
      const code = this.code(record, 'CFIHOS unique code', problems);
      const name = record.field('unit of measure name');
      const dimensionCodes = split(
        record.field('unit of measure dimension code CFIHOS unique code'),
      );
      const dimensionSymbols = split(record.field('unit of measure dimension code'));
      const dimensionNames = split(record.field('unit of measure dimension name'));
      const dimensionColumn = record.columnOf('unit of measure dimension code CFIHOS unique code');
      if (dimensionCodes.length === 0)
        problems.push({
          column: dimensionColumn,
          message: 'unit of measure dimension code CFIHOS unique code is empty',
        });
      else if (
        dimensionSymbols.length !== dimensionCodes.length ||
        dimensionNames.length !== dimensionCodes.length
      )
        problems.push({
          column: dimensionColumn,
          message: `lists ${dimensionCodes.length} dimension codes, ${dimensionSymbols.length} dimension codes and ${dimensionNames.length} dimension names; each dimension needs all three`,
        });
      else {
        for (const [index, dimensionCode] of dimensionCodes.entries()) {
          this.dimension(
            table,
            record,
            dimensionCode,
            dimensionSymbols[index] ?? '',
            dimensionNames[index] ?? '',
          );
        }
      }
      // A unit has one dimension. Where CFIHOS lists several, the last is the
      // unit's own (the others come from symbols that differ only in letter case:
      // pascal is listed under electric current for picoampere's "PA").
      const dimension = dimensionCodes.at(-1);
      const system = record.field('measurement system code');
      const iri = this.iri('unit', code);
      this.add(
        this.item({
          iri,
          family: 'unit',
          name,
          from: this.place(table, record),
          body: {
            name,
            description:
              record.field('unit of measure definition') ||
              `The unit of measure ${name} (${record.field('unit of measure symbol')}).`,
            ontology: this.context.library,
            dimensionRef: dimension === undefined ? '' : this.iri('dimension', dimension),
            measurementSystem: system === '' ? NO_MEASUREMENT_SYSTEM : system,
            symbol: record.field('unit of measure symbol'),
          },
          columns: {
            '/name': record.columnOf('unit of measure name'),
            '/description': record.columnOf('unit of measure definition'),
            '/dimensionRef': dimensionColumn,
            '/measurementSystem': record.columnOf('measurement system code'),
            '/symbol': record.columnOf('unit of measure symbol'),
          },
          notKept: this.notKept(record, [
            'UNECE code',
            'measurement system code CFIHOS unique code',
            'unit of measure synonym name',
            ...(dimensionCodes.length > 1
              ? ['unit of measure dimension code CFIHOS unique code']
              : []),
          ]),
          problems,
        }),
        record.columnOf('CFIHOS unique code'),
      );
    }
  }

  /** A dimension, made from the first unit record that lists it. */
  private dimension(
    table: KnownTable,
    record: Record_,
    code: string,
    symbol: string,
    name: string,
  ): void {
    const problems: RecordProblem[] = [];
    const column = record.columnOf('unit of measure dimension code CFIHOS unique code');
    if (!CODE.test(code) && !isFullIri(code))
      problems.push({ column, message: `dimension code "${code}" is not a code` });
    const iri = this.iri('dimension', code);
    if (this.items.has(iri)) return;
    this.items.set(
      iri,
      this.item({
        iri,
        family: 'dimension',
        name,
        from: this.place(table, record),
        body: {
          name,
          description: `The unit-of-measure dimension ${name} (${symbol}).`,
          ontology: this.context.library,
          dimensionCode: symbol,
        },
        columns: {
          '/name': record.columnOf('unit of measure dimension name'),
          '/dimensionCode': record.columnOf('unit of measure dimension code'),
        },
        problems,
      }),
    );
  }

  /** Dimensions of refdata's own table, each with its description. */
  dimensions(table: KnownTable): void {
    for (const record of table.records) {
      const problems: RecordProblem[] = [];
      const codeColumn = 'unit of measure dimension code CFIHOS unique code';
      const code = this.code(record, codeColumn, problems);
      const name = record.field('unit of measure dimension name');
      this.add(
        this.item({
          iri: this.iri('dimension', code),
          family: 'dimension',
          name,
          from: this.place(table, record),
          body: {
            name,
            description: record.field('unit of measure dimension definition'),
            ontology: this.context.library,
            dimensionCode: record.field('unit of measure dimension code'),
          },
          columns: {
            '/name': record.columnOf('unit of measure dimension name'),
            '/description': record.columnOf('unit of measure dimension definition'),
            '/dimensionCode': record.columnOf('unit of measure dimension code'),
          },
          problems,
        }),
        record.columnOf(codeColumn),
      );
    }
  }

  values(table: KnownTable): void {
    for (const record of table.records) {
      const problems: RecordProblem[] = [];
      const picklistCode = this.code(record, 'property picklist CFIHOS unique code', problems);
      const code = this.code(record, 'property picklist value CFIHOS unique code', problems);
      const name = record.field('property picklist value code');
      const picklistName = record.field('property picklist name');
      const from = this.place(table, record);
      if (problems.length > 0 && picklistCode === '') {
        this.refused.push({ from, family: 'picklist-value', name, iri: '', problems });
        continue;
      }
      const picklistIri = this.iri('picklist', picklistCode);
      let picklist = this.items.get(picklistIri);
      if (!picklist) {
        picklist = this.item({
          iri: picklistIri,
          family: 'picklist',
          name: picklistName,
          from,
          body: {
            name: picklistName,
            description:
              record.field('property picklist definition') ||
              `The CFIHOS property picklist ${picklistName}.`,
            ontology: this.context.library,
            subClassOf: record.field('property picklist superclass') || PICKLIST_KIND,
            picklistValues: [],
          },
          columns: {
            '/name': record.columnOf('property picklist name'),
            '/description': record.columnOf('property picklist definition'),
            '/subClassOf': record.columnOf('property picklist superclass'),
          },
          problems:
            CODE.test(picklistCode) || isFullIri(picklistCode)
              ? []
              : problems.filter((problem) =>
                  problem.message.startsWith('property picklist CFIHOS'),
                ),
        });
        this.items.set(picklistIri, picklist);
      }
      const description = record.field('property picklist value description');
      const part: ImportPart = {
        from,
        field: 'picklistValues',
        column: record.columnOf('property picklist value code'),
        iri: this.iri('value', code),
        family: 'picklist-value',
        value: {
          id: this.iri('value', code),
          name,
          // A value without a definition (1,236 in CFIHOS v2.0) is described by its place.
          description:
            description === '' ? `${name}, a value of the picklist ${picklistName}.` : description,
        },
        notKept: this.notKept(record, [
          'Source standard CFIHOS unique code',
          'source standard code',
        ]),
        problems: problems.filter(
          (problem) => !problem.message.startsWith('property picklist CFIHOS'),
        ),
      };
      const earlier = picklist.parts.find((other) => other.iri === part.iri);
      if (earlier) part.duplicateOf = earlier.from;
      picklist.parts.push(part);
    }
  }

  properties(table: KnownTable): void {
    for (const record of table.records) {
      const problems: RecordProblem[] = [];
      const code = this.code(record, 'CFIHOS unique code', problems);
      const name = record.field('property name');
      const dataType = record.field('property data type').toLowerCase();
      const dimension = record.field('unit of measure dimension code CFIHOS unique code');
      const picklist = record.field('property picklist name CFIHOS unique code');
      const typeColumn = record.columnOf('property data type');
      let kind: string | undefined;
      let range: string | undefined;
      let rangeColumn = typeColumn;
      if (dataType === 'number') {
        kind = 'number';
        rangeColumn = record.columnOf('unit of measure dimension code CFIHOS unique code');
        if (dimension !== '') range = this.iri('dimension', dimension);
      } else if (dataType === 'text' && picklist !== '') {
        kind = 'controlledText';
        rangeColumn = record.columnOf('property picklist name CFIHOS unique code');
        range = this.iri('picklist', picklist);
      } else if (dataType === 'text') kind = 'freeText';
      else if (dataType === 'boolean') kind = 'boolean';
      else
        problems.push({
          column: typeColumn,
          message: `property data type must be Number, Text or Boolean, not "${record.field('property data type')}"`,
        });
      if (picklist !== '' && kind !== 'controlledText')
        problems.push({
          column: record.columnOf('property picklist name CFIHOS unique code'),
          message: `names a picklist, which only a Text property has; this one is ${record.field('property data type')}`,
        });
      const definition = record.field('property definition');
      this.add(
        this.item({
          iri: this.iri('property', code),
          family: 'property',
          name,
          from: this.place(table, record),
          body: {
            name,
            description: definition,
            ontology: this.context.library,
            types: kind === undefined ? [] : [kind],
            ...(range === undefined ? {} : { range }),
          },
          columns: {
            '/name': record.columnOf('property name'),
            '/description': record.columnOf('property definition'),
            '/types': typeColumn,
            '/range': rangeColumn,
          },
          notKept: this.notKept(record, [
            'property data type length',
            'property existence reason description',
            'property synonym name',
          ]),
          problems,
        }),
        record.columnOf('CFIHOS unique code'),
      );
    }
  }

  classes(table: KnownTable, kind: 'equipment' | 'tag'): void {
    const codeColumn =
      kind === 'equipment' ? 'equipment class CFIHOS unique code' : 'CFIHOS unique code';
    for (const record of table.records) {
      const problems: RecordProblem[] = [];
      const code = this.code(record, codeColumn, problems);
      const name = record.field(`${kind} class name`);
      const iri = this.iri(kind, code);
      const parentColumn = `parent ${kind} class name`;
      const parent = record.field(parentColumn);
      if (parent !== '')
        this.parentNames.set(iri, { name: parent, column: record.columnOf(parentColumn) });
      const flags =
        kind === 'equipment'
          ? {
              isAbstract: this.flag(record, 'abstract class indicator', problems),
              requiresSparePartInformation: this.flag(
                record,
                'spare part information required indicator',
                problems,
              ),
            }
          : {
              isAbstract: this.flag(record, 'abstract class indicator', problems),
              installedIndicator: this.flag(
                record,
                'equipment expected to be installed indicator',
                problems,
              ),
            };
      const before = this.items.size;
      this.add(
        this.item({
          iri,
          family: 'cfihos-entity',
          name,
          from: this.place(table, record),
          body: {
            name,
            description: record.field(`${kind} class definition`),
            ontology: this.context.library,
            entityType: kind,
            propertyReferences: [],
            ...Object.fromEntries(Object.entries(flags).filter(([, value]) => value !== undefined)),
          },
          columns: {
            '/name': record.columnOf(`${kind} class name`),
            '/description': record.columnOf(`${kind} class definition`),
            '/superEntity': record.columnOf(parentColumn),
            '/isAbstract': record.columnOf('abstract class indicator'),
            '/requiresSparePartInformation': record.columnOf(
              'spare part information required indicator',
            ),
            '/installedIndicator': record.columnOf('equipment expected to be installed indicator'),
          },
          notKept: this.notKept(record, [
            `${kind} class existence reason description`,
            kind === 'equipment' ? 'equipment class synonym name' : 'tag class synonym',
            'tag number format',
          ]),
          problems,
        }),
        record.columnOf(codeColumn),
      );
      const names = this.classNames[kind];
      const key = normalizedName(name);
      if (this.items.size > before && !names.has(key)) names.set(key, iri);
    }
  }

  /**
   * Each class's parent, named by name: a class of the same kind in this
   * import, else one stored in the library. A chain that comes back to where
   * it started is refused at every class on it.
   */
  resolveParents(): void {
    for (const [iri, parent] of this.parentNames) {
      const item = this.items.get(iri);
      if (!item) continue;
      const kind = item.body.entityType as 'equipment' | 'tag';
      const found =
        this.classNames[kind].get(normalizedName(parent.name)) ??
        this.context.storedClass(kind, parent.name);
      if (found === undefined) {
        item.problems.push({
          column: parent.column,
          message: `parent ${kind} class name "${parent.name}" names no ${kind} class of this import or of the library`,
        });
        continue;
      }
      item.body.superEntity = found;
    }
    for (const item of this.items.values()) {
      const loop = this.parentLoop(item);
      if (loop)
        item.problems.push({
          column: item.columns['/superEntity'],
          message: `the parent chain is circular: ${loop.join(' → ')}`,
        });
    }
  }

  private parentLoop(item: ImportItem): string[] | undefined {
    if (item.family !== 'cfihos-entity') return undefined;
    const names = [item.name];
    const seen = new Set([item.iri]);
    let next = item.body.superEntity as string | undefined;
    while (next !== undefined) {
      const parent = this.items.get(next);
      if (!parent) return undefined;
      names.push(parent.name);
      if (next === item.iri) return names;
      if (seen.has(next)) return undefined;
      seen.add(next);
      next = parent.body.superEntity as string | undefined;
    }
    return undefined;
  }

  classProperties(table: KnownTable, kind: 'equipment' | 'tag'): void {
    for (const record of table.records) {
      const problems: RecordProblem[] = [];
      const classColumn = `${kind} class CFIHOS unique code`;
      const classCode = this.code(record, classColumn, problems);
      const propertyCode = this.code(record, 'property CFIHOS unique code', problems);
      const minimum = cardinality(record, 'minimum cardinality', problems);
      const maximum = cardinality(record, 'maximum cardinality', problems);
      const from = this.place(table, record);
      const owner = this.items.get(this.iri(kind, classCode));
      const entry = {
        propertyUri: this.iri('property', propertyCode),
        minCardinality: minimum ?? DEFAULT_CARDINALITY.minCardinality,
        maxCardinality: maximum ?? Math.max(DEFAULT_CARDINALITY.maxCardinality, minimum ?? 0),
      };
      if (!owner) {
        this.refused.push({
          from,
          family: 'cfihos-entity',
          name: record.field(`${kind} class name`),
          iri: this.iri(kind, classCode),
          problems: [
            ...problems,
            {
              column: record.columnOf(classColumn),
              message: `names ${kind} class ${classCode}, which this import does not hold; import its class table with it`,
            },
          ],
        });
        continue;
      }
      const part: ImportPart = {
        from,
        field: 'propertyReferences',
        value: entry,
        column: record.columnOf('property CFIHOS unique code'),
        names: entry.propertyUri,
        notKept: this.notKept(record, [
          'property relevant for equipment indicator',
          'property relevant for model / part indicator',
          'SI unit of measure CFIHOS unique code',
          'imperial unit of measure CFIHOS unique code',
        ]),
        problems: problems.map((problem) => problem),
      };
      const earlier = owner.parts.find(
        (other) =>
          other.field === 'propertyReferences' &&
          (other.value as { propertyUri?: string }).propertyUri === entry.propertyUri,
      );
      if (earlier) part.duplicateOf = earlier.from;
      owner.parts.push(part);
    }
  }

  tagEquipment(table: KnownTable): void {
    for (const record of table.records) {
      const problems: RecordProblem[] = [];
      const tagCode = this.code(record, 'tag class CFIHOS unique code', problems);
      const equipmentCode = this.code(record, 'equipment class CFIHOS unique code', problems);
      const from = this.place(table, record);
      const owner = this.items.get(this.iri('tag', tagCode));
      if (!owner) {
        this.refused.push({
          from,
          family: 'cfihos-entity',
          name: record.field('tag class name'),
          iri: this.iri('tag', tagCode),
          problems: [
            ...problems,
            {
              column: record.columnOf('tag class CFIHOS unique code'),
              message: `names tag class ${tagCode}, which this import does not hold; import its class table with it`,
            },
          ],
        });
        continue;
      }
      const equipment = this.iri('equipment', equipmentCode);
      const part: ImportPart = {
        from,
        field: 'equipmentClasses',
        value: equipment,
        column: record.columnOf('equipment class CFIHOS unique code'),
        names: equipment,
        notKept: this.notKept(record, ['tag or equipment class relationship reason for mapping']),
        problems,
      };
      const earlier = owner.parts.find(
        (other) => other.field === 'equipmentClasses' && other.value === equipment,
      );
      if (earlier) part.duplicateOf = earlier.from;
      owner.parts.push(part);
    }
  }
}

/** An absolute IRI in a code's column: the resource's own IRI. */
function isFullIri(value: string): boolean {
  return /^(https?|urn):/i.test(value) && isLinkIri(value);
}

/** A `;`-separated list, as CFIHOS gives a unit's several dimensions. */
function split(value: string): string[] {
  return value === '' ? [] : value.split(';').map((part) => part.trim());
}

function cardinality(
  record: Record_,
  column: string,
  problems: RecordProblem[],
): number | undefined {
  const text = record.field(column);
  if (text === '') return undefined;
  if (/^\d{1,7}$/.test(text)) return Number(text);
  problems.push({
    column: record.columnOf(column),
    message: `${column} must be a whole number of at most 1000000, not "${text}"`,
  });
  return undefined;
}
