/**
 * The tables of the CFIHOS reference-data set, as IOGP publishes them (one CSV
 * file each, or one sheet each of a workbook), told apart by their headers:
 * files are often renamed, headers are what the data says about itself.
 */

/** A table as read from a CSV file or a workbook's sheet. */
export interface SourceTable {
  /** What the report calls it: the file's name, and a sheet's after it. */
  source: string;
  /** CSV text, whose cells an export guards against spreadsheets' formulas (`unguarded`). */
  csv?: boolean;
  header: string[];
  records: { line: number; values: string[] }[];
}

export const TABLE_KINDS = [
  'unit-of-measure-dimension',
  'equipment-class',
  'tag-class',
  'property',
  'picklist-value',
  'unit-of-measure',
  'equipment-class-property',
  'tag-class-property',
  'tag-class-equipment-class',
] as const;
export type TableKind = (typeof TABLE_KINDS)[number];

interface TableDefinition {
  /** What a person calls the table. */
  title: string;
  /** The columns read, as CFIHOS names them; the first ones are required. */
  columns: readonly string[];
  required: number;
}

/** The columns of each table, in CFIHOS v2.0's order; an export writes them so. */
export const TABLES: Readonly<Record<TableKind, TableDefinition>> = {
  // Not a CFIHOS table: refdata's export writes it, so that a dimension's own
  // description comes back (CFIHOS names dimensions only in its units table).
  'unit-of-measure-dimension': {
    title: 'units of measure dimensions',
    columns: [
      'unit of measure dimension code CFIHOS unique code',
      'unit of measure dimension code',
      'unit of measure dimension name',
      'unit of measure dimension definition',
    ],
    required: 4,
  },
  'equipment-class': {
    title: 'equipment classes',
    columns: [
      'equipment class CFIHOS unique code',
      'equipment class name',
      'equipment class definition',
      'parent equipment class name',
      'abstract class indicator',
      'spare part information required indicator',
      'equipment class existence reason description',
      'equipment class synonym name',
    ],
    required: 3,
  },
  'tag-class': {
    title: 'tag classes',
    columns: [
      'CFIHOS unique code',
      'tag class name',
      'tag class definition',
      'parent tag class name',
      'abstract class indicator',
      'tag number format',
      'equipment expected to be installed indicator',
      'tag class existence reason description',
      'tag class synonym',
    ],
    required: 3,
  },
  property: {
    title: 'properties',
    columns: [
      'CFIHOS unique code',
      'property name',
      'property definition',
      'property data type',
      'property data type length',
      'unit of measure dimension code CFIHOS unique code',
      'unit of measure dimension code',
      'property picklist name CFIHOS unique code',
      'property picklist name',
      'property existence reason description',
      'property synonym name',
    ],
    required: 4,
  },
  'picklist-value': {
    title: 'property picklist values',
    columns: [
      'property picklist CFIHOS unique code',
      'property picklist name',
      'property picklist value CFIHOS unique code',
      'property picklist value code',
      'property picklist value description',
      'Source standard CFIHOS unique code',
      'source standard code',
      // refdata's own, which its export writes: what CFIHOS leaves to the reader.
      'property picklist definition',
      'property picklist superclass',
    ],
    required: 4,
  },
  'unit-of-measure': {
    title: 'units of measure',
    columns: [
      'CFIHOS unique code',
      'unit of measure name',
      'unit of measure symbol',
      'unit of measure dimension code CFIHOS unique code',
      'unit of measure dimension code',
      'unit of measure dimension name',
      'UNECE code',
      'measurement system code CFIHOS unique code',
      'measurement system code',
      'unit of measure synonym name',
      'unit of measure definition',
    ],
    required: 6,
  },
  'equipment-class-property': {
    title: 'equipment class properties',
    columns: [
      'equipment class CFIHOS unique code',
      'property CFIHOS unique code',
      'equipment class name',
      'property name',
      'minimum cardinality',
      'maximum cardinality',
      'property relevant for equipment indicator',
      'property relevant for model / part indicator',
      'SI unit of measure CFIHOS unique code',
      'SI unit of measure name',
      'imperial unit of measure CFIHOS unique code',
      'imperial unit of measure name',
    ],
    required: 2,
  },
  'tag-class-property': {
    title: 'tag class properties',
    columns: [
      'tag class CFIHOS unique code',
      'property CFIHOS unique code',
      'tag class name',
      'property name',
      'minimum cardinality',
      'maximum cardinality',
      'SI unit of measure CFIHOS unique code',
      'SI unit of measure name',
      'imperial unit of measure CFIHOS unique code',
      'imperial unit of measure name',
    ],
    required: 2,
  },
  'tag-class-equipment-class': {
    title: 'tag class to equipment class relationships',
    columns: [
      'tag class CFIHOS unique code',
      'equipment class CFIHOS unique code',
      'tag class name',
      'equipment class name',
      'tag or equipment class relationship reason for mapping',
    ],
    required: 2,
  },
};

