import { stringify } from 'csv-stringify/sync';
import JSZip from 'jszip';
import type { Refdata } from '../context.js';
import type { ResourceRow } from '../resources/rows.js';
import { CODE, NO_MEASUREMENT_SYSTEM, PICKLIST_KIND, SEGMENTS } from './cfihos-mapping.js';
import { guarded, TABLES, type TableKind } from './cfihos-tables.js';
import { writeWorkbook } from './workbook.js';

/**
 * A library's resources as the CFIHOS tables (docs/import.md#export), which an
 * import reads back to the same resources: each code is the last segment of
 * its IRI where the IRI is the one the code makes, else the IRI itself.
 */

export interface ExportedTable {
  kind: TableKind;
  /** The file (or sheet) name: the library's path and the table's. */
  name: string;
  header: readonly string[];
  rows: string[][];
}

type Body = Record<string, unknown>;

const yesNo = (value: unknown) => (value === true ? 'yes' : value === false ? 'no' : '');
const text = (value: unknown) => (typeof value === 'string' ? value : '');

export async function exportTables(
  refdata: Refdata,
  library: ResourceRow,
): Promise<ExportedTable[]> {
  const rows = await refdata.store.libraryContents(library.iri);
  const byIri = new Map(rows.map((row) => [row.iri, row]));
  const bodies = new Map(rows.map((row) => [row.iri, JSON.parse(row.body) as Body]));
  const of = (family: string) => rows.filter((row) => row.family === family);
  // Each aggregate's values, found once rather than by a pass over every row for each.
  const valuesOf = new Map<string, ResourceRow[]>();
  for (const row of rows) {
    if (row.parent_iri === null) continue;
    const values = valuesOf.get(row.parent_iri) ?? [];
    values.push(row);
    valuesOf.set(row.parent_iri, values);
  }
  const code = (segment: keyof typeof SEGMENTS, iri: string) => {
    const prefix = `${refdata.iriBase}/cfihos/${SEGMENTS[segment]}/`;
    const rest = iri.startsWith(prefix) ? iri.slice(prefix.length) : '';
    return CODE.test(rest) ? rest : iri;
  };
  const body = (row: ResourceRow) => bodies.get(row.iri) as Body;
  const nameOf = (iri: unknown) => (typeof iri === 'string' ? (byIri.get(iri)?.name ?? '') : '');
  const tables: [TableKind, Record<string, string>[]][] = [];

  tables.push([
    'unit-of-measure-dimension',
    of('dimension').map((row) => ({
      'unit of measure dimension code CFIHOS unique code': code('dimension', row.iri),
      'unit of measure dimension code': text(body(row).dimensionCode),
      'unit of measure dimension name': row.name,
      'unit of measure dimension definition': text(body(row).description),
    })),
  ]);
  tables.push([
    'unit-of-measure',
    of('unit').map((row) => {
      const fields = body(row);
      const dimension = byIri.get(text(fields.dimensionRef));
      const system = text(fields.measurementSystem);
      return {
        'CFIHOS unique code': code('unit', row.iri),
        'unit of measure name': row.name,
        'unit of measure symbol': text(fields.symbol),
        'unit of measure dimension code CFIHOS unique code': code(
          'dimension',
          text(fields.dimensionRef),
        ),
        'unit of measure dimension code': dimension ? text(body(dimension).dimensionCode) : '',
        'unit of measure dimension name': dimension?.name ?? '',
        'measurement system code': system === NO_MEASUREMENT_SYSTEM ? '' : system,
        'unit of measure definition': text(fields.description),
      };
    }),
  ]);
  tables.push([
    'picklist-value',
    of('picklist').flatMap((picklist) => {
      const fields = body(picklist);
      const values = valuesOf.get(picklist.iri) ?? [];
      return values.map((value) => ({
        'property picklist CFIHOS unique code': code('picklist', picklist.iri),
        'property picklist name': picklist.name,
        'property picklist value CFIHOS unique code': code('value', value.iri),
        'property picklist value code': value.name,
        'property picklist value description': text(body(value).description),
        'property picklist definition': text(fields.description),
        'property picklist superclass':
          text(fields.subClassOf) === PICKLIST_KIND ? '' : text(fields.subClassOf),
      }));
    }),
  ]);
  tables.push([
    'property',
    of('property').map((row) => {
      const fields = body(row);
      const kind = (fields.types as string[] | undefined)?.[0];
      const range = text(fields.range);
      const dimension = kind === 'number' ? byIri.get(range) : undefined;
      const picklist = kind === 'controlledText' ? byIri.get(range) : undefined;
      return {
        'CFIHOS unique code': code('property', row.iri),
        'property name': row.name,
        'property definition': text(fields.description),
        'property data type':
          kind === 'number' ? 'Number' : kind === 'boolean' ? 'Boolean' : 'Text',
        'unit of measure dimension code CFIHOS unique code':
          kind === 'number' && range ? code('dimension', range) : '',
        'unit of measure dimension code': dimension ? text(body(dimension).dimensionCode) : '',
        'property picklist name CFIHOS unique code':
          kind === 'controlledText' && range ? code('picklist', range) : '',
        'property picklist name': picklist?.name ?? '',
      };
    }),
  ]);
  for (const kind of ['equipment', 'tag'] as const) {
    const classes = of('cfihos-entity').filter((row) => body(row).entityType === kind);
    tables.push([
      `${kind}-class`,
      classes.map((row) => {
        const fields = body(row);
        return {
          [kind === 'equipment' ? 'equipment class CFIHOS unique code' : 'CFIHOS unique code']:
            code(kind, row.iri),
          [`${kind} class name`]: row.name,
          [`${kind} class definition`]: text(fields.description),
          [`parent ${kind} class name`]: nameOf(fields.superEntity),
          'abstract class indicator': yesNo(fields.isAbstract),
          ...(kind === 'equipment'
            ? {
                'spare part information required indicator': yesNo(
                  fields.requiresSparePartInformation,
                ),
              }
            : { 'equipment expected to be installed indicator': yesNo(fields.installedIndicator) }),
        };
      }),
    ]);
    tables.push([
      `${kind}-class-property`,
      classes.flatMap((row) =>
        ((body(row).propertyReferences as Body[] | undefined) ?? []).map((reference) => ({
          [`${kind} class CFIHOS unique code`]: code(kind, row.iri),
          [`${kind} class name`]: row.name,
          'property CFIHOS unique code': code('property', text(reference.propertyUri)),
          'property name': nameOf(reference.propertyUri),
          'minimum cardinality': String(reference.minCardinality),
          'maximum cardinality': String(reference.maxCardinality),
        })),
      ),
    ]);
  }
  tables.push([
    'tag-class-equipment-class',
    of('cfihos-entity').flatMap((row) =>
      ((body(row).equipmentClasses as string[] | undefined) ?? []).map((equipment) => ({
        'tag class CFIHOS unique code': code('tag', row.iri),
        'equipment class CFIHOS unique code': code('equipment', equipment),
        'tag class name': row.name,
        'equipment class name': nameOf(equipment),
      })),
    ),
  ]);
  const path = library.iri.slice(library.iri.lastIndexOf('/') + 1) || 'library';
  return tables
    .filter(([, records]) => records.length > 0)
    .map(([kind, records]) => {
      const header = TABLES[kind].columns;
      return {
        kind,
        name: `${path}-${kind}`,
        header,
        rows: records.map((record) => header.map((column) => record[column] ?? '')),
      };
    });
}

/** The tables as CSV files (UTF-8, CRLF, RFC 4180) in one ZIP archive. */
export async function tablesAsZip(tables: readonly ExportedTable[]): Promise<Buffer> {
  const zip = new JSZip();
  for (const table of tables) {
    zip.file(
      `${table.name}.csv`,
      stringify([[...table.header], ...table.rows.map((row) => row.map(guarded))], {
        record_delimiter: '\r\n',
      }),
    );
  }
  return zip.generateAsync({ type: 'nodebuffer', compression: 'DEFLATE' });
}

/** The tables as the sheets of one workbook; a sheet name is at most 31 characters. */
export function tablesAsWorkbook(tables: readonly ExportedTable[]): Promise<Buffer> {
  return writeWorkbook(
    tables.map((table) => ({
      name: table.kind.slice(0, 31),
      header: table.header,
      rows: table.rows,
    })),
  );
}
