import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { Type } from '@sinclair/typebox';
import { Value } from '@sinclair/typebox/value';

/** ETIM's and UNSPSC's kinds of entry; UNSPSC's four levels, ETIM's classes, features, units. */
export const ENTRY_KINDS = ['class', 'feature', 'unit', 'segment', 'family', 'commodity'] as const;
export const FEATURE_TYPES = ['numeric', 'range', 'logical', 'alphanumeric'] as const;

const CatalogueFile = Type.Object({
  catalogue: Type.String({ minLength: 1, maxLength: 50 }),
  version: Type.String({ minLength: 1, maxLength: 50 }),
  entries: Type.Array(
    Type.Object({
      id: Type.String({ minLength: 1, maxLength: 50 }),
      kind: Type.Union(ENTRY_KINDS.map((kind) => Type.Literal(kind))),
      label: Type.Optional(Type.String()),
      featureType: Type.Optional(Type.Union(FEATURE_TYPES.map((type) => Type.Literal(type)))),
      /** For alphanumeric ETIM features: whether a property with a picklist may map to it. */
      controlledValuesAllowed: Type.Optional(Type.Boolean()),
    }),
  ),
});

export type CatalogueEntry = (typeof CatalogueFile)['static']['entries'][number];

export interface Catalogue {
  name: string;
  version: string;
  find(id: string): CatalogueEntry | undefined;
}

/** The external catalogues mappings are checked against, by name (`ETIM`, `UNSPSC`). */
export class Catalogues {
  private readonly byName = new Map<string, Catalogue>();

  constructor(catalogues: readonly Catalogue[] = []) {
    for (const catalogue of catalogues) this.byName.set(catalogue.name.toUpperCase(), catalogue);
  }

  get(name: string): Catalogue | undefined {
    return this.byName.get(name.toUpperCase());
  }

  /**
   * Every `*.json` catalogue file in a directory (none when it does not exist).
   * A file that is not a catalogue stops start-up with its name.
   */
  static async load(directory: string): Promise<Catalogues> {
    let names: string[];
    try {
      names = (await readdir(directory)).filter((name) => name.endsWith('.json')).sort();
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return new Catalogues();
      throw error;
    }
    const catalogues: Catalogue[] = [];
    for (const name of names) {
      const parsed: unknown = JSON.parse(await readFile(join(directory, name), 'utf8'));
      if (!Value.Check(CatalogueFile, parsed)) {
        throw new Error(
          `${join(directory, name)} is not a catalogue file (see docs/refdata-model.md).`,
        );
      }
      const entries = new Map(parsed.entries.map((entry) => [entry.id, entry]));
      catalogues.push({
        name: parsed.catalogue,
        version: parsed.version,
        find: (id) => entries.get(id),
      });
    }
    return new Catalogues(catalogues);
  }
}
