import { createRequire } from 'node:module';
import type {
  PublicKeyCredentialCreationOptionsJSON,
  PublicKeyCredentialRequestOptionsJSON,
} from '@simplewebauthn/server';
import type { HttpApp } from '../../platform/http/server.js';
import { readAsset } from '../../platform/web/assets.js';
import { html, type Markup } from '../../platform/web/html.js';
import type { UserRow } from '../accounts/users.js';
import type { Codehost } from '../context.js';
import { csrfField } from './layout.js';
import type { Session } from './sessions.js';

/** SimpleWebAuthn's browser half, served from the installed package (its UMD bundle). */
const LIBRARY_PATH = '/assets/simplewebauthn-browser.js';
/** The pages' passkey forms (`assets/passkeys.js`). */
const FORMS_PATH = '/assets/codehost-passkeys.js';
/** The longest ceremony answer read: a few kilobytes at most from any authenticator. */
export const MAX_CEREMONY_ANSWER = 64 * 1024;
/** What a page with a passkey form loads, in this order. */
export const PASSKEY_SCRIPTS: readonly string[] = [LIBRARY_PATH, FORMS_PATH];

const LIBRARY = readAsset(
  new URL(
    '../dist/bundle/index.umd.min.js',
    new URL(`file://${createRequire(import.meta.url).resolve('@simplewebauthn/browser')}`),
  ),
);
const FORMS = readAsset(new URL('./assets/passkeys.js', import.meta.url));

export function registerPasskeyScripts(app: HttpApp): void {
  for (const [path, source] of [
    [LIBRARY_PATH, LIBRARY],
    [FORMS_PATH, FORMS],
  ] as const) {
    app.get(path, { schema: { hide: true } }, async (_request, reply) =>
      reply.type('text/javascript').header('cache-control', 'public, max-age=3600').send(source),
    );
  }
}

/**
 * A new ceremony's options for the page about to be shown; the challenge waits
 * in the session for the answer (one at a time: a newer page replaces it).
 */
export function offerRegistration(
  codehost: Codehost,
  session: Session,
  user: UserRow,
): Promise<PublicKeyCredentialCreationOptionsJSON> {
  return offered(codehost, session, codehost.passkeys.registrationOptions(user));
}

/** Sign-in options: any of this site's passkeys, or (a second factor) only `user`'s. */
export function offerSignIn(
  codehost: Codehost,
  session: Session,
  user?: UserRow,
): Promise<PublicKeyCredentialRequestOptionsJSON> {
  return offered(codehost, session, codehost.passkeys.authenticationOptions(user));
}

async function offered<T extends { challenge: string }>(
  codehost: Codehost,
  session: Session,
  making: Promise<T>,
): Promise<T> {
  const options = await making;
  session.data.passkeyChallenge = options.challenge;
  await codehost.sessions.save(session);
  return options;
}

/**
 * The challenge the session's last page offered, taken out so an answer is
 * checked against it once only.
 */
export async function takeChallenge(
  codehost: Codehost,
  session: Session,
): Promise<string | undefined> {
  const challenge = session.data.passkeyChallenge;
  if (challenge === undefined) return undefined;
  delete session.data.passkeyChallenge;
  await codehost.sessions.save(session);
  return challenge;
}

/**
 * A form that runs a passkey ceremony (see `assets/passkeys.js`): hidden until
 * the script finds WebAuthn, with a live status line for what the browser says.
 */
export function passkeyForm(options: {
  id: string;
  action: string;
  csrf: string;
  kind: 'register' | 'authenticate';
  ceremony: PublicKeyCredentialCreationOptionsJSON | PublicKeyCredentialRequestOptionsJSON;
  button: string;
  fields?: Markup;
}): Markup {
  return html`<form id="${options.id}" method="post" action="${options.action}" data-passkey="${options.kind}" data-passkey-options="${JSON.stringify(options.ceremony)}">
  ${csrfField(options.csrf)}
  <input type="hidden" name="credential" value="">
  ${options.fields ?? html``}
  <p><button type="submit">${options.button}</button></p>
  <p class="hint" role="status" data-passkey-status></p>
</form>`;
}
