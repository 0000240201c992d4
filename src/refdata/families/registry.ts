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

/** Every family the service authors; routes, storage and lifecycle are driven from here. */
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
] as unknown as readonly Family[];

export function familyByKey(key: string): Family | undefined {
  return FAMILIES.find((family) => family.key === (key as FamilyKey));
}
