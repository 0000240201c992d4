import type { UserRow } from '../accounts/users.js';

/** `prompt` values (OpenID Connect Core 3.1.2.1). */
export const PROMPTS = ['none', 'login', 'consent', 'select_account'] as const;
export type Prompt = (typeof PROMPTS)[number];

/** What an OpenID Connect authorization request asks of the user's sign-in. */
export interface InteractionRequest {
  prompt: ReadonlySet<Prompt>;
  /** Seconds since the user signed in after which they must sign in again. */
  maxAge: number | undefined;
  loginHint: string | undefined;
}

/** What a request without `prompt`, `max_age` or `login_hint` asks: nothing special. */
export const NO_INTERACTION: InteractionRequest = {
  prompt: new Set(),
  maxAge: undefined,
  loginHint: undefined,
};

const MAX_LOGIN_HINT_LENGTH = 255;
/** A year: longer ages mean "any sign-in will do". */
const MAX_AGE_LIMIT = 31_536_000;

/**
 * The `prompt`, `max_age` and `login_hint` parameters, or why they are refused
 * (the client hears `invalid_request`).
 */
export function parseInteraction(values: {
  prompt: string | undefined;
  maxAge: string | undefined;
  loginHint: string | undefined;
}): InteractionRequest | string {
  const names = values.prompt === undefined ? [] : values.prompt.split(' ').filter(Boolean);
  const unknown = names.find((name) => !(PROMPTS as readonly string[]).includes(name));
  if (unknown !== undefined) {
    return `prompt has an unknown value (${unknown.slice(0, 40)}); use none, login, consent or select_account.`;
  }
  const prompt = new Set(names as Prompt[]);
  if (prompt.has('none') && prompt.size > 1)
    return 'prompt=none cannot be combined with other values.';
  let maxAge: number | undefined;
  if (values.maxAge !== undefined) {
    if (!/^\d{1,10}$/.test(values.maxAge)) return 'max_age must be a whole number of seconds.';
    maxAge = Math.min(Number(values.maxAge), MAX_AGE_LIMIT);
  }
  if (values.loginHint !== undefined && values.loginHint.length > MAX_LOGIN_HINT_LENGTH) {
    return `login_hint is longer than ${MAX_LOGIN_HINT_LENGTH} characters.`;
  }
  return { prompt, maxAge, loginHint: values.loginHint };
}

/** What the authorization endpoint does next for an OpenID Connect request. */
export type Interaction =
  | { kind: 'approve' }
  | { kind: 'ask-consent' }
  | { kind: 'sign-in' }
  | { kind: 'error'; error: 'login_required' | 'consent_required'; description: string };

/**
 * OpenID Connect Core 3.1.2.1 and 3.1.2.3, as doorkeeper-openid_connect applies
 * them: `max_age` first (a sign-in older than it must be repeated; at least one
 * second is allowed for clock skew), then `prompt`. `prompt=none` never shows a
 * page: it answers `login_required` or `consent_required` instead.
 */
export function nextInteraction(
  request: InteractionRequest,
  user: UserRow | undefined,
  alreadyAuthorized: boolean,
  now: number,
  /** When this browser's session signed in; the user's latest sign-in when unknown. */
  sessionAuthTime?: number,
): Interaction {
  const signedInAt = sessionAuthTime ?? user?.current_sign_in_at ?? null;
  const tooOld =
    user !== undefined &&
    request.maxAge !== undefined &&
    (signedInAt === null || now - Number(signedInAt) > Math.max(request.maxAge, 1) * 1000);
  if (request.prompt.has('none')) {
    if (!user) {
      return { kind: 'error', error: 'login_required', description: 'The user is not signed in.' };
    }
    if (tooOld) {
      return {
        kind: 'error',
        error: 'login_required',
        description: 'The user signed in longer ago than max_age allows.',
      };
    }
    if (!alreadyAuthorized) {
      return {
        kind: 'error',
        error: 'consent_required',
        description: 'The user has not authorized this application for these scopes.',
      };
    }
    return { kind: 'approve' };
  }
  if (!user) return { kind: 'sign-in' };
  // select_account: one account per sign-in here, so choosing one is signing in again.
  if (tooOld || request.prompt.has('login') || request.prompt.has('select_account')) {
    return { kind: 'sign-in' };
  }
  if (request.prompt.has('consent') || !alreadyAuthorized) return { kind: 'ask-consent' };
  return { kind: 'approve' };
}