/** Header names compare as people read them: letter case and runs of spaces aside. */
export function columnKey(name: string): string {
  return name.trim().replace(/\s+/g, ' ').toLowerCase();
}

/** A table known for what it is: each record's fields by column name. */
export interface KnownTable {
  kind: TableKind;
  source: string;
  records: { line: number; field(column: string): string; columnOf(column: string): number }[];
  /** Header columns no table of this kind has: not read, and said so. */
  unread: string[];
}

/** Why a table is not one of CFIHOS's. */
export class UnknownTable extends Error {
  override readonly name = 'UnknownTable';
  constructor(
    readonly source: string,
    reason: string,
  ) {
    super(`${source}: ${reason}`);
  }
}

/**
 * Which CFIHOS table `table` is: the kind whose required columns its header has
 * all of (and, of several, the one with most of its columns). A header that is
 * none of them is refused, naming the columns the nearest kind misses.
 */
export function identify(table: SourceTable): KnownTable {
  const positions = new Map<string, number>();
  for (const [index, name] of table.header.entries()) {
    const key = columnKey(name);
    if (positions.has(key))
      throw new UnknownTable(table.source, `has the column "${name}" twice in its header`);
    positions.set(key, index);
  }
  const ranked = TABLE_KINDS.map((kind) => {
    const { columns, required } = TABLES[kind];
    const present = columns.filter((column) => positions.has(columnKey(column)));
    const missing = columns
      .slice(0, required)
      .filter((column) => !positions.has(columnKey(column)));
    return { kind, present: present.length, missing };
  }).sort((a, b) => a.missing.length - b.missing.length || b.present - a.present);
  const best = ranked[0];
  if (!best || best.missing.length > 0) {
    throw new UnknownTable(
      table.source,
      best && best.present > 0
        ? `has a header that is none of the CFIHOS tables'; as ${TABLES[best.kind].title} it lacks ${best.missing.map((column) => `"${column}"`).join(', ')}`
        : `has a header that is none of the CFIHOS tables' (its first column is "${table.header[0] ?? ''}")`,
    );
  }
  const kind = best.kind;
  const known = new Set(TABLES[kind].columns.map(columnKey));
  // Columns are asked for by name for every record: each name is looked up once.
  const indexes = new Map<string, number | undefined>();
  const indexOf = (column: string) => {
    if (!indexes.has(column)) indexes.set(column, positions.get(columnKey(column)));
    return indexes.get(column);
  };
  return {
    kind,
    source: table.source,
    unread: table.header.filter((name) => !known.has(columnKey(name))),
    records: table.records.map(({ line, values }) => ({
      line,
      field(column) {
        const index = indexOf(column);
        const value = index === undefined ? '' : (values[index] ?? '').trim();
        return table.csv ? unguarded(value) : value;
      },
      columnOf(column) {
        return (indexOf(column) ?? -1) + 1;
      },
    })),
  };
}

/**
 * CSV cells a spreadsheet would take for a formula (`=`, `+`, `-`, `@`, a tab
 * or a return first, after any apostrophes) get an apostrophe before them
 * when exported (OWASP's advice); `unguarded` takes it off again, so an
 * export reads back as it was.
 */
export function guarded(value: string): string {
  return /^'*[=+\-@\t\r]/.test(value) ? `'${value}` : value;
}

export function unguarded(value: string): string {
  return /^'+[=+\-@\t\r]/.test(value) ? value.slice(1) : value;
}
