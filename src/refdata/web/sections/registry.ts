import { libraryTerms } from './library-terms.js';
import type { PageSection } from './section.js';

/** The sections of resource pages, in the order they appear after the statements. */
export const SECTIONS: readonly PageSection[] = [libraryTerms];
