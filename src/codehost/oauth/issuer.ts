import type { Codehost } from '../context.js';

/**
 * The issuer identifier, a fact of the provider: the metadata's `issuer`, `iss`
 * in authorization responses and ID tokens, and what logout checks an ID token
 * hint against.
 */
export function issuerOf(codehost: Codehost): string {
  return codehost.config.publicUrl;
}
