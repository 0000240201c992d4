import { html, type Markup } from '../../platform/web/html.js';
import type { ApplicationRow } from './applications.js';
import type { ResourceServerRow } from './resource-servers.js';

const LOOPBACK = new Set(['127.0.0.1', 'localhost', '[::1]']);

/**
 * Who stands behind a client nobody here set up, for the pages that ask a
 * person to let it in (the consent page, the device confirmation): the site
 * that publishes its metadata document (and a warning when it sends the person
 * elsewhere), or that it registered itself and its name is its own claim.
 */
export function whoItIs(application: ApplicationRow, redirectUri?: string): Markup {
  if (application.registration === 'metadata-document') {
    const site = new URL(application.uid).host;
    const returning = redirectUri === undefined ? undefined : new URL(redirectUri);
    const elsewhere =
      returning !== undefined && returning.host !== site && !LOOPBACK.has(returning.hostname);
    return html`<p id="client-identity">This application is published by <strong>${site}</strong> (its description is at <code>${application.uid}</code>).</p>
${elsewhere ? html`<p class="notice error" id="client-elsewhere">It sends you back to <strong>${returning?.host ?? ''}</strong>, not to ${site}. Go on only if you expected that.</p>` : html``}`;
  }
  if (application.registration === 'dynamic') {
    return html`<p id="client-identity">This application registered itself with codehost: its name is its own claim, and nobody here vouches for it${application.client_uri === '' ? html`` : html` (it gives <code>${application.client_uri}</code> as its home page)`}.</p>`;
  }
  return html``;
}

/** The API a token will be for (RFC 8707), said before the person agrees. */
export function accessTo(
  resource: Pick<ResourceServerRow, 'name' | 'identifier'> | undefined,
): Markup {
  return resource === undefined
    ? html``
    : html`<p id="resource">Its access will be to <strong>${resource.name}</strong> (<code>${resource.identifier}</code>), as you.</p>`;
}
