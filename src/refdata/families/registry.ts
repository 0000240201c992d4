import { cfihosEntity } from './cfihos-entity.js';
import { dimension } from './dimension.js';
import type { Family, FamilyKey } from './family.js';
import { imfAttribute } from './imf-attribute.js';
import { imfBlock } from './imf-block.js';
import { imfTerminal } from './imf-terminal.js';
import { library } from './library.js';
import { picklist } from './picklist.js';
import { picklistValue } from './picklist-value.js';
import { property } from './property.js';
import { rdlClass } from './rdl-class.js';
import { symbol } from './symbol.js';
import { unit } from './unit.js';

/** Every family the service authors; routes, storage, lifecycle and forms are driven from here. */
export const FAMILIES: readonly Family[] = [
  library,
  rdlClass,
  property,
  cfihosEntity,
  picklist,
  picklistValue,
  unit,
  dimension,
  imfAttribute,
  imfTerminal,
  imfBlock,
  symbol,
];

/** The families one server authors, looked up by key. */
export class FamilyRegistry {
  private readonly byKeys: ReadonlyMap<FamilyKey, Family>;

  constructor(readonly all: readonly Family[] = FAMILIES) {
    const keys = new Map<FamilyKey, Family>();
    const routes = new Set<string>();
    for (const family of all) {
      // Two families with one key or route would answer for each other.
      if (keys.has(family.key)) throw new Error(`Two families have the key ${family.key}.`);
      if (routes.has(family.route)) throw new Error(`Two families use the route ${family.route}.`);
      keys.set(family.key, family);
      routes.add(family.route);
    }
    for (const family of all) {
      const values = family.aggregate?.valueFamily;
      if (values !== undefined && !keys.get(values)?.parentIri)
        throw new Error(`${family.key} owns ${values}, which is not a family with a parent.`);
    }
    this.byKeys = keys;
  }

  get keys(): FamilyKey[] {
    return [...this.byKeys.keys()];
  }

  /** Every route pattern the families' IRIs live under, each once. */
  get iriPaths(): string[] {
    return [...new Set(this.all.flatMap((family) => family.iriPaths ?? []))];
  }

  byKey(key: string): Family | undefined {
    return this.byKeys.get(key);
  }

  /** The family's label, or the key itself for rows of a family no longer served. */
  labelOf(key: string): string {
    return this.byKeys.get(key)?.label ?? key;
  }
}
