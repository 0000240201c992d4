import { readAsset } from '../../../platform/web/assets.js';
/** The authoring pages' script, beside the pages' own: they work without it. */
export const AUTHORING_SCRIPT_PATH = '/assets/refdata-authoring.js';

/**
 * Two improvements, each on top of a form that works without them:
 * - reference fields become comboboxes (ARIA 1.2 pattern) that suggest
 *   resources of the right families as one types, and fill in the IRI of the
 *   one chosen while showing its name;
 * - a drawing field redraws as its text and numbers change, takes an SVG file,
 *   and lets a click on the drawing set the centre of rotation or a connection
 *   point. The drawing is rebuilt from path data only, never inserted as given.
 */
export const AUTHORING_SCRIPT = readAsset(new URL('../assets/authoring.js', import.meta.url));
