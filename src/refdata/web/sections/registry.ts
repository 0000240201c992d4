import { imfType } from './imf-type.js';
import { libraryTerms } from './library-terms.js';
import { ownedValues } from './owned-values.js';
import { referencedBy } from './referenced-by.js';
import { libraryReleases } from './releases.js';
import type { PageSection } from './section.js';
import { symbolDrawing } from './symbol-drawing.js';

/** The sections of resource pages, in the order they appear after the statements. */
export const SECTIONS: readonly PageSection[] = [
  libraryReleases,
  libraryTerms,
  ownedValues,
  imfType,
  symbolDrawing,
  referencedBy,
];
