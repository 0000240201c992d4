/** The authoring pages' script, beside the pages' own: they work without it. */
export const AUTHORING_SCRIPT_PATH = '/assets/refdata-authoring.js';

export const AUTHORING_SCRIPT = `'use strict';
`;
