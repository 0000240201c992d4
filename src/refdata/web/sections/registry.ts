import { breadcrumbs } from './breadcrumbs.js';
import { classProperties } from './class-properties.js';
import { details } from './details.js';
import { imfType } from './imf-type.js';
import { libraryTerms } from './library-terms.js';
import { ownedValues } from './owned-values.js';
import { referencedBy } from './referenced-by.js';
import { libraryReleases } from './releases.js';
import type { PageSection } from './section.js';
import { subclasses } from './subclasses.js';
import { symbolDrawing } from './symbol-drawing.js';

/**
 * The sections of resource pages, in the order they appear: those placed at
 * the top under the title, the rest after the definition.
 */
export const SECTIONS: readonly PageSection[] = [
  breadcrumbs,
  details,
  classProperties,
  libraryReleases,
  libraryTerms,
  ownedValues,
  imfType,
  symbolDrawing,
  subclasses,
  referencedBy,
];
