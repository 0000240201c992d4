import type { HttpApp } from '../../platform/http/server.js';
import { copyable, registerPageScript } from '../../platform/web/copy.js';

/** Where the pages' one script is served; every page loads it (`defer`). */
export const SCRIPT_PATH = '/assets/codehost.js';

export { copyable };

export function registerScript(app: HttpApp): void {
  registerPageScript(app, SCRIPT_PATH);
}
